// ShuffleUp on every page: the light/dark toggle and the service worker (cached assets,
// the offline page). base.html's inline script applies a saved theme before the first paint.
(() => {
  "use strict";
  const D = document, root = D.documentElement, KEY = "shuffleup-theme";
  const script = D.currentScript;            // deferred classic scripts still have it while they run
  const COLOURS = { dark: "#101418", light: "#fbfbf8" };  // app.css's --bg in each theme

  function show(theme) {
    root.dataset.theme = theme;
    const meta = D.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = COLOURS[theme];
    for (const button of D.querySelectorAll("[data-theme-toggle]")) {
      button.setAttribute("aria-pressed", theme === "light");
      button.hidden = false;
    }
  }
  show(root.dataset.theme === "light" ? "light" : "dark");
  // CSP: no inline style from htmx (as base.html's htmx-config; for pages without it).
  D.addEventListener("DOMContentLoaded", () => {
    if (!window.htmx) return;
    htmx.config.includeIndicatorStyles = false;
    htmx.config.attributesToSettle = ["class", "width", "height"];
  });
  D.addEventListener("click", e => {
    if (!e.target.closest || !e.target.closest("[data-theme-toggle]")) return;
    const theme = root.dataset.theme === "light" ? "dark" : "light";
    show(theme);
    try { localStorage.setItem(KEY, theme); } catch (err) { /* private mode: this page only */ }
  });

  // Registered after load, so its downloads never slow the first paint.
  const sw = script && script.dataset.sw;
  if (sw && "serviceWorker" in navigator && navigator.onLine !== false) {
    addEventListener("load", () => { navigator.serviceWorker.register(sw).catch(() => {}); });
  }
  // The offline page tries the page again by itself as soon as the phone is back online.
  if (D.querySelector("[data-offline]")) addEventListener("online", () => location.reload());
  // A venue's poster after Print (recorded by the server): the browser's print dialog once, not again on reload.
  if (D.querySelector("[data-print-now]")) {
    addEventListener("load", () => { history.replaceState(null, "", location.pathname); print(); });
  }

  // The host's roster refetches when the clock stream brings a newer version, never while the host
  // is typing, has a <details> open or unsent ticks (a refresh would lose them); then it looks again.
  const changed = el => el.type === "checkbox" || el.type === "radio" ? el.checked !== el.defaultChecked
    : el.tagName === "SELECT" ? el.selectedIndex !== Math.max(0, [...el.options].findIndex(o => o.defaultSelected))
    : el.type !== "hidden" && el.value !== el.defaultValue;
  window.shuffleupRosterBusy = () => !!D.querySelector("#players details[open], #players :is(input, select, textarea):focus")
    || [...D.querySelectorAll("#players :is(input, select, textarea)")].some(changed);
  let wanted = 0, rosterWait = 0;
  const rosterCheck = () => {
    const list = D.querySelector("#players[data-version]");
    rosterWait = 0;
    if (!list || !window.htmx || +list.dataset.version >= wanted) return;
    if (D.querySelector("#players.htmx-request, #players .htmx-request") || shuffleupRosterBusy()) {
      rosterWait = setTimeout(rosterCheck, 1500);   // an action on its way brings the roster itself
    } else {
      htmx.trigger(list, "stream");
    }
  };
  // htmx evals hx-trigger filters (CSP: no eval): the roster poll's filter is tested here instead.
  D.addEventListener("htmx:beforeProcessNode", e => {
    const trigger = e.target.id === "players" && e.target.getAttribute("hx-trigger");
    if (trigger && trigger.includes("[")) e.target.setAttribute("hx-trigger", trigger.replace(/\s*\[[^\]]*\]/g, ""));
  });
  D.addEventListener("htmx:beforeRequest", e => {
    if (e.detail.elt && e.detail.elt.id === "players" && shuffleupRosterBusy()) e.preventDefault();
  });
  const streamState = (e, state) => {
    const box = e.target.closest && e.target.closest("[data-roster-stream]"), p = box && box.querySelector(".connection");
    if (p) {
      p.dataset.state = state;
      p.textContent = state === "live" ? "Live" : "Reconnecting…";
    }
    return box;
  };
  D.addEventListener("htmx:sseOpen", e => {
    const source = e.detail.source;
    if (!streamState(e, "live") || source.rosterListener) return;
    source.rosterListener = message => {     // the message id is the clock's version
      wanted = Math.max(wanted, +message.lastEventId || 0);
      rosterWait = rosterWait || setTimeout(rosterCheck, 300);
    };
    source.addEventListener("clock", source.rosterListener);
  });
  D.addEventListener("htmx:sseError", e => { streamState(e, "down"); });

  // A refusal no view answered itself (blueprints/errors.py: a stale form, a night gone; HX-Reswap: none)
  // replaces nothing: no handler below takes it in, and htmx:responseError shows its words instead.
  addEventListener("htmx:beforeSwap", e => {
    const x = e.detail.xhr;
    if (x.status >= 400 && x.getResponseHeader("HX-Reswap") === "none") e.stopPropagation();
  }, true);
  // htmx drops 4xx answers: swap the roster's and the nights form's refusals (400, 409, 422) with their reasons.
  D.addEventListener("htmx:beforeSwap", e => {
    const detail = e.detail;
    if (detail.target && ["players", "nights"].includes(detail.target.id) && [400, 409, 422].includes(detail.xhr.status)) {
      detail.shouldSwap = true;
      detail.isError = false;
    }
  });
  // Why nothing changed (a 503 while the database restarts: health.py's words; any refusal errors.py
  // answers), atop the form tapped.
  const unavailable = (elt, text) => {
    const n = D.getElementById("unavailable") || Object.assign(D.createElement("p"), { id: "unavailable", className: "error" });
    n.setAttribute("role", "alert");
    n.textContent = text;
    const f = elt.closest("form");
    f ? f.prepend(n) : elt.after(n);
    n.scrollIntoView({ block: "center" });   // clear of the sticky bars at the top and bottom
  };
  const said = html => new DOMParser().parseFromString(html, "text/html").body.textContent.trim();
  // [data-swap-refusals] (pre-registration, the floor, the organiser's forms) swaps any answer below
  // 500: a refusal with its reason. htmx's forms:
  D.addEventListener("htmx:beforeSwap", e => {
    const detail = e.detail;
    if (e.target.closest && e.target.closest("[data-swap-refusals]") && detail.xhr.status < 500) {
      detail.shouldSwap = true;
      detail.isError = false;
    }
  });
  // A form whose link works once ([data-once]: the set-up and password links) goes once: a double tap's
  // second submit would find the link used. Its answer is a new page; back to it, it may go again.
  D.addEventListener("submit", e => {
    const form = e.target;
    if (!form.matches || !form.matches("form[data-once]")) return;
    if (form.dataset.sent) e.preventDefault();
    form.dataset.sent = "1";
  });
  addEventListener("pageshow", () => D.querySelectorAll("form[data-once]").forEach(f => delete f.dataset.sent));
  // and a plain form there (pre-registration, on pages without htmx) posts by fetch, asking as htmx
  // does (HX-Request: the view answers the block alone, and the service worker lets it by); the
  // answer replaces the block. Without script the form posts as it is and the view redirects.
  D.addEventListener("submit", async e => {
    const form = e.target, block = form.closest && form.closest("[data-swap-refusals]");
    // (A form that leaves the block for a page of its own, data-leaves, posts as it is.)
    if (!block || e.defaultPrevented || form.matches("[hx-post], [hx-get], [hx-put], [hx-delete], [data-leaves]")) return;
    e.preventDefault();
    if (form.dataset.sending) return;        // a double tap sends once
    form.dataset.sending = "1";
    try {
      const r = await fetch(form.action, { method: "POST", body: new FormData(form, e.submitter), headers: { "HX-Request": "true" } });
      const html = await r.text();
      if (r.status >= 500) throw new Error(said(html));
      const t = D.createElement("template");
      t.innerHTML = html;
      block.replaceWith(t.content);
    } catch (err) {
      unavailable(form, err.message && !(err instanceof TypeError) ? err.message
        : "No answer from the server, so nothing changed. Tap again.");
    } finally {
      delete form.dataset.sending;
    }
  });
  // Any other refusal htmx drops (a 503 while the database restarts, a 403 once logged out, a 404 for
  // a night gone, a 429): its words (errors.py's fragment) atop the form tapped.
  D.addEventListener("htmx:responseError", e => {
    const d = e.detail, x = d.xhr;
    if (x.status >= 400 && d.elt) unavailable(d.elt, said(x.responseText) || `Refused (${x.status}): nothing changed.`);
  });
  D.addEventListener("htmx:afterRequest", e => { if (e.detail.successful) D.getElementById("unavailable")?.remove(); });
  // Then bring the reason into view where the thumb is, and the override's reason field under it.
  D.addEventListener("htmx:afterSettle", () => {
    // An answer to hand on (a one-time password link, [data-answer]) atop a swapped section: into view,
    // its text selected for copying.
    const answer = D.querySelector("[data-answer]:not([data-seen])");
    if (answer) {
      answer.dataset.seen = "1";
      answer.scrollIntoView({ block: "center" });
      const field = answer.querySelector("input");
      if (field) { field.focus({ preventScroll: true }); field.select(); }
    }
    const refusal = D.getElementById("refusal");
    if (!refusal || refusal.dataset.seen) return;
    refusal.dataset.seen = "1";
    refusal.scrollIntoView({ block: "nearest" });   // just into view: the page does not jump
    (refusal.querySelector("input") || refusal).focus({ preventScroll: true });
  });
  // Enter in a field presses that field's own button, never the first button of a form that holds
  // several (Enter in the called clock's Seat field paused the clock). Walking out from the field:
  // an element with data-enter names the button (its value; "" for none), else the first element
  // holding one of the form's buttons (the field's row, fieldset, <details>) gives its first; a
  // field with neither below its form is left to the browser, which presses the form's first button.
  const SUBMITS = "button:not([type=button]):not([type=reset]), input[type=submit], input[type=image]";
  D.addEventListener("keydown", e => {
    const field = e.target, form = field.form;
    if (e.key !== "Enter" || e.isComposing || !form || field.tagName !== "INPUT"
        || /^(checkbox|radio|submit|button|reset|image|file)$/.test(field.type)) return;
    const buttons = [...form.elements].filter(b => b.matches(SUBMITS));
    if (buttons.length < 2) return;
    let button, decided = false;
    for (let box = field; box && box !== D.body; box = box.parentElement) {
      if ("enter" in box.dataset) {
        decided = true;
        button = box.dataset.enter && buttons.find(b => b.value === box.dataset.enter);
        break;
      }
      if (box === form || box.contains(form)) break;
      button = box !== field && buttons.find(b => box.contains(b));
      if (button) { decided = true; break; }
    }
    if (!decided) return;
    e.preventDefault();
    if (button && !button.disabled) button.click();   // a click, as a tap: htmx sends the button's own value
  });
  // "Are you sure?" for Out, Disqualify, Settle: htmx reads hx-confirm only on the form, so buttons say data-confirm.
  D.addEventListener("htmx:confirm", e => {
    const submitter = e.detail.triggeringEvent && e.detail.triggeringEvent.submitter;
    const question = submitter && submitter.dataset.confirm;
    if (!question) return;
    e.preventDefault();
    if (confirm(question)) e.detail.issueRequest(true);
  });
  // R-PAY-3: the night form's money follows the type picked (data-money-defaults, per type), unless
  // the host has typed their own figures.
  D.addEventListener("change", e => {
    const type = e.target;
    const box = type.name === "event_type" && type.form && type.form.querySelector("[data-money-defaults]");
    if (!box) return;
    const defaults = JSON.parse(box.dataset.moneyDefaults);
    const before = defaults[box.dataset.moneyType], after = defaults[type.value];
    if (!after) return;
    for (const name of ["buy_in", "pool_share", "guarantee"]) {
      const input = type.form.elements[name];
      if (input && (!before || input.value === String(before[name]))) input.value = after[name];
    }
    box.dataset.moneyType = type.value;
  });
})();
