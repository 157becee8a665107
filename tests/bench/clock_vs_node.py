#!/usr/bin/env python3
"""Side by side: ShuffleUp's clock and the open-source Node clock `Dadulit/Poker-clock` (express +
socket.io, in memory, no login), the same phones and taps against each, interleaved run by run.

    python tests/bench/clock_vs_node.py --node-dir DIR                    # 100, 500, 1000 phones, 3 runs
    python tests/bench/clock_vs_node.py --node-dir DIR --clients 500 --runs 1

DIR is a checkout of https://github.com/Dadulit/Poker-clock with its packages installed
(`npm ci` in it); it is run, never committed. Both servers on 127.0.0.1 only, one at a time.

For each size and run: ShuffleUp (`clock_load.run`: gunicorn gevent, 1 worker, SQLite, SSE) and
then the Node clock (`node server.js`, socket.io over WebSocket), each with N phones held by this
one asyncio process and K host taps of the kinds both clocks have (pause, resume, next level,
previous level), sent as each clock's host screen sends them: ShuffleUp's over the host's line
(one WebSocket, blueprints/host/line.py), the Node clock's over its admin socket.io socket. A Node phone has a tap when a `state:update` showing its effect arrives (paused,
running, the new level): the Node clock also sends every phone its whole state once a second
while running, so its server CPU per tap is given raw and less that background (the idle rate
measured with the clock running), and the ratio uses the latter. Figures: per-phone delivery
median/p95/p99/max, "all phones have it" median/p99, server CPU per tap, RSS; then the median of
the runs and ShuffleUp ÷ Node for each. Not collected by pytest; tests/bench/test_clock_load.py
runs the Node client's framing on its own.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parents[1]) not in sys.path:
    sys.path.insert(0, str(HERE.parents[1]))

from tests.bench import clock_load  # noqa: E402
from tests.bench.clock_load import Fanout, free_port, log, machine_busy_pct, machine_ticks, summary, ws_frame, ws_frames  # noqa: E402

COMMON_KINDS = ("pause", "resume", "next", "previous")
NODE_EVENTS = {"pause": "admin-pause", "resume": "admin-resume", "next": "admin:nextLevel",
               "previous": "admin:prevLevel"}
STATUS = re.compile(rb'"status":"(\w+)"')
LEVEL = re.compile(rb'"currentLevelIndex":(\d+)')


# --- a socket.io client over raw WebSocket frames (Engine.IO 4; clock_load's framing) --------------

class NodePhone(asyncio.Protocol):
    """One socket.io connection: the WebSocket upgrade, Engine.IO's open/ping, and every
    `state:update`; the receipt time is taken as data_received starts, like clock_load's Phone."""

    def __init__(self, bench: NodeFanout, port: int) -> None:
        self.bench, self.port = bench, port
        self.buffer = bytearray()
        self.upgraded = False
        self.first: asyncio.Future = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future = asyncio.get_running_loop().create_future()
        self.received: dict[int, float] = {}
        self.message_bytes: list[int] = []
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                         f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n").encode())

    def send(self, text: str) -> None:
        self.transport.write(ws_frame(text))

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if b" 101 " not in bytes(self.buffer[:end]):
                self.first.set_exception(RuntimeError(bytes(self.buffer[:end]).decode(errors="replace")))
                return
            del self.buffer[:end + 4]
            self.upgraded = True
        for opcode, payload in ws_frames(self.buffer):
            if opcode == 0x8:
                self.transport.close()
            elif opcode == 0x1:
                self.packet(payload, now)
        self.bench.busy += time.perf_counter() - now

    def packet(self, payload: bytes, now: float) -> None:
        if payload.startswith(b"0"):  # Engine.IO open: join the default namespace
            self.send("40")
        elif payload == b"2":  # Engine.IO ping
            self.send("3")
        elif payload.startswith(b'42["state:update"'):
            self.message_bytes.append(len(payload))
            self.bench.state(self, payload, now)
            if not self.first.done():
                self.first.set_result(None)

    def connection_lost(self, exc) -> None:
        if not self.first.done():
            self.first.set_exception(RuntimeError(f"closed before its first state: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)


class NodeFanout(Fanout):
    """clock_load's Fanout, with taps numbered here: a phone has tap T when a state shows its effect."""

    def __init__(self) -> None:
        super().__init__()
        self.tap = -1
        self.wanted = None  # (status, level index) the current tap leads to

    def state(self, phone: NodePhone, payload: bytes, now: float) -> None:
        if self.wanted is None or self.tap in phone.received:
            return
        status, level = STATUS.search(payload), LEVEL.search(payload)
        if status and level and (status.group(1).decode(), int(level.group(1))) == self.wanted:
            phone.received[self.tap] = now
            self.arrived(self.tap, now)


class NodeServer:
    """`node server.js` on a free loopback port, in its own process group."""

    def __init__(self, node_dir: Path, port: int, cpus: set[int] | None = None) -> None:
        self.node_dir, self.port = node_dir, port
        self.proc = subprocess.Popen(["node", "server.js"], cwd=node_dir, env={**os.environ, "PORT": str(port)},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/display", timeout=2).read()
                if cpus:
                    clock_load.pin([self.proc.pid], cpus)
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the Node clock did not start: "
                                       + self.proc.stderr.read().decode()[-2000:]) from None
                time.sleep(0.1)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / clock_load.CLK_TCK

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


async def node_phases(server: NodeServer, n: int, k: int, gap: float, idle: float, timeout: float) -> dict:
    loop = asyncio.get_running_loop()
    fanout = NodeFanout()
    gate = asyncio.Semaphore(100)
    started = time.perf_counter()

    async def one() -> None:
        async with gate:
            _, phone = await loop.create_connection(lambda: NodePhone(fanout, server.port), "127.0.0.1", server.port)
            fanout.phones.append(phone)
            await asyncio.wait_for(asyncio.shield(phone.first), timeout)

    await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), timeout + 30)
    out: dict = {"connect": {"seconds_to_connect_all": time.perf_counter() - started,
                             "message_bytes": fanout.phones[0].message_bytes[0]}}
    _, admin = await loop.create_connection(lambda: NodePhone(NodeFanout(), server.port), "127.0.0.1", server.port)
    await asyncio.wait_for(asyncio.shield(admin.first), timeout)
    admin.send('42["admin:start"]')
    await asyncio.sleep(1.5)
    # the background with the clock running: a state to every phone every second
    cpu0, t0 = server.cpu_seconds(), time.monotonic()
    await asyncio.sleep(idle)
    background = (server.cpu_seconds() - cpu0) / (time.monotonic() - t0)
    out["idle"] = {"seconds": idle, "cpu_pct": background * 100}
    out["rss_kb"] = {server.proc.pid: server.rss_kb()}
    status, level = "running", 0
    deliveries, all_received, per_action = [], [], []
    cpu0, t0, m0 = server.cpu_seconds(), time.monotonic(), machine_ticks()
    for tap in range(k):
        kind = COMMON_KINDS[tap % len(COMMON_KINDS)]
        status = {"pause": "paused", "resume": "running"}.get(kind, status)
        level += {"next": 1, "previous": -1}.get(kind, 0)
        fanout.tap, fanout.wanted = tap, (status, level)
        everyone = fanout.expect(tap)
        sent = time.perf_counter()
        admin.send(f'42["{NODE_EVENTS[kind]}"]')
        try:
            await asyncio.wait_for(asyncio.shield(everyone), timeout)
        except TimeoutError:
            missing = sum(1 for p in fanout.phones if tap not in p.received)
            raise RuntimeError(f"{missing} of {n} Node phones never saw {kind} (tap {tap})") from None
        times = [(p.received[tap] - sent) * 1000 for p in fanout.phones]
        deliveries += times
        all_received.append(max(times))
        per_action.append({"action": kind, "first_ms": min(times), "median_ms": statistics.median(times),
                           "all_ms": max(times)})
        await asyncio.sleep(gap)
    seconds, cpu = time.monotonic() - t0, server.cpu_seconds() - cpu0
    out["latency"] = {
        "deliveries_ms": summary(deliveries), "all_received_ms": summary(all_received), "per_action": per_action,
        "server_cpu_ms_per_action_raw": cpu * 1000 / k,
        "server_cpu_ms_per_action": max(0.0, cpu - background * seconds) * 1000 / k,
        "server_cpu_us_per_delivery": max(0.0, cpu - background * seconds) * 1e6 / (k * n),
        "machine_busy_pct": machine_busy_pct(m0, machine_ticks())}
    out["lost_streams"] = sum(1 for p in fanout.phones if p.closed.done())
    for phone in [*fanout.phones, admin]:
        phone.transport.close()
    await asyncio.sleep(0.2)
    return out


