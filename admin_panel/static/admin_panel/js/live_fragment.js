// memory-panel: a part of a page that follows its files (the Sessions list follows state.db, a
// provider's page its config.yaml, .env and settings file). The element marked data-live-fragment names its stream (data-stream-url) and the
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

  // A form the person has started to change is never replaced under them: its save is checked
  // against the files anyway (the conflict check), and the next change after it brings it up to date.
  function edited(root) {
    // Marked on the person's first input or change (an htmx re-render of a row moves the
    // defaults, so comparing with them alone is not enough).
    if (root.hasAttribute("data-live-edited")) { return true; }
    var fields = root.querySelectorAll("input, select, textarea");
    for (var i = 0; i < fields.length; i += 1) {
      var field = fields[i];
      if (field.type === "checkbox" || field.type === "radio") {
        if (field.checked !== field.defaultChecked) { return true; }
      } else if (field.tagName === "SELECT") {
        for (var j = 0; j < field.options.length; j += 1) {
          if (field.options[j].selected !== field.options[j].defaultSelected) { return true; }
        }
      } else if (field.type !== "hidden" && field.value !== field.defaultValue) {
        return true;
      }
    }
    return false;
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
        // What the page has seen (for tests and tools): set whether or not it replaced anything.
        document.documentElement.setAttribute("data-live-seen", fresh.getAttribute("data-fingerprint") || "");
        if (fresh.getAttribute("data-fingerprint") === current.getAttribute("data-fingerprint")) { return; }
        if (edited(current)) { return; }
        var focused = current.contains(document.activeElement) ? document.activeElement.id : "";
        current.replaceWith(fresh);
        var refocus = focused ? document.getElementById(focused) : null;
        if (refocus !== null && fresh.contains(refocus)) { refocus.focus(); }
        if (window.htmx) { window.htmx.process(fresh); }
        fresh.dispatchEvent(new CustomEvent("live:updated", { bubbles: true }));
      })
      .finally(function () {
        live.inflight = null;
        if (live.again) { live.again = false; refresh(); }
      });
    return live.inflight;
  }

  function markEdited(event) {
    var root = region();
    if (root !== null && root.contains(event.target)) { root.setAttribute("data-live-edited", ""); }
  }
  document.addEventListener("input", markEdited, true);
  document.addEventListener("change", markEdited, true);

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
