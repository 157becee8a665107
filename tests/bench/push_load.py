#!/usr/bin/env python3
"""Web Push figures: the time from the host's tap (a balancing move, R-SEAT-2) to the push service
receiving the moved player's message, with `--phones` players' phones subscribed, over `--moves` moves;
and the host action's own time with and without the phones subscribed (pushing must not slow the host).

    python tests/bench/push_load.py                  # 500 subscribed phones, 200 moves
    python tests/bench/push_load.py --phones 50 --moves 20

The night: `--phones` members seated at tables of ten (seats 11 and 12 free), each phone subscribed to
a push service on loopback (tests/fixtures/push_service.py) that answers 201 and records when each
message arrived. Each move is one journalled host action through the services, as the host's route
runs it (the night's lock, the journal, one commit), timed in this process from just before the action
to the push service's receipt (one clock: time.perf_counter). The message is encrypted and signed for
real (aes128gcm, VAPID) by the app's own sender threads. Then the same moves again with no phone
subscribed: the host action's median / p95 side by side. Not collected by pytest.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def sender_process(database: str, config: dict) -> None:
    """A separate sender process (`flask league push-sender`'s loop) on the bench's database and Redis."""
    from tests.conftest import make_app
    app = make_app(database, **config)
    with app.app_context():
        app.extensions["push"].serve()
        while True:
            time.sleep(3600)


def run(phones: int = 500, moves: int = 200, rounds: int = 3, warmup: int = 20, senders: int | None = None,
        redis_url: str | None = None) -> dict:
    """The figures: `warmup` moves of each kind first (a cold process's first actions compile its
    queries and would otherwise be the slowest "with push" moves), then `rounds` pairs of rounds of `moves` moves each,
    taken in turn: one moving subscribed players (with push), one moving as many players with no phone
    subscribed (without), so the machine's changing load falls on both alike."""
    from flask_migrate import upgrade

    from blueprints import journalled
    from services import leagues, seats
    from services.models import Entry, Event, Member, PushSubscription, Venue
    from tests.conftest import make_app
    from tests.fixtures.push_service import PushService
    from wiring.extensions import db

    folder = tempfile.mkdtemp(prefix="push-bench-")
    service = PushService()
    config = {"PUSH_KEY_DIR": folder, "PUSH_SERVICES": service.origin, **({"PUSH_SENDERS": senders} if senders else {})}
    sending = None
    if redis_url:  # the web process only queues; a process of its own sends
        config |= {"REDIS_URL": redis_url, "PUSH_REDIS_PREFIX": f"push-bench-{os.getpid()}"}
        sending = multiprocessing.get_context("spawn").Process(
            target=sender_process, args=(str(Path(folder) / "league.db"), config), daemon=True)
        config["PUSH_SEND_HERE"] = False
    app = make_app(Path(folder) / "league.db", **config)
    subscriber = service.phone("any").subscription()["keys"]
    sender = app.extensions["push"]
    enqueue_ms: list[float] = []
    hand_over = "put_many" if hasattr(sender, "put_many") else "put"  # (an older Sender took one at a time)
    put = getattr(sender, hand_over)

    def timed_put(items, at=None):  # what the host's request spends handing its messages over
        began = time.perf_counter()
        put(items, at)
        enqueue_ms.append((time.perf_counter() - began) * 1000)
    setattr(sender, hand_over, timed_put)
    with app.app_context():
        upgrade()
        league = leagues.create_league("Bench League", "free")
        db.session.flush()
        venue = Venue(league_id=league.id, name="Rose & Crown")
        db.session.add(venue)
        db.session.flush()
        event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=league.today(),
                      status="running", max_seats=12)
        db.session.add(event)
        db.session.flush()
        members = [Member.named(league.id, f"Player {n:04d}") for n in range(2 * phones)]
        db.session.add_all(members)
        db.session.flush()
        for n, member in enumerate(members):
            db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing",
                                 table_no=n // 10 + 1, seat_no=n % 10 + 1))
            if n < phones:  # the first half's phones are subscribed; the second half's are not
                db.session.add(PushSubscription(member_id=member.id, endpoint=f"{service.origin}/push/{member.id}",
                                                p256dh=subscriber["p256dh"], auth=subscriber["auth"]))
        db.session.commit()
        event_id = event.id
        if sending is not None:
            sending.start()
        with_phone, without_phone = [m.id for m in members[:phones]], [m.id for m in members[phones:]]
        turn = {"n": 0}

        def one_round(member_ids: list[int], count: int) -> tuple[list[float], dict[int, float]]:
            host_ms, started = [], {}
            for _ in range(count):
                member_id = member_ids[(turn["n"] * 7) % len(member_ids)]
                turn["n"] += 1
                night_event = db.session.get(Event, event_id)
                began = time.perf_counter()
                with journalled(night_event, None, "move", "Bench move") as log:
                    entry = next(e for e in log.night.entries if e.member_id == member_id)
                    taken = {e.seat_no for e in log.night.entries if e.table_no == entry.table_no}
                    free = min(set(range(1, 13)) - taken)
                    seats.move(log.night, entry, entry.table_no, free, log)
                host_ms.append((time.perf_counter() - began) * 1000)
                started[member_id] = began  # a round moves each player once at most (7 is prime to the count)
                db.session.remove()
            return host_ms, started

        # Warm-up: moves of subscribed players, their messages waited for (a sender process has started)
        one_round(with_phone, warmup)
        service.wait_for(warmup, timeout=120)
        sender.wait_idle(timeout=120)
        one_round(without_phone, warmup)
        host_with: list[float] = []
        host_without: list[float] = []
        latencies: list[float] = []
        for _ in range(rounds):
            enqueue_ms.clear()
            before = len(service.received)
            times, started = one_round(with_phone, moves)
            host_with += times
            arrived = service.wait_for(before + moves, timeout=120)[before:before + moves]
            latencies += [(at - started[int(path.rsplit("/", 1)[1])]) * 1000 for path, _, _, at in arrived]
            enqueues = list(enqueue_ms)
            sender.wait_idle(timeout=120)
            host_without += one_round(without_phone, moves)[0]
    if sending is not None:
        sending.kill()
    service.close()
    return {"phones": phones, "sender": "a process of its own (Redis)" if redis_url else "threads in the process", "moves": moves * rounds, "received": len(latencies),
            "tap_to_push_ms": {"median": statistics.median(latencies), "p99": percentile(latencies, 99),
                               "max": max(latencies)},
            "host_action_ms_with_push": {"median": statistics.median(host_with), "p95": percentile(host_with, 95)},
            "host_action_ms_without": {"median": statistics.median(host_without),
                                       "p95": percentile(host_without, 95)},
            "enqueue_ms_in_request": {"median": statistics.median(enqueues), "max": max(enqueues)},
            "load_average": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=500)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--senders", type=int, default=None, help="sender threads (default: the app's)")
    parser.add_argument("--redis", default=None, metavar="URL",
                        help="queue in Redis and send from a process of its own (e.g. redis://127.0.0.1:6379/14)")
    args = parser.parse_args()
    print("load average before:", os.getloadavg())
    result = run(args.phones, args.moves, args.rounds, args.warmup, args.senders, args.redis)
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