def node_run(node_dir: Path, n: int, k: int, gap: float, idle: float, timeout: float, pinned: bool = False) -> dict:
    server = NodeServer(node_dir, free_port(), {clock_load.SERVER_CORE} if pinned else None)
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        out = asyncio.run(node_phases(server, n, k, gap, idle, timeout))
    finally:
        gc.enable()
        gc.unfreeze()
        server.stop()
    return {"clients": n, "actions": k, "pinned": pinned, **out}


def shuffleup_run(n: int, k: int, gap: float, timeout: float, pinned: bool = False, host_line: str = "socket") -> dict:
    opts = clock_load.parse_args(["--clients", str(n), "--actions", str(k), "--gap", str(gap), "--idle", "5",
                                  "--timeout", str(timeout), "--kinds", ",".join(COMMON_KINDS), "--no-restart",
                                  "--no-heartbeat-round", "--no-first-load", "--host-line", host_line,
                                  *(["--pin"] if pinned else [])])
    return clock_load.run(opts)


FIGURES = (
    ("per-phone median", ("latency", "deliveries_ms", "median")),
    ("per-phone p95", ("latency", "deliveries_ms", "p95")),
    ("per-phone p99", ("latency", "deliveries_ms", "p99")),
    ("per-phone max", ("latency", "deliveries_ms", "max")),
    ("all phones, median", ("latency", "all_received_ms", "median")),
    ("all phones, p99", ("latency", "all_received_ms", "p99")),
    ("server CPU per tap (ms)", ("latency", "server_cpu_ms_per_action")),
    ("RSS (MiB)", ("rss_mib",)),
)


