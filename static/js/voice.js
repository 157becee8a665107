// The big screen's voice (the room's TV): with its switch on, it says level and break changes ("Level 6.
// Blinds 300, 600, ante 600"), each hand-for-hand hand ("Deal now. Hand 3."), the called clock's last
// ten seconds, table breaks, the final table and each seat move by name ("Wren: table 1, seat 8"), through the browser's speech synthesis (an
// Australian English voice where the device has one). One thing at a time, from its own queue: a
// count that fell behind is dropped, never said late. A level change is said after the chime every
// phone plays at that moment (the host's among them), so the two are never heard over each other.
// Off by default and on each load: a browser speaks only after a tap on the page.
const CHIME_MS = 1200;    // the longest change chime of clock.js (TONES), and a breath after it
const button = document.querySelector("[data-voice]");
const said = (window.shuffleupSaid = []);   // every text queued, in order: what the browser tests read
const queue = [];
let voiceOn = false, speaking = false, guard = 0, digest = null, seated = null, fetching = false;

const plain = number => String(number ?? 0);   // "1000", not "1,000": a comma is a pause when spoken
const voice = () => speechSynthesis.getVoices().find(v => v.lang.replace("_", "-") === "en-AU") || null;

function say(text, staleMs = 60000) {
  if (!voiceOn) return;
  said.push(text);
  queue.push({ text, until: Date.now() + staleMs });
  speakNext();
}
function speakNext() {
  if (speaking) return;
  let item = queue.shift();
  while (item && Date.now() > item.until) item = queue.shift();
  if (!item || !window.speechSynthesis) return;
  const utterance = new SpeechSynthesisUtterance(item.text);
  utterance.lang = "en-AU";
  utterance.voice = voice();
  const done = () => {
    if (!speaking) return;
    speaking = false;
    clearTimeout(guard);
    speakNext();
  };
  utterance.onend = utterance.onerror = done;
  speaking = true;
  guard = setTimeout(done, 2000 + item.text.length * 100);   // an engine that never says it ended
  speechSynthesis.speak(utterance);
}

function levelText(view) {
  if (view.is_break) return `${view.break_label || "Break"}. ${Math.round(view.remaining_ms / 60000)} minutes.`;
  const ante = view.ante ? `, ante ${plain(view.ante)}` : "";
  return `Level ${view.level_number}. Blinds ${plain(view.small_blind)}, ${plain(view.big_blind)}${ante}`;
}
// What the clock shows now, as clock.js derives it (window.shuffleupClock), looked at four times a second:
// a change of level or break, and each second of a called clock's count.
let was = null;
function listen() {
  const clock = window.shuffleupClock, stored = document.querySelector("[data-clock]")?._clock;
  const view = clock?.offset != null && stored && !stored.settled ? clock.view() : null;
  if (!view) return;
  const shot = stored.shot && clock.shotView(stored.shot, Date.now() + clock.offset);
  const hand = stored.hand_for_hand ? stored.hand : null;
  const now = { index: view.index, phase: shot?.phase, seconds: shot && Math.ceil(shot.remaining_ms / 1000), hand };
  if (was && voiceOn) {
    if (hand && hand !== was.hand) say(`Deal now. Hand ${hand}.`, 10000);   // R-HFH-2: every table at once
    if (now.index !== was.index) {
      const text = levelText(view);
      setTimeout(() => say(text), CHIME_MS);
    }
    if (now.phase === "count" && (now.seconds !== was.seconds || was.phase !== "count")) say(plain(now.seconds), 900);
    else if (now.phase === "expired" && was.phase !== "expired") say("Time.", 3000);
  }
  was = now;
}
setInterval(listen, 250);
document.addEventListener("shuffleup:clock", listen);   // and every new state, however soon the next comes

// R-SEAT-1..4: when the clock's seat digest moves, read the seats and say what changed.
async function readSeats() {
  const clock = document.querySelector("[data-clock]")?._clock;
  if (!voiceOn || !clock || typeof clock.seats !== "string" || clock.seats === digest || fetching) return;
  fetching = true;
  const seen = clock.seats;
  try {
    const answer = await fetch(button.dataset.seatsUrl, { cache: "no-store" });
    if (!answer.ok) return;
    const now = await answer.json();
    digest = seen;
    if (seated) tellMoves(seated, now);
    seated = now;
  } catch { /* offline: the next change asks again */ } finally {
    fetching = false;
  }
  // Moved again while it was asked: once more (a failed read waits for the next change instead).
  if (digest === seen && digest !== document.querySelector("[data-clock]")?._clock?.seats) readSeats();
}
function tellMoves(before, after) {
  const where = list => new Map(list.seats.map(row => [row.name, row]));
  const was = where(before), tables = list => new Set(list.seats.map(row => row.table));
  const left = tables(after);
  const moved = after.seats.filter(row => was.has(row.name)
    && (was.get(row.name).table !== row.table || was.get(row.name).seat !== row.seat));
  if (after.final_table && !before.final_table) say(`Final table. Everyone to table ${[...left][0]}.`);
  else for (const table of tables(before)) if (!left.has(table) && moved.length) say(`Table ${table} breaks.`);
  for (const row of moved) say(`${row.name}: table ${row.table}, seat ${row.seat}`);
}
document.addEventListener("shuffleup:clock", readSeats);

function showVoice() {
  button.setAttribute("aria-pressed", voiceOn);
  button.textContent = voiceOn ? "Voice on" : "Voice off: tap to turn on";
}
button?.addEventListener("click", () => {
  voiceOn = !voiceOn;
  showVoice();
  if (!voiceOn) {
    queue.length = 0;
    speechSynthesis?.cancel();
    return;
  }
  seated = null;   // a fresh look at the seats: what changes from now on is said
  digest = null;
  readSeats();
});
