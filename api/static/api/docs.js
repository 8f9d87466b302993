// The docs page: what Swagger UI draws lacks a few things axe-core asks for (WCAG 4.1.2 and
// 2.1.1), added as it draws them: a name for the models' icon-only expand buttons, and a
// keyboard stop on the code examples that scroll sideways. The operations' rows are buttons
// without a link inside (deepLinking off in SPECTACULAR_SETTINGS: a link in a button is a
// nested control), so each operation's address is given back here instead: a "#" link beside
// its row, to #operation-<operationId>, and that fragment opens the operation and scrolls to
// it, as the page loads and whenever the fragment changes.
(function () {
  "use strict";

  var PREFIX = "operation-";

  function name(button) {
    var row = button.closest("tr");
    var cell = row && row.querySelector("td");
    var title = button.querySelector(".model-title") || (cell && cell.firstChild);
    var text = title && title.textContent ? title.textContent.trim() : "";
    return text || "model";
  }

  // Swagger UI's id of an operation's block is "operations-<tag>-<operationId>", each part
  // escaped as its escapeDeepLinkPath does (spaces to "_", then CSS.escape).
  function escaped(text) {
    return CSS.escape(text.trim().replace(/\s/g, "_"));
  }

  function operationId(block) {
    var tag = block.closest(".opblock-tag-section");
    var heading = tag && tag.querySelector(".opblock-tag[data-tag]");
    var start = heading ? "operations-" + escaped(heading.getAttribute("data-tag")) + "-" : "";
    return start && block.id.indexOf(start) === 0 ? block.id.slice(start.length) : "";
  }

  function permalink(block) {
    var control = block.querySelector(":scope > .opblock-summary > .opblock-summary-control");
    var id = operationId(block);
    if (!control || !id || control.parentNode.querySelector(":scope > .opblock-permalink")) {
      return;
    }
    var method = control.querySelector(".opblock-summary-method");
    var path = control.querySelector(".opblock-summary-path");
    var link = document.createElement("a");
    // noZensmooth: not taken by the smooth scroller in Swagger UI's bundle, which would set the
    // fragment by history.pushState (no hashchange) once done
    link.className = "opblock-permalink noZensmooth";
    link.id = PREFIX + id;
    link.href = "#" + PREFIX + id;
    link.textContent = "#";
    link.title = "Link to this operation";
    // the method too: a path has an operation for each of its methods
    var named = method && path ? method.textContent + " " + path.getAttribute("data-path") : id;
    link.setAttribute("aria-label", "Link to " + named);
    control.after(link);
  }

  // The fragment's operation, opened and scrolled to once it is drawn (null: done).
  var wanted = null;

  function follow() {
    var link = wanted && document.getElementById(wanted);
    var block = link && link.closest(".opblock");
    if (!block) {
      return;
    }
    wanted = null;
    var control = block.querySelector(".opblock-summary-control");
    if (control && control.getAttribute("aria-expanded") !== "true") {
      control.click();
    }
    block.scrollIntoView({ block: "start" });
  }

  function want() {
    var fragment = location.hash.slice(1);
    wanted = fragment.indexOf(PREFIX) === 0 ? fragment : null;
    follow();
  }

  function mend() {
    document.querySelectorAll(".swagger-ui .model-box-control:not([aria-label])").forEach(function (button) {
      if (!button.textContent.trim()) {
        button.setAttribute("aria-label", name(button));
      }
    });
    document.querySelectorAll(".swagger-ui .highlight-code pre:not([tabindex]), .swagger-ui pre.microlight:not([tabindex])").forEach(function (code) {
      code.setAttribute("tabindex", "0");
    });
    document.querySelectorAll(".swagger-ui .opblock[id]").forEach(permalink);
    follow();
  }

  want();
  window.addEventListener("hashchange", want);
  // the same link followed again (its operation since closed) changes no fragment
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".opblock-permalink");
    if (link && link.hash === location.hash) {
      want();
    }
  });
  new MutationObserver(mend).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
})();