def figure(run: dict, path: tuple[str, ...]) -> float:
    if path == ("rss_mib",):
        return sum(run["rss_kb"].values()) / 1024
    return clock_load.dig(run, path)


def compare(size: int, ours: list[dict], theirs: list[dict]) -> dict:
    rows = {}
    for label, path in FIGURES:
        a = statistics.median(figure(r, path) for r in ours)
        b = statistics.median(figure(r, path) for r in theirs)
        rows[label] = {"shuffleup": a, "node": b, "ratio": a / b if b else float("inf"),
                       "shuffleup_runs": [figure(r, path) for r in ours], "node_runs": [figure(r, path) for r in theirs]}
    return {"clients": size, "runs": len(ours), "rows": rows, "pinned": bool(ours and ours[0].get("pinned")),
            "host_line": ours[0]["latency"].get("host_line") if ours else None,
            "loadavg": [r.get("loadavg_before") for r in ours]}


def report(table: dict) -> str:
    lines = [f"{table['clients']} phones, median of {table['runs']} interleaved runs "
             f"(ShuffleUp: gunicorn gevent 1 worker, SQLite, SSE, taps {table.get('host_line', 'socket')}; "
             "Node: socket.io WebSocket):",
             "| figure | ShuffleUp | Node clock | ShuffleUp ÷ Node |", "|---|---|---|---|"]
    for label, row in table["rows"].items():
        lines.append(f"| {label} | {row['shuffleup']:.1f} | {row['node']:.1f} | {row['ratio']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node-dir", type=Path, required=True, help="a checkout of Dadulit/Poker-clock after npm ci")
    parser.add_argument("--clients", default="100,500,1000", help="phone counts, comma-separated")
    parser.add_argument("--actions", type=int, default=200, help="taps per run (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs per size (default 3)")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between taps")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--pin", action="store_true", help=f"each server on core {clock_load.SERVER_CORE}, this "
                                                           "client on the others (phones are other devices)")
    parser.add_argument("--host-line", choices=tuple(clock_load.HOST_LINES), default="socket",
                        help="how ShuffleUp's host taps travel (clock_load.py --host-line; default: its line)")
    parser.add_argument("--json", metavar="FILE")
    opts = parser.parse_args(argv)
    if not (opts.node_dir / "server.js").exists() or not (opts.node_dir / "node_modules").exists():
        parser.error(f"{opts.node_dir} is not a Poker-clock checkout with node_modules (run npm ci in it)")
    sizes = [int(x) for x in opts.clients.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(sizes) * 2 + 1000), hard))
    if opts.pin:
        clock_load.pin_client()
    tables = []
    for size in sizes:
        ours, theirs = [], []
        for number in range(opts.runs):
            log(f"=== {size} phones, run {number + 1} of {opts.runs}: ShuffleUp")
            ours.append(shuffleup_run(size, opts.actions, opts.gap, opts.timeout, opts.pin, opts.host_line))
            log(f"=== {size} phones, run {number + 1} of {opts.runs}: Node clock")
            theirs.append(node_run(opts.node_dir, size, opts.actions, opts.gap, 5, opts.timeout, opts.pin))
        tables.append(compare(size, ours, theirs))
        print(report(tables[-1]), flush=True)
        print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    if opts.json:
        Path(opts.json).write_text(json.dumps(tables, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
