// ShuffleUp's live clock (R-CLOCK-1..4) and this phone's seat (R-SEAT-1..4). Each [data-clock]
// holds the stored state and structure; the view is derived at server time, Date.now() + an offset
// measured against /api/time. New states come over the stream (server-sent events, opened here:
// no htmx on a player's page), or by polling while that is down. The host's controls are in
// host/controls.js, loaded on the host's page only, so no phone downloads them: it follows the
// clock through the "shuffleup:clock" event below and window.shuffleupClock.
const MINUTE_MS = 60000;
const { max, min, ceil, floor, round } = Math;
const find = selector => document.querySelector(selector);
const findAll = (selector, root = document) => root.querySelectorAll(selector);
const on = (name, handler, target = document) => target.addEventListener(name, handler);

const newestClock = {};   // by event id: the newest payload
const lastHeard = {};     // by event id: what the last repaint showed, for alerts
let offsetMs = null, rttMs = null;   // server time − Date.now(), and the round trip it came from
let tickTimer = 0, pollTimer = 0, seatTimer = 0, meTimer = 0;
let syncing = false, streamLost = false, soundOn = false;
let wakeLock = null, audio = null, announcedSeat = "";
try { soundOn = localStorage.getItem("shuffleup-sound") === "1"; } catch { /* private mode */ }

