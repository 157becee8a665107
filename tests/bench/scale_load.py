#!/usr/bin/env python3
"""A hosted league at scale: many nights at once, thousands of phones, every night's host tapping
the clock every few seconds, for minutes, against the production set-up (gunicorn gevent workers,
PostgreSQL, change notices through Redis).

    python tests/bench/scale_load.py                                  # 200 nights, 5,000 phones, 10 min
    python tests/bench/scale_load.py --nights 20 --phones 500 --minutes 1
    python tests/bench/scale_load.py --sqlite --workers 1             # the embedded set-up instead

Phones are spread evenly over the nights and hold `/events/<id>/stream` from this one asyncio
process (clock_load's raw-socket SSE Phone). Each night's host taps pause or resume at random
intervals (--every, default 2–4 s; seeded), through the real clock form, with the version its
screen saw, over the night's host's line (one WebSocket per night, as the night screen keeps it;
--host-line fresh: each tap a POST on a fresh connection). For every tap: the answer time, each of that night's phones' receipt, and
whether all had it within --timeout. Reported: delivery and host-action median/p95/p99/max, taps
and deliveries per second, errors, phones left behind (a tap they never got), RSS of every server
process (sampled; the maximum of the sum), server CPU, and what the shared services did
(Redis: CPU and messages published; PostgreSQL: commits per second, connections), with the
machine's load. Traffic goes to 127.0.0.1 only; the run stops by itself. Not collected by pytest:
tests/bench/test_scale_load.py runs it at a tiny scale.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parents[1]) not in sys.path:
    sys.path.insert(0, str(HERE.parents[1]))

from tests.bench import clock_load  # noqa: E402
from tests.bench.clock_load import (  # noqa: E402
    Fanout,
    Host,
    HostSocket,
    Phone,
    Server,
    database,
    free_port,
    log,
    machine_busy_pct,
    machine_ticks,
    migrate,
    post_action,
    server_env,
    summary,
)

ORGANISER, PASSWORD = "organiser", "pw-bench-organiser"


def seed(url: str, nights: int) -> list[int]:
    """One league with a venue per night, an organiser who runs them all, and tonight's nights
    (running); → their event ids."""
    from app import create_app
    from services import leagues
    from services.models import Event, User, Venue
    from wiring.extensions import db
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        league = leagues.create_league("Scale League", "free")
        organiser = User(username=ORGANISER, display_name="Organiser", role="organiser", league_id=league.id)
        organiser.set_password(PASSWORD)
        venues = [Venue(league_id=league.id, name=f"Venue {n + 1}") for n in range(nights)]
        db.session.add_all([organiser, *venues])
        db.session.flush()
        events = [Event(league_id=league.id, venue_id=v.id, event_type="nightly", date=league.today(),
                        host_id=organiser.id, status="running") for v in venues]
        db.session.add_all(events)
        db.session.commit()
        ids = [e.id for e in events]
        db.session.remove()
        db.engine.dispose()
    return ids


class Organiser(Host):
    """The organiser's browser: one login, then any night's clock form."""

    def form_for(self, event_id: int, action: str, version: int) -> tuple[bytes, bytes]:
        self.event_id = event_id
        return self.form(action, version)


def login(base: str, event_id: int) -> Organiser:
    host = Organiser(base, event_id, ORGANISER, PASSWORD)
    host.login()
    return host


class Services:
    """What the shared services did over the run: Redis CPU and publishes, PostgreSQL commits."""

    def __init__(self, redis_url: str | None, pg_url: str | None) -> None:
        self.redis_url, self.pg_url = redis_url, pg_url

    def read(self) -> dict:
        out: dict = {"time": time.monotonic()}
        if self.redis_url:
            import redis
            r = redis.Redis.from_url(self.redis_url)
            cpu = r.info("cpu")
            stats = r.info("commandstats").get("cmdstat_publish", {})
            out["redis_cpu_s"] = cpu["used_cpu_sys"] + cpu["used_cpu_user"]
            out["redis_publishes"] = stats.get("calls", 0)
            r.close()
        if self.pg_url:
            import psycopg
            with psycopg.connect(self.pg_url) as pg:
                name = self.pg_url.rsplit("/", 1)[1]
                out["pg_commits"] = pg.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s",
                                               (name,)).fetchone()[0]
                out["pg_connections"] = pg.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                                                   (name,)).fetchone()[0]
        return out

    @staticmethod
    def delta(before: dict, after: dict) -> dict:
        seconds = after["time"] - before["time"]
        out = {}
        if "redis_cpu_s" in after:
            out["redis_cpu_pct"] = (after["redis_cpu_s"] - before["redis_cpu_s"]) / seconds * 100
            out["redis_publishes_per_s"] = (after["redis_publishes"] - before["redis_publishes"]) / seconds
        if "pg_commits" in after:
            out["pg_commits_per_s"] = (after["pg_commits"] - before["pg_commits"]) / seconds
            out["pg_connections"] = after["pg_connections"]
        return out


async def run_league(server: Server, host: Organiser, event_ids: list[int], opts) -> dict:
    loop = asyncio.get_running_loop()
    rng = random.Random(opts.seed)
    fanouts = {event_id: Fanout() for event_id in event_ids}
    gate = asyncio.Semaphore(100)
    started = time.perf_counter()

    async def open_phone(event_id: int) -> None:
        request = (f"GET /events/{event_id}/stream HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                   "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode()
        async with gate:
            _, phone = await loop.create_connection(lambda: Phone(fanouts[event_id], request), "127.0.0.1",
                                                    server.port)
            fanouts[event_id].phones.append(phone)
            await asyncio.wait_for(asyncio.shield(phone.first), opts.timeout)

    await asyncio.gather(*(open_phone(event_ids[n % len(event_ids)]) for n in range(opts.phones)))
    out: dict = {"seconds_to_connect_all": time.perf_counter() - started}
    log(f"    {opts.phones} phones on {len(event_ids)} nights in {out['seconds_to_connect_all']:.1f} s")
    versions = {}
    for event_id in event_ids:  # every clock started, untimed
        version = min(p.received and min(p.received) or 0 for p in fanouts[event_id].phones)
        status, _ = await post_action(server.port, *host.form_for(event_id, "start", version), [])
        if status != 200:
            raise RuntimeError(f"could not start night {event_id}: {status}")
        versions[event_id] = version + 1
    await asyncio.sleep(2)

    deliveries: list[float] = []
    replies: list[float] = []
    slow: list[float] = []  # when each tap answered in over SLOW_MS was sent (perf_counter)
    errors: dict[str, int] = {}
    errors_seen: list[tuple[float, str]] = []  # the first few, with when (s into the run): what went wrong
    left_behind = 0
    taps = 0
    rss_samples: list[int] = []
    deadline = time.perf_counter() + opts.minutes * 60
    low, high = opts.every

    async def night(event_id: int) -> None:
        nonlocal left_behind, taps
        fanout, running = fanouts[event_id], True
        line = HostSocket(server.port, event_id, host.cookie()) if opts.host_line == "socket" else None
        await asyncio.sleep(rng.uniform(0, high))  # the nights do not tap in step
        while time.perf_counter() < deadline:
            version = versions[event_id]
            action = "pause" if running else "resume"
            everyone = fanout.expect(version + 1)
            sent_box: list[float] = []
            head, body = host.form_for(event_id, action, version)
            try:
                status, replied = await (line.tap(body, sent_box) if line
                                         else post_action(server.port, head, body, sent_box))
            except (TimeoutError, OSError, RuntimeError) as problem:  # RuntimeError: the line closed
                errors[type(problem).__name__] = errors.get(type(problem).__name__, 0) + 1
                if len(errors_seen) < ERRORS_KEPT:
                    errors_seen.append((round(time.perf_counter() - t0, 1), f"night {event_id}: {problem!r}"))
                if line:
                    line.close()
                await asyncio.sleep(rng.uniform(low, high))
                continue
            if status != 200:
                errors[f"HTTP {status}"] = errors.get(f"HTTP {status}", 0) + 1
                await asyncio.sleep(rng.uniform(low, high))
                continue
            sent = sent_box[0]
            replies.append((replied - sent) * 1000)
            if replies[-1] > SLOW_MS:
                slow.append(sent)
            taps += 1
            versions[event_id], running = version + 1, not running
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(everyone), opts.timeout)
            for phone in fanout.phones:
                if version + 1 in phone.received:
                    deliveries.append((phone.received[version + 1] - sent) * 1000)
                else:
                    left_behind += 1
            await asyncio.sleep(rng.uniform(low, high))
        if line:
            line.close()

    async def sample_rss() -> None:
        while time.perf_counter() < deadline:
            rss_samples.append(sum(server.rss_kb().values()))
            await asyncio.sleep(5)

    machine: list[tuple[float, list[int]]] = []  # (s into the run, /proc/stat's cpu jiffies)

    async def sample_machine() -> None:
        while time.perf_counter() < deadline:
            machine.append((time.perf_counter() - t0, cpu_jiffies()))
            await asyncio.sleep(MACHINE_EVERY_S)

    services = Services(opts.redis_url_used, opts.pg_url_used)
    before = await asyncio.to_thread(services.read)
    cpu0, m0, t0 = server.cpu_seconds(), machine_ticks(), time.perf_counter()
    load0 = os.getloadavg()[0]
    started_at = time.time()
    await asyncio.gather(sample_rss(), sample_machine(), *(night(event_id) for event_id in event_ids))
    seconds = time.perf_counter() - t0
    after = await asyncio.to_thread(services.read)
    out.update({
        "host_line": opts.host_line, "seconds": seconds, "taps": taps, "taps_per_s": taps / seconds, "deliveries": len(deliveries),
        "deliveries_per_s": len(deliveries) / seconds, "delivery_ms": summary(deliveries) if deliveries else None,
        "host_action_ms": summary(replies) if replies else None, "errors": errors, "errors_seen": errors_seen,
        "left_behind": left_behind,
        "lost_streams": sum(1 for f in fanouts.values() for p in f.phones if p.closed.done()),
        "server_cpu_pct": (server.cpu_seconds() - cpu0) / seconds * 100,
        "machine_busy_pct": machine_busy_pct(m0, machine_ticks()), "loadavg_before": load0,
        "loadavg_after": os.getloadavg()[0], "rss_mib_max": max(rss_samples, default=0) / 1024,
        "rss_kb_per_process": server.rss_kb(), "services": Services.delta(before, after),
        "slow_taps": bursts([t - t0 for t in slow]), "started_at": started_at,
        "machine_steal_pct": during(machine, 0, seconds)["steal_pct"],
    })
    out["slow_taps"]["machine"] = [during(machine, start - MACHINE_EVERY_S, end + MACHINE_EVERY_S)
                                   for start, _, end in out["slow_taps"]["bursts"]]
    for fanout in fanouts.values():
        for phone in fanout.phones:
            phone.transport.close()
    await asyncio.sleep(0.2)
    return out


def run(opts) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < opts.phones + 1000:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, opts.phones + 2000), hard))
    workdir = Path(tempfile.mkdtemp(prefix="shuffleup-scale-"))
    kind = "sqlite" if opts.sqlite else "postgresql"
    results: dict = {"nights": opts.nights, "phones": opts.phones, "minutes": opts.minutes, "workers": opts.workers,
                     "database": kind, "redis": not opts.no_redis, "nproc": os.cpu_count()}
    server = None
    try:
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(database(kind, workdir))
            redis_url = None if opts.no_redis else stack.enter_context(clock_load.private_redis(workdir))
            opts.redis_url_used, opts.pg_url_used = redis_url, (url if kind == "postgresql" else None)
            migrate(url)
            event_ids = seed(url, opts.nights)
            env = server_env(url, redis_url)
            server = Server(env, opts.workers, free_port(), workdir / "gunicorn.log",
                            extra_args=["--worker-connections", str(max(2000, opts.phones + 500))])
            results["boot_s"] = round(server.start(), 2)
            log(f"gunicorn: {opts.workers} worker(s) on {server.base}, {kind}" + (", Redis" if redis_url else ""))
            host = login(server.base, event_ids[0])
            gc.collect()
            gc.freeze()
            gc.disable()
            try:
                results.update(asyncio.run(run_league(server, host, event_ids, opts)))
            finally:
                gc.enable()
            server.stop()
            results["server_errors"] = server_errors(workdir / "gunicorn.log")
    finally:
        if server is not None:
            server.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    return results


SLOW_MS = 100  # a tap answered slower than the target's p99
ERRORS_KEPT = 10  # errors reported word for word
MACHINE_EVERY_S = 0.5  # how often the machine's CPU time is read, to tell what it did during a burst


def cpu_jiffies() -> list[int]:
    """The machine's CPU time so far from /proc/stat: user, nice, system, idle, iowait, irq,
    softirq, steal (jiffies)."""
    return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]


def during(samples: list[tuple[float, list[int]]], start: float, end: float) -> dict:
    """What the machine's CPUs did from `start` to `end` (s into the run), from the samples around
    it: the share of time stolen by the hypervisor (another guest ran), waiting on the disk, and
    busy (steal included), in %. A burst of slow taps while the VM was not running is the VM's."""
    inside = [fields for t, fields in samples if start <= t <= end]
    before = [fields for t, fields in samples if t < start][-1:]
    after = [fields for t, fields in samples if t > end][:1]
    span = before + inside + after
    if len(span) < 2:
        return {"steal_pct": None, "iowait_pct": None, "busy_pct": None}
    delta = [b - a for a, b in zip(span[0], span[-1])]
    total = max(1, sum(delta))
    return {"steal_pct": round(100 * delta[7] / total, 1), "iowait_pct": round(100 * delta[4] / total, 1),
            "busy_pct": round(100 * (total - delta[3] - delta[4]) / total, 1)}


