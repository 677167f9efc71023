// memory-panel: the live memory view. Every page works without this file (a Reload link, and a
// real page behind every form); with it (and live.js), the stores update in place while the agent writes them,
// and forms open in a dialog.
"use strict";

(function () {
  var FINGERPRINT_HEADER = "X-Memory-Fingerprint";

  // ---------------------------------------------------------------------------------------------
  // Morphing: bring the live part of the page up to date while touching as little as possible.
  // Unchanged nodes are left alone, so the reader's text selection, scroll position, focus,
  // ticked checkboxes and open <details> survive an update.

  // Attributes the reader controls, never reset by an update.
  var READER_STATE = { open: true };

  function keyOf(node) {
    if (node.nodeType !== 1) { return null; }
    return node.getAttribute("data-key") || node.id || null;
  }

  function sameKind(a, b) {
    return a.nodeType === b.nodeType && (a.nodeType !== 1 || a.tagName === b.tagName);
  }

  function syncAttributes(oldEl, newEl) {
    var i, name, value;
    for (i = oldEl.attributes.length - 1; i >= 0; i--) {
      name = oldEl.attributes[i].name;
      if (!READER_STATE[name] && !newEl.hasAttribute(name)) { oldEl.removeAttribute(name); }
    }
    for (i = 0; i < newEl.attributes.length; i++) {
      name = newEl.attributes[i].name;
      value = newEl.attributes[i].value;
      if (!READER_STATE[name] && oldEl.getAttribute(name) !== value) { oldEl.setAttribute(name, value); }
    }
  }

  function morphNode(oldNode, newNode) {
    if (oldNode.nodeType !== 1) {
      if (oldNode.nodeValue !== newNode.nodeValue) { oldNode.nodeValue = newNode.nodeValue; }
      return;
    }
    if (oldNode.isEqualNode(newNode)) { return; }
    syncAttributes(oldNode, newNode);
    // What the reader typed belongs to the reader.
    if (oldNode.tagName === "TEXTAREA" || oldNode.hasAttribute("data-live-keep")) { return; }
    morphChildren(oldNode, newNode);
  }

  function morphChildren(oldParent, newParent) {
    var keyed = {};
    Array.prototype.forEach.call(oldParent.childNodes, function (child) {
      var key = keyOf(child);
      if (key) { keyed[key] = child; }
    });
    var index = 0;
    Array.prototype.slice.call(newParent.childNodes).forEach(function (newChild) {
      var current = oldParent.childNodes[index] || null;
      var key = keyOf(newChild);
      var match = null;
      if (key) {
        match = keyed[key] || null;
        delete keyed[key];
        if (match && !sameKind(match, newChild)) { match = null; }
      } else if (current && !keyOf(current) && sameKind(current, newChild)) {
        match = current;
      }
      if (match) {
        if (match !== current) { oldParent.insertBefore(match, current); }
        morphNode(match, newChild);
      } else {
        oldParent.insertBefore(document.importNode(newChild, true), current);
      }
      index += 1;
    });
    while (oldParent.childNodes.length > index) { oldParent.removeChild(oldParent.lastChild); }
  }

  function versions(container) {
    var found = {};
    container.querySelectorAll("[data-announce]").forEach(function (el) {
      found[keyOf(el)] = { version: el.getAttribute("data-version"), text: el.getAttribute("data-announce") };
    });
    return found;
  }

  // ---------------------------------------------------------------------------------------------
  // Live updates: live.js tells us the stores' fingerprint (pushed by the server, or polled where
  // streams are blocked); when it differs from ours we fetch the live part once and merge it.

  var live = { root: null, fingerprint: "", inflight: null, again: false, stopped: false, connection: null };

  function setStatus(state) {
    var status = document.getElementById("memory-live-status");
    if (!status) { return; }
    status.setAttribute("data-state", state);
    var text = status.getAttribute("data-text-" + state);
    var target = status.querySelector("[data-live-text]");
    if (text && target && target.textContent !== text) { target.textContent = text; }
  }

  function announce(messages) {
    var region = document.getElementById("memory-announcer");
    if (!region || !messages.length) { return; }
    region.textContent = messages.join(". ");
  }

  function apply(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var before = versions(live.root);
    var after = versions(template.content);
    var changed = [];
    Object.keys(after).forEach(function (key) {
      if (!before[key] || before[key].version !== after[key].version) { changed.push(after[key].text); }
    });
    morphChildren(live.root, template.content);
    enhance(live.root);
    announce(changed);
    live.root.dispatchEvent(new CustomEvent("memory:updated", { bubbles: true }));
  }

  function stop() {
    live.stopped = true;
    if (live.connection) { live.connection.stop(); }
    setStatus("stopped");
  }

  // One fetch of the live part: 204 while nothing changed, else the fragment and its fingerprint.
  // A change announced while a fetch runs is fetched again when it ends.
  function refresh() {
    if (live.stopped) { return Promise.resolve(); }
    if (live.inflight) { live.again = true; return live.inflight; }
    var url = live.root.getAttribute("data-poll-url") + "&fp=" + encodeURIComponent(live.fingerprint);
    live.inflight = fetch(url, { credentials: "same-origin", cache: "no-store", headers: { "Accept": "text/html" } })
      .then(function (response) {
        if (response.status === 204) { setStatus("live"); return null; }
        var fingerprint = response.headers.get(FINGERPRINT_HEADER);
        // Anything else (signed out, forbidden, an error page) ends live updates.
        if (!response.ok || !fingerprint) { stop(); return null; }
        return response.text().then(function (html) {
          apply(html);
          live.fingerprint = fingerprint;
          setStatus("live");
        });
      })
      .catch(function () { setStatus("retrying"); })
      .then(function () {
        live.inflight = null;
        if (live.again) { live.again = false; return refresh(); }
        return null;
      });
    return live.inflight;
  }

  function startLive() {
    var streamUrl = live.root.getAttribute("data-stream-url");
    live.connection = window.PanelLive.connect(streamUrl, {
      change: function (fingerprint) { if (fingerprint !== live.fingerprint) { refresh(); } },
      poll: refresh,
      end: stop,
      status: setStatus,
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Dialog: links and GET forms marked data-dialog load their page's fragment into a <dialog>
  // (the server answers htmx requests with the fragment). Forms inside post with htmx; a finished
  // write answers with HX-Redirect, a refused one with the form and its message.

  var dialogState = { opener: null };

  function dialogParts() {
    var dialog = document.getElementById("memory-dialog");
    var body = document.getElementById("memory-dialog-body");
    if (!dialog || !body || typeof dialog.showModal !== "function") { return null; }
    return { dialog: dialog, body: body };
  }

  function focusFirstControl(container) {
    var target = container.querySelector("[aria-invalid='true'], textarea, input:not([type='hidden']), button");
    if (target) { target.focus(); }
  }

  function openDialog(url, opener) {
    var parts = dialogParts();
    if (!parts) { window.location.href = url; return; }
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true", "Accept": "text/html" } })
      .then(function (response) {
        if (response.status !== 200) { throw new Error("unexpected status " + response.status); }
        return response.text();
      })
      .then(function (html) {
        parts.body.innerHTML = html;
        if (window.htmx) { window.htmx.process(parts.body); }
        dialogState.opener = opener || null;
        if (!parts.dialog.open) { parts.dialog.showModal(); }
        focusFirstControl(parts.body);
      })
      .catch(function () { window.location.href = url; });
  }

  function plainClick(event) {
    return event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey;
  }

  document.addEventListener("click", function (event) {
    var closer = event.target.closest("[data-dialog-close]");
    if (closer) {
      var parts = dialogParts();
      if (parts && parts.dialog.open) { parts.dialog.close(); }
      return;
    }
    var link = event.target.closest("a[data-dialog]");
    if (link && plainClick(event) && dialogParts()) {
      event.preventDefault();
      openDialog(link.href, link);
    }
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-dialog]") || form.method.toLowerCase() !== "get" || !dialogParts()) { return; }
    event.preventDefault();
    var data = new FormData(form);
    var params = new URLSearchParams();
    data.forEach(function (value, name) { params.append(name, value); });
    openDialog(form.action + "?" + params.toString(), event.submitter || form);
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var parts = dialogParts();
    if (parts && event.target === parts.body) { focusFirstControl(parts.body); }
  });

  function onDialogClose() {
    var parts = dialogParts();
    if (!parts) { return; }
    parts.body.textContent = "";
    if (dialogState.opener && document.contains(dialogState.opener)) { dialogState.opener.focus(); }
    dialogState.opener = null;
  }

  // ---------------------------------------------------------------------------------------------
  // Small enhancements, re-applied after each update.

  function enhance(container) {
    container.querySelectorAll("[data-select-all-label]").forEach(function (label) {
      label.hidden = false;
    });
  }

  // "Select all" ticks or clears every box as a person would: each box that changes sends its own
  // change event, so whatever follows the selection (panel.js enables the buttons that act on it)
  // sees the new state. Ticking every box by hand ticks "Select all" too.
  var selectingAll = false;
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches) { return; }
    var form = box.form || document;
    if (box.matches("input[data-select-all]")) {
      var name = box.getAttribute("data-select-all");
      selectingAll = true;
      form.querySelectorAll("input[type='checkbox'][name='" + name + "']").forEach(function (item) {
        if (item.checked !== box.checked) {
          item.checked = box.checked;
          item.dispatchEvent(new Event("change", { bubbles: true }));
        }
      });
      selectingAll = false;
      return;
    }
    if (selectingAll || !box.name) { return; }
    form.querySelectorAll("input[data-select-all='" + box.name + "']").forEach(function (all) {
      var items = form.querySelectorAll("input[type='checkbox'][name='" + box.name + "']");
      var ticked = form.querySelectorAll("input[type='checkbox'][name='" + box.name + "']:checked");
      all.checked = items.length > 0 && ticked.length === items.length;
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    enhance(document);
    var parts = dialogParts();
    if (parts) { parts.dialog.addEventListener("close", onDialogClose); }
    live.root = document.querySelector("[data-live-root]");
    if (!live.root) { return; }
    live.fingerprint = live.root.getAttribute("data-fingerprint") || "";
    setStatus(document.hidden ? "paused" : "live");
    if (window.PanelLive) { startLive(); }
  });
})();
