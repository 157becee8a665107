// The host's clock controls (host/_controls.html, R-CLOCK-3/4), on the host's night page only: a
// player's phone and the big screen never download them. The clock itself is js/clock.js's, which
// runs first (module scripts run in the page's order): this follows it through the
// "shuffleup:clock" event it fires for each newer state on screen, and hands it, through
// window.shuffleupClock, the states the host's own taps bring.
const clock = window.shuffleupClock;
const find = selector => document.querySelector(selector);
const findAll = (selector, root = document) => root.querySelectorAll(selector);
const on = (name, handler, target = document) => target.addEventListener(name, handler);

// R-CLOCK-3: the host's form follows newer states, so a tap after another screen's isn't refused.
function syncControls() {
  const form = find("#controls");
  const shown = find("[data-clock]")?._clock;
  if (!form || !shown || +form.elements.version.value >= shown.version) return;
  form.elements.version.value = shown.version;
  const select = form.querySelector("select");
  const main = form.querySelector("[data-main]");
  const state = shown.state;
  if (select && document.activeElement !== select) select.value = clock.view().index + 1;
  if (main) {
    [main.value, main.textContent] = !state.started ? ["start", "Start"]
      : state.running_since_ms != null ? ["pause", "Pause"] : ["resume", "Resume"];
  }
  if (shown.shot && form.elements.seat) form.elements.seat.value = "";   // the called clock shows it now
  // R-HFH-1/2: hand-for-hand's rows, the hand in play, and the suggestion at the money bubble
  for (const row of findAll("[data-hfh-on]", form)) row.hidden = !shown.hand_for_hand;
  for (const row of findAll("[data-hfh-off]", form)) row.hidden = !!shown.hand_for_hand;
  for (const note of findAll("[data-hfh-suggested]", form)) note.hidden = !shown.hand_for_hand_suggested;
  const hand = form.querySelector("[data-hfh-hand]");
  if (hand) hand.textContent = "Hand-for-hand: " + (shown.hand ? `hand ${shown.hand} in play` : "no hand dealt yet");
  for (const row of findAll("[data-shot-on]", form)) row.hidden = !shown.shot;
  for (const row of findAll("[data-shot-off]", form)) row.hidden = !!shown.shot;
  form.querySelector(".error")?.remove();
}
on("shuffleup:clock", syncControls);

// The tap's answer brings the clock's state too (htmx, out of band: #clock-state).
for (const name of ["htmx:afterSwap", "htmx:oobAfterSwap"]) {
  on(name, event => {
    const state = event.target?.id === "clock-state" ? event.target : null;   // the element swapped in
    if (state?.dataset.state) clock.take(state.dataset.state);
    else clock.adopt();
  });
}
// A refused tap (a stale version, a rule) comes with the current controls: show them.
on("htmx:beforeSwap", event => {
  const detail = event.detail;
  if (detail.target.id === "controls" && [400, 409, 422].includes(detail.xhr.status)) {
    detail.shouldSwap = true;
    detail.isError = false;
  }
});
// Why a tap did nothing, atop the controls, where the thumb is.
function refuseTap(form, text = "No answer from the server, so nothing changed. Tap again.") {
  if (!form) return;
  const error = form.querySelector(".error")
    || form.insertBefore(document.createElement("p"), form.querySelector(".control-main"));
  error.className = "error";
  error.setAttribute("role", "alert");
  error.textContent = text;
}
// A tap that got no answer though the phone thinks it is online (wifi up, the pub's line down) is kept
// too, with its key: sent again later, it is applied once whether or not the first one landed.
const unsent = event => {
  const form = event.target.closest?.("#controls"), config = event.detail?.requestConfig;
  if (form && config?.formData) return keep(form, config.formData, config.triggeringEvent?.submitter, form.tappedAt);
  refuseTap(form);
};
on("htmx:sendError", unsent);
on("htmx:timeout", unsent);

