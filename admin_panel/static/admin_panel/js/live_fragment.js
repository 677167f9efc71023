// memory-panel: a read-only part of a page that follows its files (the Sessions list follows
// state.db). The element marked data-live-fragment names its stream (data-stream-url) and the
// fingerprint it was rendered at (data-fingerprint). When live.js reports another fingerprint, the
// page asks its own address again as htmx would (HX-Request: the route answers with that part
// only, under its own permission checks) and puts the new part in place of the old one.
// Without this file the page is the same, with the state it had when it loaded.
"use strict";

(function () {
  var live = { inflight: null, again: false, stopped: false, connection: null };

  function region() {
    return document.querySelector("[data-live-fragment]");
  }

  function stop() {
    live.stopped = true;
    if (live.connection) { live.connection.stop(); }
  }

  function refresh() {
    if (live.stopped) { return Promise.resolve(); }
    if (live.inflight) { live.again = true; return live.inflight; }
    var url = window.location.pathname + window.location.search;
    live.inflight = fetch(url, { credentials: "same-origin", cache: "no-store",
                                 headers: { "HX-Request": "true", "Accept": "text/html" } })
      .then(function (response) {
        if (!response.ok) { stop(); return null; }
        return response.text();
      })
      .then(function (html) {
        if (html === null) { return; }
        var template = document.createElement("template");
        template.innerHTML = html;
        var fresh = template.content.querySelector("[data-live-fragment]");
        var current = region();
        // Anything but the part itself (a sign-in page after the session ended) ends live updates.
        if (fresh === null || current === null || fresh.id !== current.id) { stop(); return; }
        if (fresh.getAttribute("data-fingerprint") === current.getAttribute("data-fingerprint")) { return; }
        current.replaceWith(fresh);
        if (window.htmx) { window.htmx.process(fresh); }
        fresh.dispatchEvent(new CustomEvent("live:updated", { bubbles: true }));
      })
      .finally(function () {
        live.inflight = null;
        if (live.again) { live.again = false; refresh(); }
      });
    return live.inflight;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = region();
    var streamUrl = root === null ? null : root.getAttribute("data-stream-url");
    if (!streamUrl || !window.PanelLive) { return; }
    live.connection = window.PanelLive.connect(streamUrl, {
      change: function (fingerprint) {
        var current = region();
        if (current !== null && fingerprint !== current.getAttribute("data-fingerprint")) { refresh(); }
      },
      poll: refresh,
      end: stop,
    });
  });
})();
