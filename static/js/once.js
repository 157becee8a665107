// One tap, one action (blueprints/once.py), on every page with htmx and any other that asks for it
// (base.html): a form that posts gets a random key (the hidden field idempotency_key) at its first
// submit, kept until an answer comes back, so a double tap, or a tap again after no answer or a 503,
// sends the same key and the server applies it once and answers as the first time. An answer below
// 500 ends it: the next tap makes a new key, a new action. (A script of its own so that the player's
// clock page, which posts nothing but a pre-registration, downloads none of it.)
(() => {
  "use strict";
  const D = document, FIELD = "idempotency_key";
  // getRandomValues, not randomUUID: a pub's LAN address over plain HTTP is no secure context.
  const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), b => (b + 256).toString(16).slice(1)).join("");
  // Capture: before htmx's own listener on the form reads its fields, and before the browser builds a
  // plain form's body.
  D.addEventListener("submit", e => {
    const form = e.target;
    if ((form.method === "post" || form.hasAttribute("hx-post")) && !form.elements[FIELD]) {
      form.prepend(Object.assign(D.createElement("input"), { type: "hidden", name: FIELD, value: newKey() }));
    }
  }, true);
  D.addEventListener("htmx:afterRequest", e => {
    const status = e.detail.xhr && e.detail.xhr.status, form = e.detail.elt && e.detail.elt.closest("form");
    if (status && status < 500 && form && form.elements[FIELD]) form.elements[FIELD].remove();
  });
  // No answer at all (the wifi dropped): the tap may or may not have reached the server, and tapping
  // again is safe. atop the form, where app.js puts every other "why" (the clock's controls say their own).
  D.addEventListener("htmx:sendError", e => {
    const form = e.detail.elt && e.detail.elt.closest("form");
    if (!form || form.id === "controls") return;
    const note = D.getElementById("unavailable") || Object.assign(D.createElement("p"), { id: "unavailable", className: "error" });
    note.setAttribute("role", "alert");
    note.textContent = "No answer from the server. Tap again: a tap that already went through is not done twice.";
    form.prepend(note);
  });
})();
