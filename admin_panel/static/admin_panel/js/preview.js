// memory-panel: schema preview hot reload (pushed through live.js). Without this file everything still works: reload the
// page by hand to see a saved file, and "Try it" posts the form normally.
"use strict";

(function () {
  const POLL_HEADER = "X-Preview-Poll";
  let inFlight = null;
  let again = false;
  let stopped = false;
  let connection = null;
  let openSections = [];

  function region() {
    return document.getElementById("preview-region");
  }

  function fingerprintOf(root) {
    const holder = root.querySelector("[data-fingerprint]");
    return holder === null ? "" : holder.getAttribute("data-fingerprint");
  }

  // Ask the server for the file's preview: 204 leaves the page alone, 200 carries the fresh
  // preview, which htmx swaps in (so the provider form's own scripts re-initialise it). Called when
  // the pushed fingerprint differs from the page's (or on each poll where streams are blocked).
  function refresh() {
    const root = region();
    if (root === null || stopped || typeof window.htmx === "undefined") {
      return Promise.resolve();
    }
    const base = root.getAttribute("data-poll-url");
    if (!base) {
      return Promise.resolve();
    }
    if (inFlight !== null) {
      again = true;
      return inFlight;
    }
    const url = base + "&fp=" + encodeURIComponent(fingerprintOf(root));
    const headers = {};
    headers[POLL_HEADER] = "1";
    const done = () => {
      inFlight = null;
      if (again) {
        again = false;
        return refresh();
      }
      return null;
    };
    inFlight = window.htmx.ajax("GET", url, { target: root, swap: "innerHTML", headers: headers }).then(done, done);
    return inFlight;
  }

  function stop() {
    stopped = true;
    if (connection !== null) {
      connection.stop();
    }
    const live = document.getElementById("preview-live");
    const banner = document.getElementById("preview-stopped");
    if (live !== null && banner !== null) {
      banner.textContent = live.getAttribute("data-stopped-text");
      banner.hidden = false;
    }
  }

  function isPoll(detail) {
    const config = detail.requestConfig;
    return Boolean(config && config.headers && config.headers[POLL_HEADER]);
  }

  document.addEventListener("htmx:beforeSwap", (event) => {
    const root = region();
    if (root === null || event.detail.target !== root) {
      return;
    }
    // Only a preview fragment may replace the preview: a sign-in page (expired session) or an
    // error page must not, and then live updates stop with a notice.
    if (event.detail.xhr.getResponseHeader("X-Preview-Fingerprint") === null && event.detail.xhr.status !== 204) {
      event.detail.shouldSwap = false;
      if (isPoll(event.detail)) {
        stop();
      }
      return;
    }
    openSections = Array.from(root.querySelectorAll("details[id][open]")).map((d) => d.id);
  });

  document.addEventListener("htmx:afterSettle", (event) => {
    const root = region();
    if (root === null || event.detail.target !== root) {
      return;
    }
    // Sections the author had expanded stay expanded across a reload.
    openSections.forEach((id) => {
      const section = document.getElementById(id);
      if (section !== null && section.tagName === "DETAILS") {
        section.open = true;
      }
    });
    if (isPoll(event.detail)) {
      const live = document.getElementById("preview-live");
      if (live !== null) {
        live.textContent = live.getAttribute("data-updated-text");
      }
      return;
    }
    const result = document.getElementById("try-result");
    if (result !== null) {
      result.focus();
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const root = region();
    const streamUrl = root === null ? null : root.getAttribute("data-stream-url");
    if (!streamUrl || !window.PanelLive) {
      return;
    }
    connection = window.PanelLive.connect(streamUrl, {
      change: (fingerprint) => {
        const current = region();
        if (current !== null && fingerprint !== fingerprintOf(current)) {
          refresh();
        }
      },
      poll: refresh,
      end: stop,
    });
  });
})();