// The Jinja filters clock_time and chips of blueprints/filters.py, for the same text.
const pad2 = number => String(number).padStart(2, "0");
function clockTime(ms) {
  const seconds = ceil(max(ms || 0, 0) / 1000);
  const hours = floor(seconds / 3600);
  const minutes = floor(seconds % 3600 / 60);
  return hours ? `${hours}:${pad2(minutes)}:${pad2(seconds % 60)}` : `${minutes}:${pad2(seconds % 60)}`;
}
const chips = amount => amount == null ? "–" : String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const ordinal = n => n == null ? "–"
  : n + (n % 100 >= 10 && n % 100 <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
const serverNow = () => Date.now() + (offsetMs || 0);

// league/clock.py view() and helpers, on a [data-clock] payload (`clock`).
const isLevel = item => item.kind === "level";
const levelsIn = (structure, end) => structure.slice(0, end).filter(isLevel).length;
// _level_in_force(): the item itself, or the next level, or the last one.
function blindsAt(structure, index) {
  const level = structure.slice(index).find(isLevel) || structure.slice(0, index).reverse().find(isLevel) || {};
  return { small_blind: level.small_blind || 0, big_blind: level.big_blind || 0, ante: level.ante || 0 };
}
function nextItem(structure, index) {
  const item = structure[index];
  if (!item) return null;
  return {
    index, is_break: !isLevel(item), label: isLevel(item) ? `Level ${levelsIn(structure, index + 1)}` : item.label,
    minutes: item.minutes, ...blindsAt(structure, index),
  };
}
function derive(clock, at) {
  const { structure, state } = clock;
  const durationMs = index => structure[index].minutes * MINUTE_MS;
  const running = state.running_since_ms != null;
  // A lagging device must not run the clock backwards; an edited structure may be shorter.
  let elapsedMs = state.item_elapsed_ms + (running ? max(0, at - state.running_since_ms) : 0);
  let index = min(max(state.index, 0), structure.length - 1);
  while (index < structure.length - 1 && elapsedMs >= durationMs(index)) {
    elapsedMs -= durationMs(index);
    index++;
  }
  const item = structure[index];
  const isBreak = !isLevel(item);
  const remainingMs = max(0, durationMs(index) - elapsedMs);
  let msToNextBreak = null;
  let ahead = remainingMs;
  for (let later = index + 1; later < structure.length; later++) {
    if (!isLevel(structure[later])) {
      msToNextBreak = ahead;
      break;
    }
    ahead += durationMs(later);
  }
  return {
    at, index, level_number: levelsIn(structure, index + 1), is_break: isBreak,
    break_label: isBreak ? item.label : "", colour_up: isBreak && item.colour_up || "", ...blindsAt(structure, index),
    remaining_ms: remainingMs, overtime_ms: max(0, elapsedMs - durationMs(index)),
    running, started: state.started, version: clock.version, ms_to_next_break: msToNextBreak,
    next_item: nextItem(structure, index + 1),
  };
}
// league/clock.py shot_view() (R-CLOCK-4); without the payload's rule, THPA's (warning 40, count 10).
function shotView(shot, at) {
  if (!shot) return null;
  const lengthS = shot.length_s;
  const warningS = shot.warning_s ?? (lengthS > 40 ? 40 : 0);
  const countS = shot.count_s ?? min(10, lengthS);
  const remainingMs = max(0, lengthS * 1000 - max(0, at - shot.started_ms));
  const phase = !remainingMs ? "expired" : remainingMs <= countS * 1000 ? "count"
    : remainingMs <= warningS * 1000 ? "warning" : "running";
  return { seat: shot.seat, remaining_ms: remainingMs, phase };
}

function paint(element, clock, view, shot) {
  const setField = (name, text, show = true) => {
    const field = element.querySelector(`[data-field="${name}"]`);
    if (field) {
      if (text != null && field.textContent !== text) field.textContent = text;
      field.hidden = !show;
    }
    return field;
  };
  const blinds = level => `${chips(level.small_blind)} / ${chips(level.big_blind)}`;
  const time = view.overtime_ms ? "+" + clockTime(view.overtime_ms) : clockTime(view.remaining_ms);
  const stateText = clock.hand_for_hand ? "Hand-for-hand"
    : !view.started ? "Not started" : !view.running ? "Paused" : view.overtime_ms ? "Overtime" : "";
  const next = view.next_item;
  setField("level", view.is_break ? view.break_label : `Level ${view.level_number}`);
  setField("state", stateText, !!stateText);
  setField("time", time);
  setField("blinds", (view.is_break ? "Then " : "") + blinds(view));
  setField("ante", "ante " + chips(view.ante), !!view.ante);
  setField("colour-up", view.colour_up, !!view.colour_up);
  setField("next", !next ? "Last level" : "Next: " + (next.is_break ? `${next.label} (${next.minutes} min)`
    : blinds(next) + (next.ante ? " ante " + chips(next.ante) : "")));
  setField("players", "" + clock.players_left);
  setField("average", chips(clock.average_stack));
  setField("to-break", view.ms_to_next_break == null ? "–" : clockTime(view.ms_to_next_break));
  // R-HFH-2: hand-for-hand, and "Deal now" for the hand the host's Next hand started
  const hfhBox = setField("hfh-box", null, !!clock.hand_for_hand);
  if (clock.hand_for_hand) {
    setField("hfh-deal", clock.hand ? "Deal now" : "Hand-for-hand");
    setField("hfh-note", clock.hand ? `Hand ${clock.hand}: every table deals now. All in and called? Cards stay face `
      + "down until every table has finished the hand." : "Every table waits for the host's Next hand.");
    hfhBox?.classList.toggle("is-dealing", !!clock.hand);
  }
  const shotBox = setField("shot-box", null, !!shot);
  if (shot) {
    setField("shot-seat", "Clock called" + (shot.seat ? " on " + shot.seat : ""));
    setField("shot", "" + ceil(shot.remaining_ms / 1000));
    setField("shot-note", shot.phase === "expired" ? "Time!" : "seconds");
    if (shotBox) shotBox.dataset.phase = shot.phase;
  }
  const classes = element.classList;
  classes.toggle("is-break", view.is_break);
  classes.toggle("is-paused", view.started && !view.running);
  classes.toggle("is-overtime", view.overtime_ms > 0);
  classes.toggle("is-long", time.length > 5);
}

// A settled night's result in the clock's place (R-PTS, R-PAY-1/2, R-QUAL-1/2), drawn as
// live/_result.html draws it: once per version, as text (a name is never markup).
function resultRow(row) {
  const item = document.createElement("li");
  const part = (name, text) => Object.assign(document.createElement("span"), { className: name, textContent: text });
  const facts = [row.status === "dq" ? "disqualified" : `${chips(row.points)} pts`];
  if (row.prize) facts.push("$" + chips(row.prize));
  if (row.monthly_final_ticket) facts.push("Final ticket");
  item.append(part("result-place", ordinal(row.position)), " ", part("result-name", row.player), " ",
    part("result-facts", facts.join(" · ")));
  return item;
}
function paintResult(element, clock) {
  element.classList.toggle("is-settled", !!clock.settled);
  const box = element.querySelector('[data-field="result"]');
  if (box) box.hidden = !clock.settled;
  const list = box?.querySelector("[data-result-list]");
  if (!clock.settled || !list || list.dataset.version === String(clock.version)) return;
  list.dataset.version = clock.version;
  list.replaceChildren(...(clock.result || []).map(resultRow));
}

// R-CLOCK-2: beeps (once a tap has unlocked Web Audio) and buzzes, only with sound on; `always`
// buzzes anyway (a seat move matters more than a level). Notes: [Hz, ms].
const TONES = {
  level: [[660, 150], [880, 150], [1320, 350]], minute: [[880, 180], [880, 180]],
  break: [[1320, 250], [880, 250], [660, 450]], call: [[1000, 300], [1000, 300]],
  deal: [[880, 120], [1320, 120], [880, 120], [1320, 300]],
  warning: [[1200, 400]], count: [[1500, 90]], expired: [[440, 900]],
};
function alarm(name, always) {
  const notes = TONES[name];
  if (!soundOn && !always) return;
  // Chrome refuses (and logs) vibration before the first tap on the page.
  if (navigator.vibrate && (!navigator.userActivation || navigator.userActivation.hasBeenActive)) {
    navigator.vibrate(notes.flatMap(([, ms]) => [ms, 80]));
  }
  if (!soundOn || !audio || audio.state !== "running") return;
  let start = audio.currentTime + 0.02;
  for (const [frequency, ms] of notes) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    const volume = gain.gain;
    const end = start + ms / 1000;
    oscillator.type = "square";
    oscillator.frequency.value = frequency;
    volume.setValueAtTime(0.0001, start);
    volume.exponentialRampToValueAtTime(0.3, start + 0.015);
    volume.exponentialRampToValueAtTime(0.0001, end);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(start);
    oscillator.stop(end + 0.02);
    start = end + 0.07;
  }
}
// A new level or break, one minute left; a called clock: called, warning, each of the last 10, time;
// R-HFH-2: each new hand-for-hand hand ("Deal now") buzzes even with sound off, as a seat move does.
function alerts(eventId, view, shot, hand) {
  const was = lastHeard[eventId];
  const phase = shot?.phase;
  const seconds = shot && ceil(shot.remaining_ms / 1000);
  lastHeard[eventId] = { index: view.index, remainingMs: view.remaining_ms, phase, seconds, hand };
  if (!was || document.hidden) return;   // not on the first look, nor for a hidden page
  if (hand && hand !== was.hand) return alarm("deal", true);   // the hand's time off may move the level too
  if (view.index !== was.index) alarm(view.is_break ? "break" : "level");
  else if (view.remaining_ms <= MINUTE_MS && was.remainingMs > MINUTE_MS) alarm("minute");
  if (phase && phase !== was.phase) alarm(was.phase && phase !== "running" ? phase : "call");
  else if (phase === "count" && seconds !== was.seconds) alarm("count");
}

