// Keyboard steps for the history replay: ← and → step back and forward, Home and End jump to
// the start and the latest position. It only follows the page's own links (no inline script).
(function () {
  "use strict";
  var keys = {
    ArrowLeft: "step-prev",
    ArrowRight: "step-next",
    Home: "step-first",
    End: "step-last",
  };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var id = keys[event.key];
    var link = id && document.getElementById(id);
    if (link && link.href && !link.classList.contains("disabled")) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
