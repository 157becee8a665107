#!/usr/bin/env python3
"""How exactly do phones show the shared clock? (issue "Beat both on every line", R-CLOCK-3)

    python tests/bench/clock_sync.py                  # 5 phones, 20 s of a running clock
    python tests/bench/clock_sync.py --devices 5 --seconds 20 --json out.json

Starts the app as clock_load.py does (gunicorn, gevent, fresh SQLite), starts the clock as the
host, then opens --devices Playwright contexts (Debian's Chromium, 390×844 phones) on the
player's clock page /events/<id>. In each page a MutationObserver on the clock records the
moment (performance.timeOrigin + performance.now(), epoch ms) each time the displayed time
`[data-field=time]` changes, for --seconds.

The truth: the server's clock state (running_since_ms, item_elapsed_ms, the level's length)
says when the display should change to S seconds: the moment the remaining time reaches
S × 1000 ms (the clock rounds up, as blueprints/filters.py's clock_time does). Each observed flip
is compared with that moment twice:
  - "page": in the page's own frame, with the offset the page estimated from /api/time
    (window.shuffleupClock.offset): flip + offset − truth. How well the page acts on its estimate.
  - "true": on the machine's one clock (Date.now() in the page and time.time() here read the
    same clock, so the true offset is 0): flip − truth. What a person comparing two phones sees,
    offset estimation error included.
Positive = late. Target: within 100 ms. Also reported: the first animation frame after each
change (when the new digits can be painted), and, from a first visit in a fresh context before
the phones open, the bytes the server sent for the page, its assets and the service worker.

static/js/clock.js is written by another engineer: if it or window.shuffleupClock is missing,
this waits (polling, up to --wait-js seconds, default 20 minutes) before measuring.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench import clock_load  # noqa: E402

CHROMIUM = "/usr/lib/chromium/chromium"
# The usual flags (shared/NOTES.md), plus: each context stands for one phone in someone's hand,
# in the foreground; headless Chromium must not throttle the "background" ones.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync",
                  "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                  "--disable-backgrounding-occluded-windows"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
TARGET_MS = 100

OBSERVE = """() => {
  window.__flips = [];
  const read = () => { const el = document.querySelector('[data-field="time"]'); return el ? el.textContent : null; };
  let last = read();
  new MutationObserver(() => {
    const at = performance.timeOrigin + performance.now(), date = Date.now(), text = read();
    if (text === last) return;
    last = text;
    const flip = {at, date, text, offset: window.shuffleupClock.offset, rtt: window.shuffleupClock.rtt, frame: null};
    window.__flips.push(flip);
    requestAnimationFrame(() => { flip.frame = performance.timeOrigin + performance.now(); });
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def wait_for_clock_js(seconds: float) -> None:
    """Poll for static/js/clock.js exposing window.shuffleupClock (another engineer is writing it)."""
    path = ROOT / "static" / "js" / "clock.js"
    deadline = time.monotonic() + seconds
    while True:
        if path.exists() and "shuffleupClock" in path.read_text(errors="replace"):
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} with window.shuffleupClock did not appear within {seconds:.0f} s")
        log(f"waiting for {path} (window.shuffleupClock)…")
        time.sleep(min(30, max(1, deadline - time.monotonic())))


def seconds_shown(text: str) -> int | None:
    """'m:ss' or 'h:mm:ss' → seconds; None for overtime ('+…') or anything else."""
    if not text or text.startswith("+"):
        return None
    try:
        parts = [int(p) for p in text.strip().split(":")]
    except ValueError:
        return None
    total = 0
    for p in parts:
        total = total * 60 + p
    return total


def truth_from_state(clock: dict):
    """The server's state → a function: seconds S → epoch ms when the display should turn to S."""
    state = clock["state"]
    if state["running_since_ms"] is None:
        raise RuntimeError("the clock is not running")
    length = clock["structure"][state["index"]]["minutes"] * 60_000
    ends = state["running_since_ms"] + length - state["item_elapsed_ms"]  # the level's end, server time
    return lambda s: ends - s * 1000, ends


def summarise(errors: list[float]) -> dict:
    return {"n": len(errors), "median": statistics.median(errors), "median_abs": statistics.median(map(abs, errors)),
            "max_abs": max(map(abs, errors)), "min": min(errors), "max": max(errors)}


def first_visit(browser, url: str, access_log: Path) -> dict:
    """A phone's first visit in a fresh context: what the server sent (gunicorn's access log, body
    bytes as sent, i.e. compressed) for the page and its loads, and after it for the service
    worker's install (its script and precache), which starts after the page's load event."""
    mark = access_log.stat().st_size if access_log.exists() else 0
    context = browser.new_context(**PHONE)
    page = context.new_page()
    asked: set[str] = set()
    page.on("request", lambda request: asked.add(urllib.parse.urlsplit(request.url).path))
    page.goto(url, wait_until="load")
    page.wait_for_function("() => window.shuffleupClock && window.shuffleupClock.rtt != null")
    installed = page.evaluate("""() => !navigator.serviceWorker ? 'no service worker' : Promise.race([
        navigator.serviceWorker.ready.then(() => 'installed'),
        new Promise(done => setTimeout(() => done('not installed within 10 s'), 10000))])""")
    time.sleep(1)
    context.close()
    time.sleep(0.5)  # the stream's line is logged when it closes
    with open(access_log, "rb") as log_file:
        log_file.seek(mark)
        lines = log_file.read().decode(errors="replace").splitlines()
    page_rows, worker_rows = [], []
    for line in lines:
        parts = line.split()
        if len(parts) != 4 or parts[0] != "GET":
            continue
        row = {"path": parts[1], "status": int(parts[2]), "bytes": 0 if parts[3] == "-" else int(parts[3])}
        (page_rows if row["path"] in asked else worker_rows).append(row)
    return {"service_worker": installed, "page": page_rows, "worker": worker_rows,
            "page_bytes": sum(r["bytes"] for r in page_rows if not r["path"].endswith("/stream")),
            "worker_bytes": sum(r["bytes"] for r in worker_rows)}


def measure(base: str, event_id: int, devices: int, seconds: float, access_log: Path | None = None) -> dict:
    from playwright.sync_api import sync_playwright
    url = f"{base}/events/{event_id}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            visit = first_visit(browser, url, access_log) if access_log else None
            pages = []
            for _ in range(devices):
                context = browser.new_context(**PHONE)
                context.set_default_timeout(20_000)
                page = context.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                page.goto(url)
                page.wait_for_function("() => window.shuffleupClock && window.shuffleupClock.rtt != null")
                page.wait_for_selector('[data-connection][data-state="live"]')
                pages.append((page, errors))
            for page, _ in pages:  # all loaded first: one watch window for every phone, no page loading in it
                page.evaluate(OBSERVE)
            log(f"{devices} phones live; watching the displayed second for {seconds:.0f} s")
            time.sleep(seconds)
            out = []
            for page, errors in pages:
                out.append({"flips": page.evaluate("() => window.__flips"),
                            "offset": page.evaluate("() => window.shuffleupClock.offset"),
                            "rtt": page.evaluate("() => window.shuffleupClock.rtt"),
                            "date_minus_origin_now": page.evaluate(
                                "() => Date.now() - (performance.timeOrigin + performance.now())"),
                            "errors": errors})
            return {"pages": out, "first_visit": visit}
        finally:
            browser.close()


def run(opts) -> dict:
    wait_for_clock_js(opts.wait_js)
    if not os.access(CHROMIUM, os.X_OK):
        raise SystemExit(f"Chromium is missing at {CHROMIUM} (apt-get install -y chromium; never `playwright install`)")
    workdir = Path(tempfile.mkdtemp(prefix="shuffleup-clock-sync-"))
    server = None
    try:
        with clock_load.database("sqlite", workdir) as url:
            clock_load.migrate(url)
            event_id = clock_load.seed(url)
            access_log = workdir / "access.log"
            server = clock_load.Server(clock_load.server_env(url, None), 1, clock_load.free_port(),
                                       workdir / "gunicorn.log", ["--access-logfile", str(access_log),
                                                                  "--access-logformat", "%(m)s %(U)s %(s)s %(B)s"])
            server.start()
            host = clock_load.Host(server.base, event_id)
            host.login()
            host.act("start", clock_load.clock_json(server.base, event_id)["version"])
            clock = clock_load.clock_json(server.base, event_id)
            should_turn, level_ends = truth_from_state(clock)
            measured = measure(server.base, event_id, opts.devices, opts.seconds, access_log)
            after = clock_load.clock_json(server.base, event_id)
            if after["version"] != clock["version"]:
                raise RuntimeError("the clock changed during the measurement")
            # the same truth read the other way: the JSON's remaining_ms at its server_time_ms
            cross_check = after["server_time_ms"] + after["remaining_ms"] - level_ends
            server.stop()
    finally:
        if server is not None:
            server.kill()
        shutil.rmtree(workdir, ignore_errors=True)

    devices = []
    for k, page in enumerate(measured["pages"], 1):
        page_err, true_err, frame_err = [], [], []
        for flip in page["flips"]:
            s = seconds_shown(flip["text"])
            if s is None:
                continue
            truth = should_turn(s)
            flip["true_error_ms"] = round(flip["at"] - truth, 1)
            true_err.append(flip["at"] - truth)
            page_err.append(flip["at"] + (flip["offset"] or 0) - truth)
            if flip["frame"] is not None:
                frame_err.append(flip["frame"] - truth)
        if not true_err:
            raise RuntimeError(f"phone {k} showed no change of second in {opts.seconds} s: {page['flips'][:3]}")
        devices.append({"device": k, "offset_ms": page["offset"], "rtt_ms": page["rtt"], "flips": len(true_err),
                        "page": summarise(page_err), "true": summarise(true_err),
                        "frame": summarise(frame_err) if frame_err else None,
                        "date_minus_perf_ms": page["date_minus_origin_now"], "page_errors": page["errors"],
                        "flip_log": page["flips"]})
    everything = [e for d in devices for e in (d["true"]["max_abs"], d["page"]["max_abs"])]
    return {"devices": devices, "seconds": opts.seconds, "state_vs_json_ms": cross_check,
            "first_visit": measured["first_visit"],
            "worst_ms": max(everything), "nproc": os.cpu_count(), "python": sys.version.split()[0],
            "loadavg": os.getloadavg()[0]}


def report(r: dict) -> str:
    lines = [f"ShuffleUp clock sync: {len(r['devices'])} phones (Chromium, 390×844), {r['seconds']:.0f} s; "
             f"nproc {r['nproc']}, Python {r['python']}, load average {r['loadavg']:.2f}; "
             f"truth from state vs JSON differ by {r['state_vs_json_ms']} ms",
             "device | offset est. ms | rtt ms | flips | page-frame error median / max|·| ms | "
             "true error median / max|·| ms | first frame after, median ms"]
    for d in r["devices"]:
        frame = f"{d['frame']['median']:.1f}" if d["frame"] else "–"
        lines.append(f"{d['device']} | {d['offset_ms']} | {d['rtt_ms']} | {d['flips']} | "
                     f"{d['page']['median']:+.1f} / {d['page']['max_abs']:.1f} | "
                     f"{d['true']['median']:+.1f} / {d['true']['max_abs']:.1f} | {frame}")
    lines.append(f"worst |error| {r['worst_ms']:.1f} ms (target ≤ {TARGET_MS}: "
                 f"{'OK' if r['worst_ms'] <= TARGET_MS else 'MISSED'})")
    v = r.get("first_visit")
    if v:
        lines.append(f"first visit in Chromium (body bytes the server sent, compressed): page and its loads "
                     f"{v['page_bytes']:,} B; then the service worker ({v['service_worker']}) "
                     f"{v['worker_bytes']:,} B more "
                     f"(the clock stream, not counted: its first message is the clock fragment again)")
        for row in v["page"] + [dict(w, path="(worker) " + w["path"]) for w in v["worker"]]:
            if row["path"].endswith("/stream"):
                continue
            lines.append(f"  {row['path']}: {row['status']}, {row['bytes']:,} B")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--devices", type=int, default=5, help="phones (browser contexts), default 5")
    parser.add_argument("--seconds", type=float, default=20, help="how long to watch, default 20")
    parser.add_argument("--wait-js", type=float, default=1200, help="seconds to wait for clock.js (default 1200)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures (with every flip) as JSON")
    opts = parser.parse_args(argv)
    if not 1 <= opts.devices <= 20 or not 3 <= opts.seconds <= 600:
        parser.error("1–20 devices, 3–600 seconds")
    results = run(opts)
    print(report(results))
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
