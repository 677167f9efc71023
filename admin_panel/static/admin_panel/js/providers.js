// memory-panel: provider form enhancements. The pages work without this file: every row is listed
// (with "Only used when ..." notes), secrets are replaced by typing, validation happens on submit.
"use strict";

document.documentElement.classList.add("js");

function syncSecret(fieldset) {
  const chosen = fieldset.querySelector("input[data-secret-choice]:checked");
  const replacing = chosen !== null && chosen.value === "replace";
  fieldset.classList.toggle("secret--replace", replacing);
  const input = fieldset.querySelector("[data-secret-new] input");
  if (input !== null && !replacing) {
    input.value = ""; // a value typed before switching back to "keep" must not be sent
  }
  return input;
}

function initSecrets(root) {
  root.querySelectorAll("fieldset.secret").forEach((fieldset) => {
    const input = syncSecret(fieldset);
    // A password box that already carries an error stays open so the user sees where to type.
    if (input !== null && input.getAttribute("aria-invalid") === "true") {
      fieldset.classList.add("secret--replace");
    }
  });
}

document.addEventListener("change", (event) => {
  const target = event.target;
  if (!(target instanceof HTMLInputElement) || !target.hasAttribute("data-secret-choice")) {
    return;
  }
  const fieldset = target.closest("fieldset.secret");
  if (fieldset === null) {
    return;
  }
  const input = syncSecret(fieldset);
  if (target.value === "replace" && input !== null) {
    input.focus();
  }
});

function focusProblem() {
  const summary = document.getElementById("error-summary") || document.getElementById("conflict");
  if (summary !== null) {
    summary.focus();
  }
}

// Links in the error summary: open a collapsed section before jumping to the field.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest(".error-summary a[href^='#']") : null;
  if (link === null) {
    return;
  }
  const field = document.getElementById(link.getAttribute("href").slice(1));
  if (field === null) {
    return;
  }
  const section = field.closest("details");
  if (section !== null) {
    section.open = true;
  }
  event.preventDefault();
  field.focus();
});

document.addEventListener("DOMContentLoaded", () => {
  initSecrets(document);
  focusProblem();
});

// A row revealed by a change elsewhere (a `when` condition now holds): open its section so the
// user sees the setting that just appeared.
function openRevealed() {
  document.querySelectorAll(".field[data-revealed]").forEach((row) => {
    row.removeAttribute("data-revealed");
    const section = row.closest("details");
    if (section !== null) {
      section.open = true;
    }
  });
}

document.addEventListener("htmx:afterSettle", (event) => {
  initSecrets(document);
  openRevealed();
});

// The page was brought up to date with its files (live_fragment.js): the new form needs the same.
document.addEventListener("live:updated", () => {
  initSecrets(document);
});
