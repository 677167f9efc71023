// memory-panel: one live connection per page. The server pushes a fingerprint (an opaque hash,
// never content) over server-sent events whenever what the page shows may have changed; the page
// compares it with its own and fetches the fragment it needs only when they differ.
//
// A hidden tab closes its stream and opens a new one when shown again (the first message resyncs
// it). A dropped stream reconnects with growing delays. A stream that fails to open twice in a row
// (blocked by a proxy, no EventSource at all, or refused because too many are open: 429) falls
// back to polling and tries a stream again after STREAM_RETRY_MS. Pages work without this file.
"use strict";

(function () {
  var POLL_MS = 1000;
  var BACKOFF_START_MS = 1000;
  // A stream that delivered and then ended (a WSGI server answers once; a restart) is opened again
  // after this; only attempts that deliver nothing back off.
  var REOPEN_MS = 500;
  var BACKOFF_MAX_MS = 30000;
  var FAILURES_BEFORE_POLLING = 2;
  // While polling, how long before a stream is tried again (the server's Retry-After is 30 s).
  var STREAM_RETRY_MS = 60000;

  // handlers: change(fingerprint) on every message, poll() -> Promise when polling instead,
  // end() when the server ends the stream for good (signed out), status(state) for the badge.
  function connect(url, handlers) {
    var state = { source: null, timer: null, failures: 0, everOpened: false, delay: BACKOFF_START_MS,
                  polling: false, stopped: false };

    function status(name) {
      if (handlers.status) { handlers.status(name); }
    }

    function mode(name) {
      document.documentElement.setAttribute("data-live-mode", name);
    }

    function close() {
      if (state.source) { state.source.close(); state.source = null; }
      clearTimeout(state.timer);
      state.timer = null;
    }

    function stop() {
      state.stopped = true;
      clearTimeout(state.streamRetry);
      close();
      mode("stopped");
    }

    function pollLoop() {
      if (state.stopped || document.hidden || !state.polling) { return; }
      Promise.resolve(handlers.poll()).then(null, function () { status("retrying"); }).then(function () {
        if (!state.stopped && !document.hidden && state.polling) { state.timer = setTimeout(pollLoop, POLL_MS); }
      });
    }

    function startPolling() {
      close();
      state.polling = true;
      mode("polling");
      pollLoop();
      clearTimeout(state.streamRetry);
      state.streamRetry = setTimeout(function () {
        if (state.stopped || typeof window.EventSource !== "function") { return; }
        state.polling = false;
        state.failures = 0;
        open();
      }, STREAM_RETRY_MS);
    }

    function open() {
      if (state.stopped || document.hidden) { return; }
      if (state.polling) { pollLoop(); return; }
      if (typeof window.EventSource !== "function") { startPolling(); return; }
      close();
      var source = new EventSource(url);
      var delivered = false;
      state.source = source;
      source.onmessage = function (event) {
        delivered = true;
        state.everOpened = true;
        state.failures = 0;
        state.delay = BACKOFF_START_MS;
        mode("stream");
        status("live");
        handlers.change(event.data);
      };
      source.addEventListener("end", function () {
        stop();
        handlers.end();
      });
      source.onerror = function () {
        if (source !== state.source) { return; }
        close(); // reconnect on our own schedule, not the browser's fixed one
        if (delivered) {
          state.timer = setTimeout(open, REOPEN_MS);
          return;
        }
        state.failures += 1;
        if (state.failures >= FAILURES_BEFORE_POLLING) { startPolling(); return; }
        // One ordinary fetch tells a refused stream (signed out: the page stops) from a lost one.
        if (state.everOpened) { handlers.poll(); }
        status("retrying");
        var wait = state.delay * (0.75 + Math.random() * 0.5);
        state.delay = Math.min(state.delay * 2, BACKOFF_MAX_MS);
        state.timer = setTimeout(open, wait);
      };
    }

    document.addEventListener("visibilitychange", function () {
      if (state.stopped) { return; }
      if (document.hidden) {
        close();
        mode("hidden");
        status("paused");
      } else {
        open();
      }
    });

    open();
    return { stop: stop };
  }

  window.PanelLive = { connect: connect };
})();