// R-CLOCK-3: the host's line (blueprints/host/line.py), one WebSocket the night screen keeps open:
// each tap goes over it as the form htmx would post, and its answer is the phones' message (for a
// refusal, the controls the POST answers), so the phones have the tap without a request's HTTP
// work. While the line is not open (no WebSocket, a proxy that refuses it, the line down and trying
// again) htmx posts the tap as before.
const LINE_TIMEOUT_MS = 8000;   // as the form's hx-request timeout
let line = null, lineTap = null, lineRetries = 0, lineClosed = "";
function openLine() {
  const form = find("#controls[data-line-url]");
  if (!form || !window.WebSocket || line || lineClosed || !navigator.onLine) return;
  const url = new URL(form.dataset.lineUrl, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const socket = line = new WebSocket(url);
  socket.onopen = () => { lineRetries = 0; };
  socket.onmessage = message => answerTap(message.data);
  socket.onclose = event => {
    if (line !== socket) return;
    line = null;
    if (event.code === 4403 || event.code === 4404) lineClosed = event.reason;   // logged out, night gone
    if (lineTap) endTap(lineClosed || undefined);
    if (lineClosed) return;
    lineRetries = Math.min(lineRetries * 2 || 1, 32);
    setTimeout(openLine, lineRetries * 1000);
  };
}
function endTap(refusal) {
  const tap = lineTap;
  lineTap = null;
  clearTimeout(tap.timer);
  tap.button?.classList.remove("htmx-request");
  // no answer on the line: kept, as an unanswered POST is (a tap that landed comes back stale)
  if (refusal === undefined) return keep(find("#controls"), tap.formData, tap.button, tap.at);
  if (refusal !== null) refuseTap(find("#controls"), refusal);
}
function answerTap(data) {
  if (!lineTap) return;
  let answer;
  try { answer = JSON.parse(data); } catch { answer = {}; }
  if (answer.status === 503) {   // the database down: the notice app.js shows for a refused POST
    endTap(null);
    const notice = find("#unavailable") || Object.assign(document.createElement("p"), { id: "unavailable", className: "error" });
    notice.setAttribute("role", "alert");
    notice.textContent = answer.error;
    return find("#controls").prepend(notice);
  }
  if (!answer.state && !answer.controls) return endTap(answer.error);
  endTap(null);
  find("#unavailable")?.remove();
  // A tap that went through brings the phones' message, which keeps the controls in step as the
  // stream's does; a refusal brings the controls with its words.
  if (answer.state) clock.take(answer.state);
  else htmx.swap(find("#controls"), answer.controls, { swapStyle: "outerHTML" });
}
on("htmx:configRequest", event => {
  const detail = event.detail;
  if (detail.elt.id !== "controls") return;
  const at = detail.elt.tappedAt = serverNow();   // the tap's moment, should it have to be kept
  // No signal, or taps still waiting to go before it: kept on the phone, sent in order later.
  if (!navigator.onLine || waiting().length) {
    event.preventDefault();
    return keep(detail.elt, detail.formData, detail.triggeringEvent?.submitter, at);
  }
  if (line?.readyState !== WebSocket.OPEN) return;
  event.preventDefault();
  if (lineTap) return;   // one tap at a time, as the form's hx-sync="this:drop"
  const button = detail.triggeringEvent?.submitter;
  button?.classList.add("htmx-request");
  lineTap = { button, formData: detail.formData, at, timer: setTimeout(() => { line?.close(); if (lineTap) endTap(); }, LINE_TIMEOUT_MS) };
  line.send(new URLSearchParams(detail.formData).toString());
});
on("online", () => { openLine(); sendKept(); }, window);
on("visibilitychange", () => { if (!document.hidden) openLine(); });

syncControls();   // clock.js took the page's clock before this module ran
openLine();

// R-CLOCK-3, a night that goes on when the signal drops: a tap made with no connection is kept on the
// phone (IndexedDB, so a reload or a closed tab keeps it too), said on screen ("2 waiting to send"),
// and sent in order when the connection is back, by HTTP, each with its own idempotency key (a tap
// sent again after a lost answer is applied once), the version it saw and the moment it was tapped
// in server time (tapped_at_ms: the server applies it then, so a pause taken offline stops every
// phone's clock where the host stopped it). The clock on this screen keeps counting meanwhile, as
// the players' do. A tap refused when it arrives (someone else acted meanwhile, or it was kept too
// long) is listed with its reason, to redo now or drop; the taps kept after it are too, as each
// assumed the one before it had gone through.
const KEPT_DB = "shuffleup-host", KEPT_STORE = "taps", RESEND_MS = 15000;
let kept = [], sending = false, keptDb = null;
const eventUrl = () => find("#controls")?.getAttribute("hx-post");
const waiting = () => kept.filter(tap => !tap.reason);
const serverNow = () => Math.round(Date.now() + (clock.offset || 0));   // as clock.js reckons it

function store() {
  if (!keptDb) {
    keptDb = new Promise((resolve, reject) => {
      const request = indexedDB.open(KEPT_DB, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(KEPT_STORE, { keyPath: "key" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }).catch(() => null);   // no IndexedDB (a private window): kept in this page only
  }
  return keptDb;
}
async function saveKept(tap, remove = false) {
  const db = await store();
  if (!db) return;
  await new Promise(resolve => {
    const done = db.transaction(KEPT_STORE, "readwrite");
    const taps = done.objectStore(KEPT_STORE);
    if (remove) taps.delete(tap.key); else taps.put(tap);
    done.oncomplete = done.onerror = done.onabort = resolve;
  });
}
async function readKept() {
  const db = await store(), url = eventUrl();
  if (db && url) {
    const all = await new Promise(resolve => {
      const request = db.transaction(KEPT_STORE).objectStore(KEPT_STORE).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve([]);
    });
    const known = new Set(kept.map(tap => tap.key));
    kept = kept.concat(all.filter(tap => tap.url === url && !known.has(tap.key))).sort((a, b) => a.seq - b.seq);
  }
  showKept();
  sendKept();
}

// The tap as htmx would have posted it, its key (once.js gave the form one), the version it saw (for
// a tap after others still waiting: the version the last of them makes), and when it was tapped.
function keep(form, formData, button, at) {
  const fields = Object.fromEntries(formData);
  if (!form || !fields.idempotency_key) return refuseTap(form);
  const before = waiting().at(-1);
  if (before) fields.version = String(+before.fields.version + 1);
  else fields.seen_clock = seenClock();   // the clock it was tapped on (a tap after it follows it)
  fields.tapped_at_ms = String(at);
  const tap = { key: fields.idempotency_key, url: eventUrl(), seq: Date.now() + Math.random(), fields,
                label: (button?.textContent || fields.action || "Tap").trim(), at: new Date().toLocaleTimeString() };
  kept.push(tap);
  saveKept(tap);
  form.elements.idempotency_key?.remove();   // the next tap is a new action, with a key of its own
  // What the host sees next follows the tap: its version, and the main button for start/pause/resume.
  form.elements.version.value = +fields.version + 1;
  const main = form.querySelector("[data-main]");
  const next = { start: ["pause", "Pause"], pause: ["resume", "Resume"], resume: ["pause", "Pause"] }[fields.action];
  if (main && next && main.value === fields.action) [main.value, main.textContent] = next;
  form.querySelector(".error")?.remove();
  showKept();
}

// The clock itself as this screen shows it, in the words of services/clocks.py seen_clock: while the
// clock is still this one, the server applies the tap though the field moved the version on meanwhile.
function seenClock() {
  const shown = find("[data-clock]")?._clock;
  if (!shown) return "";
  const state = shown.state, hand = shown.hand_for_hand && shown.hand != null ? shown.hand : "";
  return [state.index, state.item_elapsed_ms, state.running_since_ms ?? "", state.started ? 1 : 0,
          shown.shot?.started_ms ?? "", shown.hand_for_hand ? 1 : 0, hand, shown.structure_digest].join(":");
}

async function sendKept() {
  if (sending || !navigator.onLine || !waiting().length) return;
  sending = true;
  let answered = null;   // the version the last tap sent made: the one the next tap was made on
  try {
    for (const tap of waiting()) {
      if (answered != null && tap.fields.version !== answered) {
        tap.fields.version = answered;   // kept before it goes, so a resend sends the very same tap
        delete tap.fields.seen_clock;
        await saveKept(tap);
      }
      let response;
      try {
        response = await fetch(tap.url, { method: "POST", credentials: "same-origin", body: new URLSearchParams(tap.fields),
                                          headers: { "HX-Request": "true" } });
      } catch { break; }   // still no answer: tried again when the signal is back
      if (response.status >= 500 || response.status === 429) break;   // the same key again later: applied once
      const answer = await response.text();
      const parsed = new DOMParser().parseFromString(answer, "text/html");
      const controls = find("#controls");
      if (controls) htmx.swap(controls, answer, { swapStyle: "outerHTML" });   // the clock as it now is
      if (response.ok) {
        try { answered = String(JSON.parse(parsed.getElementById("clock-state").dataset.state).version); }
        catch { answered = null; }
        kept = kept.filter(other => other !== tap);
        saveKept(tap, true);
        continue;
      }
      const words = parsed.querySelector(".error")?.textContent;
      for (const later of waiting()) {
        later.reason = later === tap ? (words || "Not applied.").trim()
          : "Not sent: it followed a tap that was not applied.";
        saveKept(later);
      }
      break;
    }
  } finally {
    sending = false;
    showKept();
  }
}
setInterval(sendKept, RESEND_MS);   // an answer that never came (wifi up, no internet): the same keys again

// Say on screen what is waiting, and what came back refused, with Redo and Drop.
function showKept() {
  const box = find("#kept");
  if (!box) return;
  const refused = kept.filter(tap => tap.reason), pending = waiting();
  box.hidden = !kept.length;
  box.querySelector("[data-kept-count]").textContent = pending.length
    ? `${pending.length} waiting to send${navigator.onLine ? "" : ": no connection, they go when it's back"}` : "";
  const list = box.querySelector("[data-kept-waiting]");
  list.replaceChildren(...pending.map(tap => Object.assign(document.createElement("li"), { textContent: `${tap.label} · tapped ${tap.at}` })));
  list.hidden = !pending.length;
  const refusedBox = box.querySelector("[data-kept-refused]");
  refusedBox.hidden = !refused.length;
  refusedBox.querySelector("ul").replaceChildren(...refused.map(tap => {
    const item = document.createElement("li");
    const what = Object.assign(document.createElement("p"), { textContent: `${tap.label} · tapped ${tap.at}: ` });
    what.append(Object.assign(document.createElement("span"), { className: "error", textContent: tap.reason }));
    const redo = Object.assign(document.createElement("button"), { type: "button", textContent: "Redo" });
    const drop = Object.assign(document.createElement("button"), { type: "button", textContent: "Drop" });
    redo.setAttribute("aria-label", `Redo ${tap.label} now`);
    drop.setAttribute("aria-label", `Drop ${tap.label}`);
    redo.onclick = () => redoKept(tap);
    drop.onclick = () => dropKept(tap);
    item.append(what, redo, drop);
    return item;
  }));
}
function dropKept(tap) {
  kept = kept.filter(other => other !== tap);
  saveKept(tap, true);
  showKept();
}
// Redo: the same control tapped again now, on the clock as it now is (a tap of its own, a new key).
function redoKept(tap) {
  const form = find("#controls");
  const button = form && [...form.querySelectorAll("button[name=action]")].find(b => b.value === tap.fields.action);
  if (!button) return refuseTap(form, `${tap.label} can't be done on the clock as it now is: drop it.`);
  if (form.elements.index && tap.fields.index) form.elements.index.value = tap.fields.index;
  if (form.elements.seat && tap.fields.seat) form.elements.seat.value = tap.fields.seat;
  dropKept(tap);
  button.click();   // a click, as the thumb's: htmx sends the button pressed with the form
}
on("offline", showKept, window);
readKept();   // taps kept before this page was (re)opened: shown, and sent if the signal is here
