// memory-panel: small progressive enhancements. Every page works without this file.
"use strict";

(function () {
  // Selects marked data-autosubmit submit their form on change; their button is then redundant.
  function enhanceAutosubmit(root) {
    root.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      var button = select.form && select.form.querySelector("[data-autosubmit-button]");
      if (button) { button.classList.add("visually-hidden"); }
      select.addEventListener("change", function () { select.form.requestSubmit(); });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { enhanceAutosubmit(document); });
})();
