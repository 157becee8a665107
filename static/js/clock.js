// ShuffleUp live clock (R-CLOCK-1..4). Every [data-clock] element carries the stored state and the
// structure; this derives the view at the server's time (Date.now() + this device's offset, measured
// NTP-style against /api/time) with a port of league/clock.py view(), and repaints just after each
// displayed second flips. New states arrive as fragments over server-sent events (htmx sse), or by
// polling while the stream is down. Also: the connection state, Wake Lock, beeps and vibration, and
// the player's own seat (R-SEAT), refetched when the state's seat digest says it changed.
(() => {
  "use strict";
  const D = document, MIN = 60000, { max, min, ceil, floor, round } = Math;
  const $ = s => D.querySelector(s), $$ = (s, root = D) => root.querySelectorAll(s);
  const on = (name, fn, target = D) => target.addEventListener(name, fn);
  const newest = {}, heard = {};            // by event id: newest data seen; last view, for alerts
  let offset = null, rtt = null, syncing = 0, timer = 0, poll = 0, lock = null, audio = null, lost = 0, soundOn = 0;
  let seatWait = 0, announced = "";         // a pending refetch of this phone's entry; the last seat alert
  try { soundOn = localStorage.getItem("shuffleup-sound") === "1"; } catch (e) { /* private mode */ }

  // As the Jinja filters in blueprints/live.py: m:ss, h:mm:ss from an hour, rounded up; 1,000s.
  const two = n => String(n).padStart(2, "0");
  const clockTime = ms => {
    const s = ceil(max(ms || 0, 0) / 1000), h = floor(s / 3600), m = floor(s % 3600 / 60) + "";
    return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
  };
  const chips = n => n == null ? "–" : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const serverNow = () => Date.now() + (offset || 0);

  // league/clock.py view(): walk from the stored (index, elapsed) to the item that time falls in.
  const isLevel = item => item.kind === "level";
  const blinds = (st, i) => {                // the level in force at i: itself, the next, or the last
    const l = st.slice(i).find(isLevel) || st.slice(0, i).reverse().find(isLevel) || {};
    return { small_blind: l.small_blind || 0, big_blind: l.big_blind || 0, ante: l.ante || 0 };
  };
  const levelsTo = (st, n) => st.slice(0, n).filter(isLevel).length;
  function derive(d, at) {
    const st = d.structure, s = d.state, dur = i => st[i].minutes * MIN, running = s.running_since_ms != null;
    let i = min(max(s.index, 0), st.length - 1), e = s.item_elapsed_ms + (running ? max(0, at - s.running_since_ms) : 0);
    while (i < st.length - 1 && e >= dur(i)) e -= dur(i++);
    const item = st[i], brk = !isLevel(item), left = max(0, dur(i) - e), n = st[i + 1];
    let toBreak = null;
    for (let j = i + 1, ahead = left; j < st.length; ahead += dur(j++)) if (!isLevel(st[j])) { toBreak = ahead; break; }
    return {
      at, index: i, level_number: levelsTo(st, i + 1), is_break: brk, break_label: brk ? item.label : "",
      colour_up: brk && item.colour_up || "", ...blinds(st, i), remaining_ms: left, overtime_ms: max(0, e - dur(i)),
      running, started: s.started, version: d.version, ms_to_next_break: toBreak,
      next_item: n ? { index: i + 1, is_break: !isLevel(n), label: isLevel(n) ? `Level ${levelsTo(st, i + 2)}` : n.label,
        minutes: n.minutes, ...blinds(st, i + 1) } : null,
    };
  }
  // league/clock.py shot_view(); the payload gives the length, THPA's warning (40) and count (10).
  function shotView(sh, at) {
    if (!sh) return null;
    const L = sh.length_s, warn = sh.warning_s ?? (L > 40 ? 40 : 0), count = sh.count_s ?? min(10, L);
    const left = max(0, L * 1000 - max(0, at - sh.started_ms));
    return { seat: sh.seat, remaining_ms: left,
      phase: !left ? "expired" : left <= count * 1000 ? "count" : left <= warn * 1000 ? "warning" : "running" };
  }

  function paint(el, d, v, sv) {
    const set = (name, text, show = true) => {
      const f = el.querySelector(`[data-field="${name}"]`);
      if (f) {
        if (text != null && f.textContent !== text) f.textContent = text;
        f.hidden = !show;
      }
      return f;
    };
    const time = v.overtime_ms ? "+" + clockTime(v.overtime_ms) : clockTime(v.remaining_ms), nx = v.next_item;
    const state = !v.started ? "Not started" : !v.running ? "Paused" : v.overtime_ms ? "Overtime" : "";
    const pair = b => `${chips(b.small_blind)} / ${chips(b.big_blind)}`;
    set("level", v.is_break ? v.break_label : `Level ${v.level_number}`);
    set("state", state, !!state);
    set("time", time);
    set("blinds", (v.is_break ? "Then " : "") + pair(v));
    set("ante", "ante " + chips(v.ante), !!v.ante);
    set("colour-up", v.colour_up, !!v.colour_up);
    set("next", !nx ? "Last level" : "Next: " + (nx.is_break ? `${nx.label} (${nx.minutes} min)`
      : pair(nx) + (nx.ante ? " ante " + chips(nx.ante) : "")));
    set("players", "" + d.players_left);
    set("average", chips(d.average_stack));
    set("to-break", v.ms_to_next_break == null ? "–" : clockTime(v.ms_to_next_break));
    const box = set("shot-box", null, !!sv);
    if (sv) {
      set("shot-seat", "Clock called" + (sv.seat ? " on " + sv.seat : ""));
      set("shot", "" + ceil(sv.remaining_ms / 1000));
      set("shot-note", sv.phase === "expired" ? "Time!" : "seconds");
      if (box) box.dataset.phase = sv.phase;
    }
    const c = el.classList;
    c.toggle("is-break", v.is_break);
    c.toggle("is-paused", v.started && !v.running);
    c.toggle("is-overtime", v.overtime_ms > 0);
    c.toggle("is-long", time.length > 5);
  }

  // Beeps (Web Audio, once a tap has unlocked it) and vibration, only with sound on, except that
  // `always` vibrates anyway (a seat move matters more than a level): [frequency Hz, ms] notes per alert.
  const TONES = {
    level: [[660, 150], [880, 150], [1320, 350]], minute: [[880, 180], [880, 180]],
    brk: [[1320, 250], [880, 250], [660, 450]], call: [[1000, 300], [1000, 300]],
    warning: [[1200, 400]], count: [[1500, 90]], expired: [[440, 900]],
  };
  function alarm(name, always) {
    const notes = TONES[name], tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
    if (!soundOn && !always) return;
    // Chrome refuses (and logs) vibration before the first tap on the page.
    if (navigator.vibrate && tapped) navigator.vibrate(notes.flatMap(([, ms]) => [ms, 80]));
    if (!soundOn || !audio || audio.state !== "running") return;
    let t = audio.currentTime + 0.02;
    for (const [freq, ms] of notes) {
      const osc = audio.createOscillator(), gain = audio.createGain(), g = gain.gain, end = t + ms / 1000;
      osc.type = "square";
      osc.frequency.value = freq;
      g.setValueAtTime(0.0001, t);
      g.exponentialRampToValueAtTime(0.3, t + 0.015);
      g.exponentialRampToValueAtTime(0.0001, end);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(end + 0.02);
      t = end + 0.07;
    }
  }
  // Level change, break, one minute left; a called clock: called, warning, each of the last 10, time.
  function alerts(key, v, sv) {
    const was = heard[key], phase = sv && sv.phase, secs = sv && ceil(sv.remaining_ms / 1000);
    heard[key] = { index: v.index, left: v.remaining_ms, phase, secs };
    if (!was || D.hidden) return;           // nothing on the first look, nor for a hidden page
    if (v.index !== was.index) alarm(v.is_break ? "brk" : "level");
    else if (v.remaining_ms <= MIN && was.left > MIN) alarm("minute");
    if (phase && phase !== was.phase) alarm(was.phase && phase !== "running" ? phase : "call");
    else if (phase === "count" && secs !== was.secs) alarm("count");
  }

  // Repaint everything, then again just after the next displayed second flips (never count ticks).
  function tick() {
    clearTimeout(timer);
    const at = serverNow();
    let wait = 1000;
    for (const el of $$("[data-clock]")) {
      const d = el._clock;
      if (!d) continue;
      const v = derive(d, at), sv = shotView(d.shot, at);
      paint(el, d, v, sv);
      alerts(d.event_id, v, sv);
      if (v.running) wait = min(wait, v.overtime_ms ? 1000 - v.overtime_ms % 1000 : v.remaining_ms % 1000 || 1000);
      if (sv && sv.remaining_ms) wait = min(wait, sv.remaining_ms % 1000 || 1000);
    }
    timer = setTimeout(tick, wait + 5);
  }

  // A new state (page load, stream, the host's own tap, a poll): keep the newest version only.
  function take(d) {
    const old = newest[d.event_id];
    if (old && old.version > d.version) return old;
    if (offset == null) {                   // until /api/time answers: the page's own timing
      const nav = performance.getEntriesByType("navigation")[0];
      offset = round(d.server_time_ms - Date.now() + (nav && nav.responseStart ? performance.now() - nav.responseStart : 0));
    }
    newest[d.event_id] = d;
    seatCheck(d);
    return d;
  }
  function adopt() {
    for (const el of $$("[data-clock]")) el._clock = el._clock || take(JSON.parse(el.dataset.clock));
    syncControls();
    tick();
  }
  // R-SEAT: this phone's own entry (play/_me.html) is refetched only when its bucket of the seat
  // digest differs from the one it was rendered with, after a random wait: a table break must not
  // bring every phone in the room to the server in the same millisecond.
  function seatCheck(d) {
    const me = $("[data-me][data-seat-bucket][hx-get]");
    if (!me || typeof d.seats !== "string") return;
    const width = me.dataset.seatHash.length, at = width * me.dataset.seatBucket;
    if (d.seats.slice(at, at + width) !== me.dataset.seatHash) refreshMe();
  }
  function refreshMe() {
    seatWait = seatWait || setTimeout(() => {
      const me = $("[data-me][hx-get]");
      seatWait = 0;
      if (me && window.htmx) htmx.trigger(me, "seats");
    }, Math.random() * 1500);
  }
  // A seat alert the phone hasn't announced yet (a move, a first seat, the final table): buzz and
  // beep once, not again at each refresh while it stays on screen.
  on("htmx:load", e => {
    const me = e.detail.elt;
    if (!me.matches || !me.matches("[data-me]")) return;
    const alert = me.querySelector("[data-seat-alert]"), key = alert ? alert.dataset.seatAlert : "";
    if (key && key !== announced) alarm("level", true);
    announced = key;
  });

  // The host's form: keep its version, main button, level and called-clock rows up to date.
  function syncControls() {
    const form = $("#controls"), el = $("[data-clock]"), d = el && el._clock;
    if (!form || !d || +form.elements.version.value >= d.version) return;
    form.elements.version.value = d.version;
    const select = form.querySelector("select"), main = form.querySelector("[data-main]"), s = d.state, error = form.querySelector(".error");
    if (select && D.activeElement !== select) select.value = derive(d, serverNow()).index + 1;
    if (main) [main.value, main.textContent] = !s.started ? ["start", "Start"]
      : s.running_since_ms != null ? ["pause", "Pause"] : ["resume", "Resume"];
    for (const row of $$("[data-shot-on]", form)) row.hidden = !d.shot;
    for (const row of $$("[data-shot-off]", form)) row.hidden = !!d.shot;
    if (error) error.remove();
  }

  // Offset from the server clock: the sample with the shortest round trip of five.
  const getJSON = async url => (await fetch(url, { cache: "no-store" })).json();
  async function sync() {
    const source = $("[data-time-url]");
    if (!source || syncing) return;
    syncing = 1;
    let best = null;
    try {
      for (let k = 0; k < 5; k++) {
        const t0 = Date.now(), p0 = performance.now(), reply = await getJSON(source.dataset.timeUrl);
        const trip = performance.now() - p0;
        if (!best || trip < best[0]) best = [trip, round(reply.server_time_ms - t0 - trip / 2)];
      }
    } catch (e) { /* offline: keep the last estimate */ }
    syncing = 0;
    if (best) {
      [rtt, offset] = [round(best[0]), best[1]];
      tick();
    }
  }

  // Connection: Live / Reconnecting… / Offline; poll the JSON every 5 s while the stream is down.
  function showConnection(state) {
    state = navigator.onLine === false ? "offline" : state;
    for (const p of $$("[data-connection]")) {
      p.textContent = { live: "Live", down: "Reconnecting…", offline: "Offline" }[state];
      p.dataset.state = state;
    }
  }
  function pollSoon() {
    poll = poll || setTimeout(async function again() {
      for (const live of $$("[data-clock-url]")) {
        try {
          const d = take(await getJSON(live.dataset.clockUrl));
          for (const el of $$("[data-clock]", live)) el._clock = d;
        } catch (e) { /* still down */ }
      }
      syncControls();
      tick();
      if (poll) poll = setTimeout(again, 5000);
    }, 5000);
  }
  on("htmx:sseOpen", () => {
    clearTimeout(poll);
    poll = 0;
    showConnection("live");
    if (lost) {                             // whatever happened meanwhile, this phone's seat too
      sync();
      refreshMe();
    }
    lost = 0;
  });
  on("htmx:sseError", () => { lost = 1; showConnection("down"); pollSoon(); });
  on("offline", () => showConnection("offline"), window);
  on("online", () => showConnection(lost ? "down" : "live"), window);
  // A stream message older than the state shown is dropped; any swap brings fragments to adopt.
  on("htmx:sseBeforeMessage", e => {
    const el = e.target.querySelector("[data-clock]"), d = el && el._clock;
    if (d && +e.detail.lastEventId < d.version) e.preventDefault();
  });
  for (const name of ["htmx:afterSwap", "htmx:oobAfterSwap", "htmx:sseMessage"]) on(name, adopt);
  // The host's refused tap (stale version, a rule) comes with the current controls: show them.
  on("htmx:beforeSwap", e => {
    if (e.detail.target.id === "controls" && [400, 409, 422].includes(e.detail.xhr.status)) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });
  const unsent = e => {
    const form = e.target.closest && e.target.closest("#controls");
    if (!form) return;
    const p = form.querySelector(".error") || form.insertBefore(D.createElement("p"), form.querySelector(".control-main"));
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = "No answer from the server, so nothing changed. Tap again.";
  };
  on("htmx:sendError", unsent);
  on("htmx:timeout", unsent);

  // Wake Lock while visible; a hidden page loses it, so ask again, and re-measure, on return.
  const wake = () => {
    if (navigator.wakeLock && !D.hidden && (!lock || lock.released)) {
      navigator.wakeLock.request("screen").then(l => { lock = l; }, () => {});
    }
  };
  on("visibilitychange", () => {
    if (D.hidden) {
      if (lock) lock.release().catch(() => {});
      lock = null;
    } else {
      wake();
      sync();
      tick();
    }
  });

  // Sound toggle: remembered on this device; the tap that turns it on also unlocks Web Audio.
  const unlock = () => {
    if (!audio && window.AudioContext) audio = new AudioContext();
    return audio ? audio.resume().catch(() => {}) : Promise.resolve();
  };
  function showSound() {
    for (const b of $$("[data-sound]")) {
      b.setAttribute("aria-pressed", !!soundOn);
      b.textContent = soundOn ? "Sound on" : "Sound off: tap to turn on";
    }
  }
  on("pointerdown", () => { if (soundOn && (!audio || audio.state !== "running")) unlock(); });
  on("click", e => {
    if (!e.target.closest || !e.target.closest("[data-sound]")) return;
    soundOn = !soundOn;
    try { localStorage.setItem("shuffleup-sound", soundOn ? "1" : "0"); } catch (err) { /* private mode */ }
    showSound();
    if (soundOn) unlock().then(() => alarm("minute"));
  });

  window.shuffleupClock = {
    get offset() { return offset; },
    get rtt() { return rtt; },
    get awake() { return !!lock && !lock.released; },
    get audio() { return audio && audio.state; },
    view(at) {
      const el = $("[data-clock]");
      return el && el._clock && derive(el._clock, at ?? serverNow());
    },
    derive, shotView, clockTime, chips,
  };
  showSound();
  adopt();
  pollSoon();                               // until the stream opens (or if it never does)
  sync();
  setInterval(sync, 5 * MIN);
  wake();
})();
