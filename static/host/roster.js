// The host's roster (players.html only, never a player's page): finding a player in two keystrokes,
// the one-tap bonus buttons' words, what the server leaves out of each row to keep 200 players small
// (the accessible names, "… is out?", the chips field of a ticked player, the pickers' names), a
// player's sheet over the roster, and each answer kept in view with the focus where the host was.
(() => {
  "use strict";
  const D = document;
  let kind = "";                 // the bonus kind the host picked; the roster is redrawn often

  const fold = text => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/['’]/g, "");
  const wordsOf = text => fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const nameOf = row => {
    const label = row.querySelector(":scope > a") || row.querySelector(":scope > span");
    return label ? label.textContent.trim() : "";
  };

  // "ja" finds Jack, "jd" Jack Doyle (initials), "ob" O'Brien, "t3" table 3's players.
  const matches = (query, row) => named(query, nameOf(row));
  function named(query, name) {
    const tokens = wordsOf(query);
    if (!tokens.length) return true;
    const words = wordsOf(name);
    if (tokens.length > 1) return tokens.every(t => words.some(w => w.startsWith(t)));
    const t = tokens[0];
    return words.some(w => w.startsWith(t)) || words.join("").startsWith(t)
      || (t.length > 1 && words.map(w => w[0]).join("").includes(t));
  }

  function filter() {
    const box = D.querySelector("[data-roster-filter]"), roster = D.getElementById("players");
    if (!box || !roster) return;
    const query = box.value.trim(), table = /^t(?:able)?\s*(\d+)$/i.exec(query);
    let found = 0;
    for (const row of roster.querySelectorAll(".roster > li")) {
      if (!nameOf(row)) continue;
      const card = row.closest("[data-table]");
      const show = table ? !!card && card.dataset.table === table[1] : matches(query, row);
      row.hidden = !show;
      if (show) found += 1;
    }
    for (const card of roster.querySelectorAll(".seat-group")) {
      card.hidden = !!query && !card.querySelector(".roster > li:not([hidden])");
    }
    const said = D.querySelector("[data-roster-found]");
    if (said) said.textContent = query ? `${found} found` : "";
  }

  // The rows' accessible names and questions, from the name each row already shows.
  function label() {
    const roster = D.getElementById("players");
    if (!roster) return;
    const kinds = [...roster.querySelectorAll("input[name=kind]")];
    const picked = kinds.find(k => k.value === kind) || kinds.find(k => k.checked) || kinds[0];
    // The pick counts as the radios' default, so app.js never takes it for unsent input (busy).
    for (const k of kinds) k.defaultChecked = k === picked;
    if (picked) { picked.checked = true; kind = picked.value; }
    const words = picked ? picked.dataset.label : "";
    for (const row of roster.querySelectorAll(".seats > li")) {
      const name = nameOf(row), tick = row.querySelector("input[name=out]");
      const out = row.querySelector("button[value^='bust:']"), bonus = row.querySelector("button[value^='bonus:']");
      if (tick) tick.setAttribute("aria-label", `${name} out in the same hand`);
      if (out) {
        out.setAttribute("aria-label", `${name} is out`);
        out.dataset.confirm = `${name} is out?`;
      }
      if (bonus && picked) {
        const had = (row.dataset.has || "").split(" ").includes(kind);
        bonus.textContent = `+${picked.dataset.short}${had ? " ✓" : ""}`;
        bonus.disabled = had;
        bonus.setAttribute("aria-label", had ? `${name} has had the ${words} bonus` : `${words} bonus for ${name}`);
      }
      if (tick) chipsField(tick);
    }
    // The pickers list the rows' players: the server sends each name once.
    for (const select of roster.querySelectorAll("select[data-players]")) {
      const keep = select.value;
      for (const row of roster.querySelectorAll(".seats > li")) {
        const tick = row.querySelector("input[name=out]");
        if (!tick || select.querySelector(`option[value="${tick.value}"]`)) continue;
        select.add(new Option(nameOf(row), tick.value, false, tick.value === keep));
      }
    }
  }

  // R-PTS-6: a ticked player's chips at the start of the hand; untick an empty one and it goes.
  function chipsField(tick) {
    const row = tick.closest("li"), field = row.querySelector(`input[name="stack-${tick.value}"]`);
    if (tick.checked && !field) {
      const input = D.createElement("input");
      Object.assign(input, { name: `stack-${tick.value}`, inputMode: "numeric", placeholder: "chips at the start of the hand" });
      input.setAttribute("aria-label", `${nameOf(row)}'s chips at the start of the hand`);
      input.dataset.enter = "bust_hand";   // Enter here sends the hand, never the form's first button
      (row.querySelector(":scope > a") || tick.closest("label")).after(input);
    } else if (field) {
      field.dataset.enter = "bust_hand";
      field.setAttribute("aria-label", `${nameOf(row)}'s chips at the start of the hand`);
      if (!tick.checked && !field.value) field.remove();
    }
  }

  D.addEventListener("change", e => {
    const el = e.target;
    if (!el.closest || !el.closest("#players")) return;
    if (el.name === "kind") { kind = el.value; label(); }
    if (el.name === "out") chipsField(el);
  });
  // The sticky bars (the filter above, the answer bar under it, the "Out in one hand" bar below): their
  // heights as CSS variables, so the answer bar sticks under the filter and the page's scroll padding
  // keeps a focused control clear of them.
  const stuck = () => {
    const filter = D.querySelector(".roster-filter"), answer = D.querySelector("#players .answer-bar");
    const hand = D.querySelector("#players .hand-bar"), kept = D.querySelector("#players ~ .kept:not([hidden])");
    const top = filter ? filter.offsetHeight : 0;
    const handHeight = hand && getComputedStyle(hand).position === "sticky" ? hand.offsetHeight : 0;
    const bottom = handHeight + (kept ? kept.offsetHeight : 0);   // the waiting box sits on the hand bar
    D.documentElement.style.setProperty("--filter-height", `${top}px`);
    D.documentElement.style.setProperty("--hand-height", `${handHeight}px`);
    D.documentElement.style.setProperty("--stuck-top", `${top + (answer ? answer.offsetHeight : 0)}px`);
    D.documentElement.style.setProperty("--stuck-bottom", `${bottom}px`);
    return { top: top + (answer ? answer.offsetHeight : 0), bottom };
  };
  // Just into view, clear of the sticky bars (an element of the answer bar: of the screen's edges),
  // by scrolling the page itself: scrollIntoView near the page's end pans a phone's visual viewport
  // instead, and the sticky bars slide off the screen.
  function reveal(el) {
    const bars = stuck(), box = el.getBoundingClientRect(), stuckHere = !!el.closest(".answer-bar");
    const top = stuckHere ? 0 : bars.top, bottom = innerHeight - (stuckHere ? 0 : bars.bottom);
    if (box.top < top) scrollBy(0, box.top - top - 8);
    else if (box.bottom > bottom) scrollBy(0, Math.min(box.bottom - bottom + 8, box.top - top - 8));
  }
  // A control that takes the focus under a sticky bar scrolls clear of it (the scroll padding does it
  // for the browser's own scrolling; a focus moved by a tap or a script may not).
  function clear(el) {
    if (el && el.getBoundingClientRect && !el.closest(".roster-filter, .answer-bar, .hand-bar, dialog")) reveal(el);
  }
  D.addEventListener("focusin", e => { if (e.target.closest && e.target.closest("#players")) clear(e.target); });
  D.addEventListener("change", e => { if (e.target.name === "out") requestAnimationFrame(() => clear(e.target)); });

  // The answer redraws the whole roster: keep the button tapped where the thumb is, not wherever the
  // new page's heights put it, and the focus on it; when it is gone (the player is out) the focus
  // goes to the answer, which the answer bar holds in view. A refusal beside the button is brought
  // just into view and focused (its override's reason field first); the polite region (#said) says
  // what a success did, a refusal is its own alert.
  let anchor = null, focused = null;
  const say = text => { const said = D.getElementById("said"); if (said) said.textContent = text.trim(); };
  // A roster fetched again by the stream keeps the focus where it was (the same control, new element).
  D.addEventListener("htmx:beforeSwap", e => {
    const el = D.activeElement, roster = D.getElementById("players");
    focused = roster && e.detail.target === roster && roster.contains(el) && el !== roster
      ? (el.name && el.value ? `[name="${CSS.escape(el.name)}"][value="${CSS.escape(el.value)}"]`
        : el.getAttribute("href") ? `a[href="${CSS.escape(el.getAttribute("href"))}"]`
        : el.name ? `[name="${CSS.escape(el.name)}"]` : null) : null;
  });
  D.addEventListener("submit", e => {
    const button = e.submitter, form = e.target;
    // the override's button re-posts the op it overrides: that op's button is the one tapped
    const value = form.id === "override" ? form.elements.op.value : button && button.value;
    anchor = button && button.closest("#players, #search-results") && value
      ? { value, top: button.getBoundingClientRect().top, door: !!button.closest("#search-results") } : null;
  }, true);
  // The door (R-MEM-1): once a walk-in is in, the search's results go (their buttons would offer the
  // same member again), the answer stands where they were, and the field waits for the next name.
  function answerAtTheDoor(answer) {
    const results = D.getElementById("search-results"), field = D.querySelector("[data-door-search]");
    if (!results || !field) return false;
    const note = D.createElement("p");
    note.className = "flash";
    note.textContent = answer.textContent.trim();
    results.replaceChildren(note);
    field.value = "";
    field.focus({ preventScroll: true });
    return true;
  }
  function keepPlace() {
    const was = anchor;
    anchor = null;
    stuck();
    if (!was) {
      const again = focused && D.querySelector(`#players ${focused}`);
      focused = null;
      if (again) again.focus({ preventScroll: true });
      return;
    }
    const button = [...D.querySelectorAll("#players button[name=op]")].find(b => b.value === was.value);
    if (button) scrollBy(0, button.getBoundingClientRect().top - was.top);
    const refusal = D.querySelector("#players #refusal");
    if (refusal) {
      refusal.dataset.seen = "1";   // brought into view here, not by app.js's scrollIntoView
      reveal(refusal);
      (refusal.querySelector("input") || refusal).focus({ preventScroll: true });
      return;
    }
    const answer = D.querySelector("#players .answer-bar .flash");
    if (!answer) return;
    say(answer.textContent);
    if (was.door && answerAtTheDoor(answer)) return;
    const target = button && !button.disabled && button.checkVisibility() ? button : answer;
    target.focus({ preventScroll: true });
  }

  // A player's sheet (host/_floor.html) over the roster: their name opens it in #sheet; without
  // script the link is its own page. An action there answers in the sheet, and the roster behind
  // it is fetched again (the row changes in place); closing it puts the focus back on the name.
  let opener = "";
  D.addEventListener("click", e => {
    const link = e.target.closest && e.target.closest("#players .roster li a[href]");
    const sheet = D.getElementById("sheet");
    const plain = e.button === 0 && !(e.ctrlKey || e.metaKey || e.shiftKey || e.altKey);   // not "open in a new tab"
    if (link && plain && !navigator.onLine) {   // the sheet is the server's: said where the thumb is
      e.preventDefault();
      const row = link.closest("li");
      if (!row.querySelector(".kept-note[role=alert]")) {
        const said = Object.assign(D.createElement("span"), { className: "kept-note error", textContent: "No connection: the sheet opens when the signal is back." });
        said.setAttribute("role", "alert");
        row.append(said);
      }
    } else if (link && plain && sheet && window.htmx && sheet.showModal) {
      e.preventDefault();
      opener = link.getAttribute("href");
      htmx.ajax("GET", opener, { target: "#sheet", swap: "innerHTML" }).then(() => {
        if (!sheet.open) sheet.showModal();
        const heading = sheet.querySelector("h2");
        if (heading) { heading.tabIndex = -1; heading.focus(); }
      });
    } else if (e.target.closest && e.target.closest("#sheet [data-sheet-close]")) {
      e.preventDefault();
      sheet.close();
    }
  });
  D.addEventListener("close", e => {
    if (e.target.id !== "sheet") return;
    e.target.replaceChildren();   // closed, the sheet holds nothing (no stale form, nothing to lay out)
    const name = [...D.querySelectorAll("#players .roster li a[href]")].find(a => a.getAttribute("href") === opener);
    if (name) name.focus();
  }, true);
  // The sheet's answer: the focus on the button tapped (Out gone: on the answer), or the refusal's
  // override reason; the roster behind it fetched again.
  function sheetAnswered(e) {
    const sheet = D.getElementById("sheet");
    const answer = sheet.querySelector(".sheet-said > *");
    const button = e.detail.requestConfig.triggeringEvent && e.detail.requestConfig.triggeringEvent.submitter;
    const again = button && button.value
      && [...sheet.querySelectorAll("button[name=op]")].find(b => b.value === button.value && !b.disabled);
    const reason = sheet.querySelector("#refusal input:not([type=hidden])");
    (reason || (answer && answer.matches("#refusal") ? answer : again || answer) || sheet).focus();
    if (answer && !answer.matches("#refusal")) say(answer.textContent);
    if (e.detail.xhr.status < 300) htmx.trigger("#players", "stream");
  }

  // R-PTS-5, R-CHIP-1, R-MEM-1, R-PEN-1: an action kept on the phone while it has no signal
  // (host/kept.js) shows at once on its row: "Out · waiting to send", its buttons off; a bonus "+B ✓
  // waiting"; an arrival or a walk-in "Checked in · waiting to send". Marked again on every roster drawn.
  let waiting = [];
  const PENALTY = { warning: "Warning", missed_hands: "Missed hands", missed_rounds: "Missed rounds", disqualification: "Disqualified" };
  const seatRow = id => { const tick = D.querySelector(`#players .seats input[name=out][value="${CSS.escape(id)}"]`); return tick && tick.closest("li"); };
  const buttonRow = value => {
    const button = D.querySelector(`:is(#players, #search-results) button[name=op][value^="${CSS.escape(value)}"]`);
    return button && button.closest("li");
  };
  function note(row, text, off) {
    if (!row) return;
    row.append(Object.assign(D.createElement("span"), { className: "kept-note", textContent: text }));
    if (off) {
      for (const control of row.querySelectorAll("button, input")) {
        if (!control.disabled) { control.disabled = true; control.dataset.keptOff = ""; }
      }
    }
  }
  function markKept() {
    for (const old of D.querySelectorAll(".kept-note")) old.remove();
    for (const control of D.querySelectorAll("[data-kept-off]")) { control.disabled = false; delete control.dataset.keptOff; }
    label();
    const shelf = window.shuffleupKept;
    for (const tap of shelf ? waiting : []) {
      const [op, arg = ""] = (shelf.field(tap, "op") || "").split(":");
      const id = ["give", "end", "extend"].includes(op) ? (/\/floor\/(\d+)$/.exec(tap.url) || [])[1] : arg;
      if (op === "bust") note(seatRow(id), "Out · waiting to send", true);
      else if (op === "bust_hand") tap.fields.filter(([name]) => name === "out").forEach(([, out]) => note(seatRow(out), "Out in one hand · waiting to send", true));
      else if (op === "confirm") note(buttonRow(`confirm:${id}`), "Confirmed · waiting to send", true);
      else if (op === "walk_in") note(buttonRow(`walk_in:${id}`), "Checked in · waiting to send", true);
      else if (op === "give") note(seatRow(id), `${PENALTY[arg] || "Penalty"} · waiting to send`, arg === "disqualification");
      else if (op === "end" || op === "extend") note(seatRow(id), `Penalty ${op === "end" ? "ended" : "extended"} · waiting to send`, false);
      else if (op === "bonus") {
        const row = seatRow(id), given = shelf.field(tap, "kind"), bonus = row && row.querySelector("button[value^='bonus:']");
        const radio = D.querySelector(`#players input[name=kind][value="${CSS.escape(given || "")}"]`);
        if (bonus && given === kind) {
          bonus.textContent = `+${radio.dataset.short} ✓ waiting`;
          bonus.setAttribute("aria-label", `${radio.dataset.label} bonus for ${nameOf(row)}: ${radio.dataset.short} waiting to send`);
          if (!bonus.disabled) { bonus.disabled = true; bonus.dataset.keptOff = ""; }
        } else note(row, `+${radio ? radio.dataset.short : given} · waiting to send`, false);
      }
    }
  }
  D.addEventListener("shuffleup:kept", e => {
    waiting = e.detail.waiting;
    const tap = e.detail.kept;
    if (tap && window.shuffleupKept.field(tap, "op") === "bust_hand") {   // the hand is kept: its ticks go
      for (const tick of D.querySelectorAll("#players input[name=out]:checked")) { tick.checked = false; chipsField(tick); }
    }
    markKept();
    stuck();
  });

  // R-MEM-1, R-LATE-4: the door with no signal. The league's members are kept on the phone (fetched as
  // the page opens: names and tonight's place, no contact details); with no connection the search
  // finds them here, as the server's does, and their Check in waits to be sent (host/kept.js).
  let members = null;
  const door = () => D.querySelector("[data-door-search]");
  function fetchMembers() {
    const field = door();
    if (!field || !navigator.onLine) return;
    fetch(field.dataset.members, { credentials: "same-origin" }).then(r => r.ok ? r.json() : null)
      .then(list => { if (list) members = list; }).catch(() => {});
  }
  const WHERE = { playing: "in the game", pending: "checked in on their phone", registered: "pre-registered",
                  requested: "asked to pre-register", played: "out", dq: "disqualified" };
  function doorHere(query) {
    const roster = D.querySelector("#players form[data-keep]"), results = D.getElementById("search-results");
    if (!roster || !results) return;
    const found = query ? (members ? members.members : []).filter(m => named(query, m.name)).slice(0, 12) : [];
    const form = D.createElement("form");
    for (const name of ["method", "action", "hx-post", "hx-target", "hx-swap", "data-keep", "data-keep-swap"]) {
      form.setAttribute(name, roster.getAttribute(name));
    }
    form.append(roster.elements.csrf_token.cloneNode());
    const list = Object.assign(D.createElement("ul"), { className: "list plain door" });
    for (const m of found) {
      const item = D.createElement("li"), name = D.createElement("span");
      item.dataset.keepWho = m.name;
      name.textContent = m.name;
      if (m.status) name.append(" ", Object.assign(D.createElement("span"), { className: "muted", textContent: WHERE[m.status] || m.status }));
      item.append(name);
      const op = m.status === "pending" ? `confirm:${m.entry}` : !m.status || ["registered", "requested"].includes(m.status) ? `walk_in:${m.id}` : "";
      if (op) {
        const paid = m.status === "registered" || m.status === "pending";
        const words = (m.id_first ? "ID checked · " : "") + (m.status === "pending" ? "Confirm" : "Check in")
          + (members.buy_in && !paid ? ` · $${members.buy_in.toLocaleString("en")}` : "");
        item.append(Object.assign(D.createElement("button"), { type: "submit", name: "op", value: op + (m.id_first ? ":id" : ""), className: "primary", textContent: words }));
      }
      list.append(item);
    }
    if (query && !found.length) list.append(Object.assign(D.createElement("li"), { className: "muted", textContent: members ? `No member called “${query}”.` : "No list of members on this phone." }));
    form.append(list);
    const why = Object.assign(D.createElement("p"), { className: "muted small", textContent: "No connection: found on this phone's list of the league's members. A check-in waits to be sent." });
    const here = Object.assign(D.createElement("div"), { id: "search-results" });
    here.append(...(query ? [form, why] : []));
    results.replaceWith(here);
    if (window.htmx) htmx.process(here);
    markKept();
  }
  D.addEventListener("htmx:configRequest", e => {
    if (e.detail.elt === door() && !navigator.onLine) { e.preventDefault(); doorHere(door().value.trim()); }
  });
  D.addEventListener("htmx:sendError", e => { if (e.detail.elt === door()) doorHere(door().value.trim()); });

  D.addEventListener("input", e => { if (e.target.matches && e.target.matches("[data-roster-filter]")) filter(); });
  D.addEventListener("DOMContentLoaded", () => { label(); filter(); stuck(); markKept(); fetchMembers(); });
  // At the swap, not the settle 20 ms later: the focus never rests on the page's body meanwhile.
  D.addEventListener("htmx:afterSwap", e => {
    const target = e.detail.target && e.detail.target.id;
    if (target === "floor" && e.detail.requestConfig.verb === "post") sheetAnswered(e);
    else if (target === "players") { label(); filter(); keepPlace(); markKept(); }
    else if (target === "search-results") markKept();
  });
  addEventListener("resize", stuck);
})();
