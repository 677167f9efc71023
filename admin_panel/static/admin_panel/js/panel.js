// memory-panel: loaded by every page. Without it every page still works: tables stack on narrow
// screens by CSS alone and the header's switchers keep their submit buttons.
"use strict";

(() => {
  const root = document.documentElement;
  root.classList.add("js");

  // On a phone the navigation and the switchers fold behind the Menu button (the CSS folds them
  // only at phone width); Escape closes the open menu and gives the button its focus back.
  const header = document.querySelector(".site-header");
  const toggle = header === null ? null : header.querySelector(".site-menu-toggle");
  if (toggle !== null) {
    const open = (opened) => {
      header.classList.toggle("site-header--folded", !opened);
      toggle.setAttribute("aria-expanded", String(opened));
    };
    open(false);
    toggle.hidden = false;
    toggle.addEventListener("click", () => open(toggle.getAttribute("aria-expanded") !== "true"));
    header.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && toggle.getAttribute("aria-expanded") === "true") {
        open(false);
        toggle.focus();
      }
    });
  }

  // Header switchers apply on change; their submit buttons are only for pages without scripts.
  document.querySelectorAll("form[data-submit-on-change]").forEach((form) => {
    form.addEventListener("change", () => form.requestSubmit ? form.requestSubmit() : form.submit());
  });

  // A wide table becomes stacked rows: each cell is labelled with its column's heading, and a
  // table that does not fit its box switches to the stacked layout (checked again on resize and
  // whenever content is swapped in: htmx, live updates).
  const label = (table) => {
    const heads = table.tHead ? [...table.tHead.rows[0].cells].map((cell) => cell.textContent.trim()) : [];
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        let column = 0;
        for (const cell of row.cells) {
          if (!cell.hasAttribute("data-label") && heads[column]) {
            cell.setAttribute("data-label", heads[column]);
          }
          column += cell.colSpan || 1;
        }
      }
    }
  };
  const fit = () => {
    document.querySelectorAll("main table").forEach((table) => {
      label(table);
      table.classList.remove("table--stacked");
      const box = table.parentElement;
      if (table.getBoundingClientRect().width > box.clientWidth + 1) {
        table.classList.add("table--stacked");
      }
    });
  };
  let pending = false;
  const later = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => { pending = false; fit(); });
    }
  };
  // A button that acts on selected items stays disabled until something is selected (without
  // scripts the page it leads to says "Select at least one entry.").
  const selection = () => {
    document.querySelectorAll("[data-needs-selection]").forEach((button) => {
      const form = button.form;
      if (form !== null) {
        button.disabled = form.querySelector(`input[name="${button.dataset.needsSelection}"]:checked`) === null;
      }
    });
  };
  const refresh = () => { fit(); selection(); };
  document.addEventListener("change", selection);
  fit();
  selection();
  window.addEventListener("resize", later);
  window.addEventListener("load", later);
  // Swapped-in content is fitted before the page is painted again (a microtask after the swap).
  const main = document.querySelector("main");
  if (main !== null) {
    new MutationObserver(refresh).observe(main, { childList: true, subtree: true });
  }
})();

// The pending-writes badge follows the queue live: its stream sends the number of writes waiting
// whenever it changes (EventSource reconnects by itself after a dropped or one-shot answer). A
// person who asked for it (the button on the pending page) also gets a browser notification when
// the number grows.
(() => {
  const badge = document.getElementById("pending-badge");
  if (badge === null || !window.EventSource) {
    return;
  }
  const count = badge.querySelector(".pending-badge__count");
  const OPT_IN = "memory-panel:notify-pending";
  let shown = Number(badge.dataset.pendingCount || 0);
  const source = new EventSource(badge.dataset.events);
  source.addEventListener("message", (event) => {
    const now = Number(event.data);
    if (!Number.isInteger(now) || now === shown) {
      return;
    }
    const grew = now > shown;
    shown = now;
    badge.dataset.pendingCount = String(now);
    count.textContent = String(now);
    badge.hidden = now === 0;
    if (grew && window.Notification && Notification.permission === "granted" && localStorage.getItem(OPT_IN) === "1") {
      new Notification(badge.dataset.notifyTitle || "memory-panel", { body: `${badge.dataset.notifyBody || ""} ${now}`.trim(), tag: "pending-writes" });
    }
  });
  source.addEventListener("end", () => source.close());
  window.addEventListener("pagehide", () => source.close());

  // The opt-in button: asks once, only when pressed, never on load.
  document.querySelectorAll("[data-notify-pending]").forEach((button) => {
    if (!window.Notification || Notification.permission === "denied") {
      return;
    }
    const status = document.getElementById(button.dataset.notifyStatus);
    const done = () => {
      button.hidden = true;
      if (status !== null) { status.hidden = false; }
    };
    if (Notification.permission === "granted" && localStorage.getItem(OPT_IN) === "1") {
      done();
      return;
    }
    button.hidden = false;
    button.addEventListener("click", () => {
      Notification.requestPermission().then((answer) => {
        if (answer === "granted") {
          localStorage.setItem(OPT_IN, "1");
          done();
        } else {
          button.hidden = true;
        }
      });
    });
  });
})();