// A new level or break, said once by the polite live region (the ticking timer is not one): for a
// screen reader on a phone or the TV. Not on the first look at a clock element.
function sayChange(element, view) {
  const was = element.saidIndex;
  element.saidIndex = view.index;
  const region = element.querySelector('[data-field="said"]');
  if (was === undefined || was === view.index || !region) return;
  const blinds = `${chips(view.small_blind)} / ${chips(view.big_blind)}${view.ante ? ", ante " + chips(view.ante) : ""}`;
  region.textContent = view.is_break
    ? `${view.break_label}, ${round(view.remaining_ms / MINUTE_MS)} minutes. Then blinds ${blinds}.`
    : `Level ${view.level_number}: blinds ${blinds}.`;
}

// Repaint, then again just after the next displayed second flips (never count ticks: they drift).
function tick() {
  clearTimeout(tickTimer);
  const at = serverNow();
  let waitMs = 1000;
  for (const element of findAll("[data-clock]")) {
    const clock = element._clock;
    if (!clock) continue;
    paintResult(element, clock);
    if (clock.settled) continue;   // the night is over: no level counts, no alarm sounds
    const view = derive(clock, at);
    const shot = shotView(clock.shot, at);
    paint(element, clock, view, shot);
    alerts(clock.event_id, view, shot, clock.hand_for_hand ? clock.hand : null);
    sayChange(element, view);
    if (view.running) {
      waitMs = min(waitMs, view.overtime_ms ? 1000 - view.overtime_ms % 1000 : view.remaining_ms % 1000 || 1000);
    }
    if (shot?.remaining_ms) waitMs = min(waitMs, shot.remaining_ms % 1000 || 1000);
  }
  tickTimer = setTimeout(tick, waitMs + 5);
}

