// R-CLOCK-3, R-PTS-5, R-CHIP-1, R-MEM-1, R-PEN-1: the host's night goes on when the signal drops. On
// the host's pages only (the night's clock and the players; never a player's phone): an action taken
// with no connection (a clock tap, an Out, a bonus, a check-in, a penalty) is kept on the phone
// (IndexedDB, so a reload or a closed tab keeps it too) in one queue per night, said on screen in the
// "waiting to send" box (#kept, host/_kept.html), and sent in order when the connection is back, by
// HTTP, each with its own idempotency key (sent again after a lost answer, it is applied once), the
// version it saw and the moment it was tapped in server time (tapped_at_ms: the server applies it
// then). One refused when it arrives (someone else acted meanwhile, or it was kept too long) is listed
// with its reason, to redo now or drop; so are the ones kept after it, as each assumed the one before
// had gone through. A form with data-keep is kept here; the clock's controls (controls.js) hand their
// taps in themselves, with the clock's own fields.
(() => {
  "use strict";
  const D = document, DB = "shuffleup-host", STORE = "taps", RESEND_MS = 15000;
  const find = selector => D.querySelector(selector);
  // What may wait for the signal: the clock's taps, and on the roster, its sheet and the door: Out (one
  // player, or several in one hand), a bonus, Confirm, a known member's check-in, a warning or penalty,
  // and a penalty ended early or extended.
  const KEEPS = /^(bust|bust_hand|bonus|confirm|walk_in|give|end|extend)(:|$)/;
  const box = () => find("#kept");
  const night = () => box()?.dataset.night;
  let kept = [], sending = false, opened = null;
  // Server time as this phone reckons it: the clock's own offset where it runs (clock.js), else the
  // page's server time when it was made (host/_kept.html).
  const pageOffset = (() => { const ms = +box()?.dataset.serverMs; return ms ? ms - Date.now() : 0; })();
  const serverNow = () => Math.round(Date.now() + (window.shuffleupClock?.offset ?? pageOffset));
  const waiting = kind => kept.filter(tap => !tap.reason && (!kind || tap.kind === kind));
  const pairs = tap => Array.isArray(tap.fields) ? tap.fields : Object.entries(tap.fields);   // older taps: an object
  const field = (tap, name) => pairs(tap).find(([key]) => key === name)?.[1];
  function setField(tap, name, value) {
    const rest = pairs(tap).filter(([key]) => key !== name);
    tap.fields = value == null ? rest : rest.concat([[name, String(value)]]);
  }
  const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), b => (b + 256).toString(16).slice(1)).join("");

  function store() {
    opened ||= new Promise((resolve, reject) => {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "key" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }).catch(() => null);   // no IndexedDB (a private window): kept in this page only
    return opened;
  }
  // The phone's store is the queue's truth, shared by the night's pages in every tab: each write waits
  // for the one before (a read waits for them all), and the other tabs hear of it and read it again.
  let writes = Promise.resolve();
  const tabs = window.BroadcastChannel ? new BroadcastChannel(DB) : null;
  function save(tap, remove = false) {
    writes = writes.then(async () => {
      const db = await store();
      if (!db) return;
      await new Promise(resolve => {
        const done = db.transaction(STORE, "readwrite");
        if (remove) done.objectStore(STORE).delete(tap.key); else done.objectStore(STORE).put(tap);
        done.oncomplete = done.onerror = done.onabort = resolve;
      });
      tabs?.postMessage(night());
    });
    return writes;
  }
  async function read() {
    await writes;
    const db = await store();
    if (!db || !night()) return;   // no store: this page's own queue is the queue
    const all = await new Promise(resolve => {
      const request = db.transaction(STORE).objectStore(STORE).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve([]);
    });
    const ours = tap => (tap.night ?? /\/events\/(\d+)\//.exec(tap.url)?.[1]) === night();
    kept = all.filter(ours).map(tap => ({ kind: "clock", swap: "#controls", ...tap })).sort((a, b) => a.seq - b.seq);
  }
  if (tabs) tabs.onmessage = message => { if (message.data === night() && !sending) read().then(() => changed()); };

  // One action kept: {kind, url, fields (pairs, with its key), label, swap (what its answer redraws)}.
  function keep(tap) {
    Object.assign(tap, { key: field(tap, "idempotency_key"), night: night(), seq: Date.now() + Math.random(),
                         at: new Date().toLocaleTimeString() });
    if (!field(tap, "tapped_at_ms")) setField(tap, "tapped_at_ms", serverNow());
    kept.push(tap);
    save(tap);
    changed(tap);
    return tap;
  }

  // A roster, sheet or door form (data-keep): with no connection, or actions still waiting to go before
  // it, its action is kept, not posted.
  function keepForm(event, form) {
    const detail = event.detail, button = detail.triggeringEvent?.submitter;
    const op = detail.formData.get("op") || "";
    event.preventDefault();
    form.querySelector(":scope > .unsent")?.remove();
    if (!KEEPS.test(op) || !detail.formData.get("idempotency_key")) {
      const note = Object.assign(D.createElement("p"), { className: "error unsent", textContent: navigator.onLine
        ? "Actions kept while the signal was down are still being sent: tap this again in a moment."
        : "No connection: this can't wait to be sent. Out, bonuses, check-ins and penalties can; try this when the signal is back." });
      note.setAttribute("role", "alert");
      return form.prepend(note);
    }
    const who = button?.closest("[data-keep-who]")?.dataset.keepWho || form.dataset.keepWho;
    const words = (button?.getAttribute("aria-label") || button?.textContent || op).trim();
    // The same action tapped again while it waits (no answer came, wet hands): it is the one waiting,
    // not a second warning or check-in.
    const twin = repeatOf(detail.path, detail.formData);
    if (twin) return tell(form, `${twin.label}: already waiting to send`);
    const tap = keep({ kind: form.dataset.keep, url: detail.path, fields: [...detail.formData.entries()],
                       label: who && !words.includes(who) ? `${who}: ${words}` : words, swap: form.dataset.keepSwap });
    form.elements.idempotency_key?.remove();   // the next tap is a new action, with a key of its own
    tell(form, `${form.closest("#floor") ? words : tap.label}: waiting to send`);
  }
  // Where the host is looking: in the sheet (it is modal), else the players page's polite region.
  function tell(form, text) {
    const sheet = form.closest("#floor")?.querySelector(".sheet-said");
    if (!sheet) return say(text);
    const note = Object.assign(D.createElement("p"), { className: "flash", textContent: text });
    note.setAttribute("role", "status");
    sheet.replaceChildren(note);
  }
  // A waiting action the same as this one: the same address and fields but for what each tap has of
  // its own (its key, its moment, the page's CSRF token; blueprints/once.py UNNAMING_FIELDS).
  const OWN = new Set(["idempotency_key", "tapped_at_ms", "seen_clock", "csrf_token"]);
  const named = entries => JSON.stringify([...entries].filter(([name]) => !OWN.has(name)).sort());
  function repeatOf(url, formData) {
    const these = named(formData.entries());
    return waiting().find(tap => tap.url === url && named(pairs(tap)) === these) || null;
  }
  D.addEventListener("htmx:configRequest", event => {
    const form = event.detail.elt.closest?.("form[data-keep]");
    if (form && event.detail.verb === "post" && (!navigator.onLine || waiting().length)) keepForm(event, form);
  });
  // Posted but no answer though the phone thinks it is online (wifi up, the pub's line down): kept too,
  // with its key, and sent again later: applied once whether or not the first one landed.
  for (const name of ["htmx:sendError", "htmx:timeout"]) {
    D.addEventListener(name, event => {
      const form = event.detail.elt?.closest?.("form[data-keep]"), config = event.detail.requestConfig;
      const op = config?.formData?.get("op") || "";
      if (!form || !KEEPS.test(op) || !config.formData.get("idempotency_key")) return;
      const button = config.triggeringEvent?.submitter;
      form.elements.idempotency_key?.remove();
      setTimeout(() => form.querySelector("#unavailable")?.remove());   // once.js's "tap again": it waits instead
      if (repeatOf(config.path, config.formData)) return;   // the same action, waiting already
      keep({ kind: form.dataset.keep, url: config.path, fields: [...config.formData.entries()],
             label: (button?.getAttribute("aria-label") || button?.textContent || op).trim(), swap: form.dataset.keepSwap });
      tell(form, "No answer came: kept, and sent again when the signal allows (it is done once)");
    });
  }

  // The version an answer says the night is at: the clock's message, or the roster's or sheet's.
  function versionOf(page) {
    try { return String(JSON.parse(page.getElementById("clock-state").dataset.state).version); } catch { /* not the clock's */ }
    return page.querySelector("[data-version]")?.dataset.version ?? null;
  }
  const reasonOf = page => (page.querySelector("#refusal .error, .error")?.textContent
    || page.querySelector("main h1, h1")?.textContent || "Not applied.").trim();

  // One tab sends at a time (a lock where the browser has them): the others hear what it sent.
  function send() {
    if (sending || !navigator.onLine) return;
    sending = true;
    return navigator.locks ? navigator.locks.request(`${DB}:${night()}`, sendAll) : sendAll();
  }
  async function sendAll() {
    let answered = null, stopped = false;   // the version the last action sent made: the one the next clock tap was made on
    try {
      await read();   // as the store has it now: another tab may have sent some, or kept more
      for (const tap of waiting()) {
        // a clock tap after another: on the version the one before made (the first says the clock it
        // was tapped on, seen_clock, and needs none); kept before it goes, so a resend is the same
        if (tap.kind === "clock" && answered != null && !field(tap, "seen_clock") && field(tap, "version") !== answered) {
          setField(tap, "version", answered);
          await save(tap);
        }
        let response;
        try {
          response = await fetch(tap.url, { method: "POST", credentials: "same-origin",
                                            body: new URLSearchParams(pairs(tap)), headers: { "HX-Request": "true" } });
        } catch { stopped = true; break; }   // still no answer: tried again when the signal is back
        // the server busy, or the same key still at work: the same key again later, applied once
        if (response.status >= 500 || response.status === 429 || response.headers.has("Retry-After")) { stopped = true; break; }
        const answer = await response.text();
        const page = new DOMParser().parseFromString(answer, "text/html");
        if (response.ok) {
          answered = versionOf(page);
          kept = kept.filter(other => other.key !== tap.key);
          save(tap, true);
          shown(tap, answer, page);
          continue;
        }
        for (const later of waiting()) {
          later.reason = later.key === tap.key ? reasonOf(page) : "Not sent: it followed an action that was not applied.";
          save(later);
        }
        if (tap.kind === "clock") shown(tap, answer, page);   // the controls as they now are, with why
        else find("#players")?.dispatchEvent(new Event("stream"));   // the roster as it now is
        stopped = true;
        break;
      }
    } finally {
      sending = false;
      changed();
    }
    if (!stopped && waiting().length) setTimeout(send);   // kept while these went: they go now
  }
  setInterval(send, RESEND_MS);   // an answer that never came (wifi up, no internet): the same keys again
  addEventListener("online", send);
  addEventListener("offline", () => changed());

  // An answer on the screen it belongs to: the clock's controls, the roster, the open sheet (its own
  // player's); the roster is fetched again after a sheet's.
  function shown(tap, answer, page) {
    const target = tap.swap && find(tap.swap);
    const same = tap.swap !== "#floor" || target?.querySelector("form[hx-post]")?.getAttribute("hx-post") === tap.url;
    if (target && same && page.querySelector(tap.swap)) htmx.swap(target, answer, { swapStyle: "outerHTML" });
    if (tap.swap === "#floor") find("#players")?.dispatchEvent(new Event("stream"));
    const said = page.querySelector(".flash")?.textContent;
    if (said && tap.kind !== "clock") say(said);
  }
  // A polite word for a screen reader (the players page's #said; the box's own count on the clock's).
  function say(text) {
    const said = find("#said");
    if (said) said.textContent = text.trim();
  }

  // Say on screen what is waiting, and what came back refused, with Redo and Drop; and tell the page
  // (shuffleup:kept), whose roster marks the rows still waiting.
  function changed(added = null) {
    const here = box();
    D.dispatchEvent(new CustomEvent("shuffleup:kept", { detail: { waiting: waiting(), kept: added } }));
    if (!here) return;
    const refused = kept.filter(tap => tap.reason), pending = waiting();
    here.hidden = !kept.length;
    here.querySelector("[data-kept-count]").textContent = pending.length
      ? `${pending.length} waiting to send${navigator.onLine ? "" : ": no connection, they go when it's back"}` : "";
    const list = here.querySelector("[data-kept-waiting]");
    list.replaceChildren(...pending.map(tap => Object.assign(D.createElement("li"), { textContent: `${tap.label} · tapped ${tap.at}` })));
    list.hidden = !pending.length;
    const refusedBox = here.querySelector("[data-kept-refused]");
    refusedBox.hidden = !refused.length;
    refusedBox.querySelector("ul").replaceChildren(...refused.map(tap => {
      const item = D.createElement("li");
      const what = Object.assign(D.createElement("p"), { textContent: `${tap.label} · tapped ${tap.at}: ` });
      what.append(Object.assign(D.createElement("span"), { className: "error", textContent: tap.reason }));
      const redo = Object.assign(D.createElement("button"), { type: "button", textContent: "Redo" });
      const drop = Object.assign(D.createElement("button"), { type: "button", textContent: "Drop" });
      redo.setAttribute("aria-label", `Redo ${tap.label} now`);
      drop.setAttribute("aria-label", `Drop ${tap.label}`);
      redo.onclick = () => redoKept(tap);
      drop.onclick = () => dropKept(tap);
      redo.hidden = tap.kind === "clock" && !redoers.clock;   // a clock tap is redone on the clock's page
      item.append(what, redo, drop);
      return item;
    }));
  }
  function dropKept(tap) {
    kept = kept.filter(other => other.key !== tap.key);
    save(tap, true);
    changed();
  }
  // Redo: the same action again now, a new one with a key of its own (the clock's: its control tapped
  // again on the clock as it now is, controls.js).
  const redoers = {};
  function redoKept(tap) {
    if (redoers[tap.kind]) return redoers[tap.kind](tap);
    dropKept(tap);
    const again = { ...tap, reason: undefined };
    setField(again, "idempotency_key", newKey());
    setField(again, "tapped_at_ms", null);   // done now
    keep(again);
    send();
  }

  window.shuffleupKept = { keep, waiting, field, serverNow, dropKept, redoer: (kind, redo) => { redoers[kind] = redo; } };
  // what was kept before this page was (re)opened: shown, and sent if the signal is here
  read().then(() => { changed(); send(); });
})();