def server_errors(logfile: Path) -> list[str]:
    """The first lines of the server's log that tell of an error (a traceback, a logged error or
    warning): kept before the run's folder is removed, to say why a client saw one."""
    if not logfile.exists():
        return []
    told = [line for line in logfile.read_text(errors="replace").splitlines()
            if any(word in line for word in ("Traceback", "Error", "ERROR", "WARNING", "[CRITICAL]"))]
    return told[:ERRORS_KEPT]


def bursts(times: list[float], within: float = 1.0) -> dict:
    """Taps answered in over SLOW_MS, by when they were sent (seconds into the run): how many, and
    the bursts they come in (taps less than `within` s apart), each as (start s, taps, end s), so
    that a cause on a timer (a heartbeat round every 20 s) shows as its period."""
    groups: list[list[float]] = []
    for t in sorted(times):
        if groups and t - groups[-1][-1] < within:
            groups[-1].append(t)
        else:
            groups.append([t])
    starts = [g[0] for g in groups]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    return {"count": len(times), "bursts": [(round(g[0], 1), len(g), round(g[-1], 1)) for g in groups],
            "median_gap_s": statistics.median(gaps) if gaps else None}


def report(r: dict) -> str:
    d, h = r["delivery_ms"], r["host_action_ms"]
    lines = [f"{r['nights']} nights, {r['phones']} phones, {r['minutes']} min; {r['workers']} gevent worker(s), "
             f"{r['database']}{' + Redis' if r['redis'] else ''}; nproc {r['nproc']}; load average "
             f"{r['loadavg_before']:.2f} before, {r['loadavg_after']:.2f} after; machine {r['machine_busy_pct']:.0f} % busy",
             f"taps: {r['taps']:,} ({r['taps_per_s']:.1f}/s); deliveries: {r['deliveries']:,} "
             f"({r['deliveries_per_s']:.0f}/s); errors: {r['errors'] or 'none'}; phones left behind: "
             f"{r['left_behind']}; streams lost: {r['lost_streams']}"]
    if d:
        lines.append(f"delivery: median {d['median']:.1f} ms, p95 {d['p95']:.1f}, p99 {d['p99']:.1f}, max {d['max']:.1f}")
    if h:
        lines.append(f"host action ({'over the host' + chr(39) + 's line' if r.get('host_line') == 'socket' else 'POST'}, "
                     f"answered): median {h['median']:.1f} ms, p95 {h['p95']:.1f}, "
                     f"p99 {h['p99']:.1f}, max {h['max']:.1f}")
    slow = r.get("slow_taps")
    if slow:
        lines.append(f"taps answered in over {SLOW_MS} ms: {slow['count']} in {len(slow['bursts'])} bursts"
                     + (f", a median {slow['median_gap_s']:.1f} s apart" if slow["median_gap_s"] is not None else "")
                     + "; first bursts (s into the run, taps): "
                     + ", ".join(f"{start}:{n}" for start, n, _ in slow["bursts"][:12]))
        worst = sorted(zip(slow["bursts"], slow.get("machine", [{}] * len(slow["bursts"]))),
                       key=lambda pair: -pair[0][1])[:5]
        lines.append("largest bursts, and the machine then (steal, iowait, busy %): " + "; ".join(
            f"{start}–{end} s {n} taps: {m.get('steal_pct')}, {m.get('iowait_pct')}, {m.get('busy_pct')}"
            for (start, n, end), m in worst))
    if r.get("machine_steal_pct") is not None:
        lines.append(f"CPU time stolen from this VM over the run: {r['machine_steal_pct']} %")
    lines.append(f"RSS of all server processes: max {r['rss_mib_max']:.1f} MiB; server CPU {r['server_cpu_pct']:.0f} % "
                 f"of one core")
    for at, problem in r.get("errors_seen", []):
        lines.append(f"error at {at} s: {problem}")
    for line in r.get("server_errors", []):
        lines.append(f"server log: {line}")
    s = r["services"]
    if s:
        lines.append("services: " + ", ".join(f"{k} {v:.1f}" for k, v in s.items()))
    return "\n".join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--phones", type=int, default=5000)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", default="2,4", help="seconds between one night's taps: low,high (default 2,4)")
    parser.add_argument("--sqlite", action="store_true", help="the embedded SQLite file instead of PostgreSQL")
    parser.add_argument("--no-redis", action="store_true", help="no Redis (only right with one worker)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds a tap may take to reach every phone")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host-line", choices=("socket", "fresh"), default="socket",
                        help="each night's taps over its host's line, one WebSocket per night (socket, the "
                             "default), or each a POST on a fresh connection (fresh)")
    parser.add_argument("--json", metavar="FILE")
    opts = parser.parse_args(argv)
    opts.every = tuple(float(x) for x in opts.every.split(","))
    if opts.nights < 1 or opts.phones < opts.nights or len(opts.every) != 2 or not 0 < opts.every[0] <= opts.every[1]:
        parser.error("nights ≥ 1, phones ≥ nights, --every low,high with 0 < low ≤ high")
    return opts


def main(argv=None) -> int:
    opts = parse_args(argv)
    results = run(opts)
    print(report(results))
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
