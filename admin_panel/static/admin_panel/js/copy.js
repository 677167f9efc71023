// memory-panel: "Copy" buttons for one-time links and tokens. Without this file the value stays
// in a read-only box that can be selected and copied by hand.
"use strict";

document.querySelectorAll("[data-copy-target]").forEach((button) => {
  const source = document.getElementById(button.dataset.copyTarget);
  if (source === null || !navigator.clipboard) {
    return;
  }
  button.hidden = false;
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(source.value).then(() => {
      const status = document.getElementById(button.dataset.copyStatus);
      if (status !== null) {
        status.textContent = status.dataset.copied;
      }
    });
  });
});
