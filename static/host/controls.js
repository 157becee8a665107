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
  // answered: the next tap is a new action, with a key of its own (once.js, after an htmx answer)
  find("#controls").elements.idempotency_key?.remove();
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
on("online", openLine, window);
on("visibilitychange", () => { if (!document.hidden) openLine(); });

syncControls();   // clock.js took the page's clock before this module ran
openLine();

// R-CLOCK-3, a night that goes on when the signal drops: a tap made with no connection is kept on the
// phone with the host's other actions (host/kept.js: said on screen, sent in order when the signal is
// back, Redo and Drop for one refused), with the clock's own fields: the version it saw (for a tap after
// others still waiting: the version the last of them makes) and the clock it was tapped on. The clock
// on this screen keeps counting meanwhile, as the players' do.
const kept = window.shuffleupKept;
const waiting = () => kept.waiting();
const serverNow = () => kept.serverNow();

function keep(form, formData, button, at) {
  const fields = Object.fromEntries(formData);
  if (!form || !fields.idempotency_key) return refuseTap(form);
  const before = kept.waiting("clock").at(-1);
  if (before) fields.version = String(+kept.field(before, "version") + 1);
  else fields.seen_clock = seenClock();   // the clock it was tapped on (a tap after it follows it)
  fields.tapped_at_ms = String(at);
  kept.keep({ kind: "clock", url: form.getAttribute("hx-post"), swap: "#controls", fields: Object.entries(fields),
              label: (button?.textContent || fields.action || "Tap").trim() });
  form.elements.idempotency_key?.remove();   // the next tap is a new action, with a key of its own
  // What the host sees next follows the tap: its version, and the main button for start/pause/resume.
  form.elements.version.value = +fields.version + 1;
  const main = form.querySelector("[data-main]");
  const next = { start: ["pause", "Pause"], pause: ["resume", "Resume"], resume: ["pause", "Pause"] }[fields.action];
  if (main && next && main.value === fields.action) [main.value, main.textContent] = next;
  form.querySelector(".error")?.remove();
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

// Redo: the same control tapped again now, on the clock as it now is (a tap of its own, a new key).
kept.redoer("clock", tap => {
  const form = find("#controls"), action = kept.field(tap, "action");
  const button = form && [...form.querySelectorAll("button[name=action]")].find(b => b.value === action);
  if (!button) return refuseTap(form, `${tap.label} can't be done on the clock as it now is: drop it.`);
  for (const name of ["index", "seat"]) {
    if (form.elements[name] && kept.field(tap, name)) form.elements[name].value = kept.field(tap, name);
  }
  kept.dropKept(tap);
  button.click();   // a click, as the thumb's: htmx sends the button pressed with the form
});