// A payload from the page, the stream, the host's tap or a poll: the newest version wins.
function takeClock(clock) {
  const old = newestClock[clock.event_id];
  if (old && old.version > clock.version) return old;
  if (offsetMs == null) {   // until /api/time answers: the page's own timing
    const navigation = performance.getEntriesByType("navigation")[0];
    const sinceResponse = navigation?.responseStart ? performance.now() - navigation.responseStart : 0;
    offsetMs = round(clock.server_time_ms - Date.now() + sinceResponse);
  }
  newestClock[clock.event_id] = clock;
  checkSeats(clock);
  if (clock.settled && old && !old.settled) refreshMyEntry();   // this phone's own place, points and prize
  return clock;
}
function adoptFragments() {
  for (const element of findAll("[data-clock]")) {
    element._clock = element._clock || takeClock(JSON.parse(element.dataset.clock));
  }
  stateChanged();
}
// A newer state is on screen: say so (the host's controls follow it), then paint it.
function stateChanged() {
  document.dispatchEvent(new Event("shuffleup:clock"));
  tick();
}

// R-SEAT: refetch this phone's entry (play/_me.html, from its data-me-url) only when its bucket of
// the seat digest changed, after a random wait, so a table break doesn't bring every phone at the
// same moment; and a minute after its last refresh, in case a message was lost.
function checkSeats(clock) {
  const me = find("[data-me][data-me-url]");
  if (!me || typeof clock.seats !== "string") return;
  const width = me.dataset.seatHash.length;
  const at = width * me.dataset.seatBucket;
  if (clock.seats.slice(at, at + width) !== me.dataset.seatHash) refreshMyEntry();
}
function refreshMyEntry() {
  seatTimer = seatTimer || setTimeout(() => {
    seatTimer = 0;
    find("[data-me][data-me-url]")?.dispatchEvent(new Event("seats", { bubbles: true }));
  }, Math.random() * 1500);
}
// The fragment alone, asked as htmx would (HX-Request: the service worker lets it by), in place of
// the entry on screen: from its data-me-url, or from "Got it"'s URL (`seen`: the alert goes). One
// request at a time, and one more if asked meanwhile.
let meLoading = false, meAgain = null;
async function loadMyEntry(seen = null) {
  const me = find("[data-me][data-me-url]");
  if (!me) return;
  if (meLoading) {
    meAgain = seen || meAgain || "";
    return;
  }
  clearTimeout(meTimer);
  meLoading = true;
  try {
    const response = await fetch(seen || me.dataset.meUrl, { headers: { "HX-Request": "true" } });
    if (response.ok && me.isConnected) {
      const fresh = document.createElement("template");
      fresh.innerHTML = await response.text();
      me.replaceWith(fresh.content);
      adoptMyEntry();
    }
  } catch { /* offline: the next refresh tries again */ }
  meLoading = false;
  const again = meAgain;
  meAgain = null;
  if (again !== null) loadMyEntry(again || null);
  else pollMyEntry();
}
function pollMyEntry() {
  clearTimeout(meTimer);
  if (find("[data-me][data-me-url]")) meTimer = setTimeout(() => loadMyEntry(), MINUTE_MS);
}
on("seats", event => {
  if (event.target.closest?.("[data-me]")) loadMyEntry();
});
on("click", event => {
  const button = event.target.closest?.("[data-me] [data-got-it]");
  if (button) loadMyEntry(button.dataset.gotIt);
});
// A new seat alert (a move, a first seat, the final table) buzzes once, not at every refresh.
function adoptMyEntry() {
  const seat = find("[data-me] [data-seat-alert]")?.dataset.seatAlert ?? "";
  if (seat && seat !== announcedSeat) alarm("level", true);
  announcedSeat = seat;
  keepSeatSeen();
}
// R-SEAT: the seat this phone's player acknowledged and the seat of an alert still up, kept across
// reloads: a page opened again (closed, reloaded, the phone asleep) asks with them, so a move made
// meanwhile, or an alert the reload took away, is still told.
const seatKey = me => `shuffleup-seat:${me.dataset.entry}`;
const myEntryUrl = me => new URL(me.dataset.meUrl, location.href);
function keepSeatSeen() {
  const me = find("[data-me][data-me-url][data-seat]");
  if (!me) return;
  const up = me.querySelector("[data-seat-alert]");
  const seats = up ? { seen: myEntryUrl(me).searchParams.get("was"), shown: me.dataset.seat } : { seen: me.dataset.seat };
  try { localStorage.setItem(seatKey(me), JSON.stringify(seats)); } catch { /* private mode */ }
}
function askWithSeatSeen() {
  const me = find("[data-me][data-me-url][data-seat]");
  let kept = null;
  try { kept = me && JSON.parse(localStorage.getItem(seatKey(me))); } catch { /* private mode, or not ours */ }
  if (!kept?.seen || me.querySelector("[data-seat-alert]") || (!kept.shown && kept.seen === me.dataset.seat)) {
    keepSeatSeen();
    return;
  }
  const url = myEntryUrl(me);
  url.searchParams.set("was", kept.seen);
  if (kept.shown) url.searchParams.set("shown", kept.shown);
  else url.searchParams.delete("shown");
  loadMyEntry(url.pathname + url.search);
}

