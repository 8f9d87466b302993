// The docs page: what Swagger UI draws lacks two things axe-core asks for (WCAG 4.1.2 and
// 2.1.1), added as it draws them: a name for the models' icon-only expand buttons, and a
// keyboard stop on the code examples that scroll sideways. The operations' rows are buttons
// without a link inside (deepLinking off in SPECTACULAR_SETTINGS: a link in a button is a
// nested control).
(function () {
  "use strict";

  function name(button) {
    var row = button.closest("tr");
    var cell = row && row.querySelector("td");
    var title = button.querySelector(".model-title") || (cell && cell.firstChild);
    var text = title && title.textContent ? title.textContent.trim() : "";
    return text || "model";
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
  }

  new MutationObserver(mend).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
})();
