// The host's roster (players.html only, never a player's page): finding a player in two keystrokes,
// the one-tap bonus buttons' words, and what the server leaves out of each row to keep 200 players
// small (the accessible names, "… is out?", the chips field of a ticked player, the pickers' names).
(() => {
  "use strict";
  const D = document;
  let kind = "";                 // the bonus kind the host picked; the roster is redrawn often

  const fold = text => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/['’]/g, "");
  const wordsOf = text => fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const nameOf = row => {
    const label = row.querySelector(":scope > label") || row.querySelector(":scope > span");
    return label ? label.textContent.trim() : "";
  };

  // "ja" finds Jack, "jd" Jack Doyle (initials), "ob" O'Brien, "t3" table 3's players.
  function matches(query, row) {
    const tokens = wordsOf(query);
    if (!tokens.length) return true;
    const words = wordsOf(nameOf(row));
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
      // The row's link to the player's warnings and penalties (R-PEN), unless the server sent the
      // "Away until …" one: the URL is the roster's data-floor and the row's entry id.
      if (tick && out && !row.querySelector("a[data-floor]")) {
        const floor = D.createElement("a");
        floor.className = "button";
        floor.href = roster.dataset.floor + tick.value;
        floor.dataset.floor = "";
        floor.textContent = "⚑";  // the floor: warnings and penalties
        floor.setAttribute("aria-label", `Floor: ${name}`);
        out.after(floor);
      }
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
      tick.closest("label").after(input);
    } else if (field) {
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
  // The answer redraws the whole roster: keep the button tapped (or its row's next one) where the
  // thumb is, not wherever the new page's heights put it. A refusal is app.js's to bring into view.
  let anchor = null;
  D.addEventListener("submit", e => {
    const button = e.submitter;
    anchor = button && button.closest("#players") && button.value
      ? { value: button.value, top: button.getBoundingClientRect().top } : null;
  }, true);
  function keepPlace() {
    const was = anchor;
    anchor = null;
    if (!was || D.getElementById("refusal")) return;
    const button = [...D.querySelectorAll("#players button[name=op]")].find(b => b.value === was.value);
    if (button) scrollBy(0, button.getBoundingClientRect().top - was.top);
  }
  // The door (R-MEM-1): once a walk-in is in, the search and its results go (their buttons would
  // offer the same member again) and the field waits for the next name; a refusal keeps them.
  let doorDone = false;
  D.addEventListener("htmx:afterRequest", e => {
    doorDone = doorDone || (!!e.detail.successful && !!e.detail.elt.closest?.("#search-results"));
  });
  function clearDoor() {
    const field = D.querySelector("[data-door-search]"), results = D.getElementById("search-results");
    doorDone = false;
    if (!field || !results) return;
    field.value = "";
    results.replaceChildren();
    field.focus({ preventScroll: true });
  }
  D.addEventListener("input", e => { if (e.target.matches && e.target.matches("[data-roster-filter]")) filter(); });
  D.addEventListener("DOMContentLoaded", () => { label(); filter(); });
  D.addEventListener("htmx:afterSettle", () => { label(); filter(); keepPlace(); if (doorDone) clearDoor(); });
})();