// NTP-style: of five samples, the one with the shortest round trip. The first sync takes three, so
// the page's first load makes fewer requests and the clock is right sooner, and two more follow
// 20 s later, kept only if one of them has a shorter round trip than the first three's best.
const getJSON = async url => (await fetch(url, { cache: "no-store" })).json();
async function syncTime(samples = rttMs == null ? 3 : 5, rest = false) {
  const source = find("[data-time-url]");
  if (!source || syncing) return;
  syncing = true;
  const first = rttMs == null;
  let best = rest ? { trip: rttMs, offset: offsetMs } : null;
  try {
    for (let sample = 0; sample < samples; sample++) {
      const sentAt = Date.now();
      const started = performance.now();
      const reply = await getJSON(source.dataset.timeUrl);
      const trip = performance.now() - started;
      if (!best || trip < best.trip) best = { trip, offset: round(reply.server_time_ms - sentAt - trip / 2) };
    }
  } catch { /* offline: keep the last estimate */ }
  syncing = false;
  if (best) {
    rttMs = round(best.trip);
    offsetMs = best.offset;
    tick();
    if (first && samples < 5) setTimeout(() => syncTime(5 - samples, true), 20_000);
  }
}

function showConnection(state) {
  state = navigator.onLine === false ? "offline" : state;
  for (const status of findAll("[data-connection]")) {
    status.textContent = { live: "Live", down: "Reconnecting…", offline: "Offline" }[state];
    status.dataset.state = state;
  }
}
// The whole clock (/api/events/<id>/clock) for every [data-clock] of a live wrapper.
async function fetchClock(live) {
  try {
    const clock = takeClock(await getJSON(live.dataset.clockUrl));
    for (const element of findAll("[data-clock]", live)) element._clock = clock;
  } catch { /* down: the stream, or the next poll, brings it */ }
  stateChanged();
}
// Poll the JSON every 5 s while the stream is down.
function pollSoon() {
  pollTimer = pollTimer || setTimeout(async function poll() {
    await Promise.all([...findAll("[data-clock-url]")].map(fetchClock));
    if (pollTimer) pollTimer = setTimeout(poll, 5000);
  }, 5000);
}
function streamOpen() {
  clearTimeout(pollTimer);
  pollTimer = 0;
  showConnection("live");
  if (streamLost) {   // whatever changed meanwhile, this phone's seat too
    syncTime();
    refreshMyEntry();
  }
  streamLost = false;
}
function streamDown() {
  streamLost = true;
  showConnection("down");
  pollSoon();
}
// A new state for a live wrapper, as one line of JSON (live/announce.py): from its stream's `clock`
// messages, or the host's own tap's answer. It is taken in place of the one shown unless it is older.
// It brings the structure only when the structure changed; a phone whose copy is another (its digest
// differs: a change made while it was away) keeps ticking on its copy and asks for the whole clock.
function takeState(live, json) {
  let fresh = json;
  if (typeof json === "string") try { fresh = JSON.parse(json); } catch { return; }
  const element = live?.querySelector("#clock-box [data-clock]");
  const shown = element?._clock;
  if (!element || (shown && fresh.version < shown.version)) return;
  if (!fresh.structure) {
    fresh.structure = shown?.structure || [];
    // A room of phones that missed the change asks over two seconds, not all at once.
    if (shown?.structure_digest !== fresh.structure_digest) setTimeout(() => fetchClock(live), Math.random() * 2000);
  }
  element._clock = takeClock(fresh);
  // The prize ladder as the server rendered it: it changes only with a new state, never with a tick.
  const ladder = element.querySelector('[data-field="ladder"]');
  if (ladder && fresh.ladder != null && ladder.innerHTML !== fresh.ladder) ladder.innerHTML = fresh.ladder;
  stateChanged();
}
// The stream of a live wrapper. The browser reconnects by itself after a dropped connection; after a
// refused one (a 503 while the server restarts) this tries again, waiting twice as long each time
// (0.5 s up to 64 s).
function listen(live, retries = 0) {
  const source = new EventSource(live.dataset.streamUrl);
  source.onopen = () => {
    retries = 0;
    streamOpen();
  };
  source.onerror = () => {
    streamDown();
    if (source.readyState !== EventSource.CLOSED) return;
    retries = max(min(retries * 2, 128), 1);
    setTimeout(() => listen(live, retries), retries * 500);
  };
  source.addEventListener("clock", message => takeState(live, message.data));
}
on("offline", () => showConnection("offline"), window);
on("online", () => showConnection(streamLost ? "down" : "live"), window);
// A hidden page loses its Wake Lock: ask again, and re-measure, on return.
const keepAwake = () => {
  if (navigator.wakeLock && !document.hidden && (!wakeLock || wakeLock.released)) {
    navigator.wakeLock.request("screen").then(lock => { wakeLock = lock; }, () => {});
  }
};
on("visibilitychange", () => {
  if (document.hidden) {
    wakeLock?.release().catch(() => {});
    wakeLock = null;
  } else {
    keepAwake();
    syncTime();
    tick();
  }
});

