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
const unsent = event => refuseTap(event.target.closest?.("#controls"));
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
  if (detail.elt.id !== "controls" || line?.readyState !== WebSocket.OPEN) return;
  event.preventDefault();
  if (lineTap) return;   // one tap at a time, as the form's hx-sync="this:drop"
  const button = detail.triggeringEvent?.submitter;
  button?.classList.add("htmx-request");
  lineTap = { button, timer: setTimeout(() => { line?.close(); if (lineTap) endTap(); }, LINE_TIMEOUT_MS) };
  line.send(new URLSearchParams(detail.formData).toString());
});
on("online", openLine, window);
on("visibilitychange", () => { if (!document.hidden) openLine(); });

syncControls();   // clock.js took the page's clock before this module ran
openLine();