// The tap that turns sound on also unlocks Web Audio.
const unlockAudio = () => {
  if (!audio && window.AudioContext) audio = new AudioContext();
  return audio ? audio.resume().catch(() => {}) : Promise.resolve();
};
function showSound() {
  for (const button of findAll("[data-sound]")) {
    button.setAttribute("aria-pressed", soundOn);
    button.textContent = soundOn ? "Sound on" : "Sound off: tap to turn on";
  }
}
on("pointerdown", () => {
  if (soundOn && (!audio || audio.state !== "running")) unlockAudio();
});
on("click", event => {
  if (!event.target.closest?.("[data-sound]")) return;
  soundOn = !soundOn;
  try { localStorage.setItem("shuffleup-sound", soundOn ? "1" : "0"); } catch { /* private mode */ }
  showSound();
  if (soundOn) unlockAudio().then(() => alarm("minute"));
});

// For the host's controls (host/controls.js: `take` a state its tap brought, `adopt` what htmx swapped
// in), the browser tests and tests/bench/clock_sync.py.
window.shuffleupClock = {
  get offset() { return offsetMs; },
  get rtt() { return rttMs; },
  get awake() { return !!wakeLock && !wakeLock.released; },
  get audio() { return audio && audio.state; },
  view(at) {
    const clock = find("[data-clock]")?._clock;
    return clock && derive(clock, at ?? serverNow());
  },
  take: json => takeState(find("[data-stream-url]"), json),
  adopt: adoptFragments,
  derive, shotView, clockTime, chips,
};
showSound();
adoptFragments();
for (const live of findAll("[data-stream-url]")) listen(live);
pollSoon();   // until the stream opens (or if it never does)
pollMyEntry();
askWithSeatSeen();
syncTime();
setInterval(syncTime, 5 * MINUTE_MS);
keepAwake();
