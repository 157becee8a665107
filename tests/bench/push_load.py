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


def run(phones: int = 500, moves: int = 200) -> dict:
    from flask_migrate import upgrade

    from blueprints import journalled
    from services import leagues, seats
    from services.models import Entry, Event, Member, PushSubscription, Venue
    from tests.conftest import make_app
    from tests.fixtures.push_service import PushService
    from wiring.extensions import db

    folder = tempfile.mkdtemp(prefix="push-bench-")
    app = make_app(Path(folder) / "league.db")
    service = PushService()
    app.config["PUSH_SERVICES"] = service.origin
    subscriber = service.phone("any").subscription()["keys"]
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
        members = [Member.named(league.id, f"Player {n:03d}") for n in range(phones)]
        db.session.add_all(members)
        db.session.flush()
        for n, member in enumerate(members):
            db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing",
                                 table_no=n // 10 + 1, seat_no=n % 10 + 1))
            db.session.add(PushSubscription(member_id=member.id, endpoint=f"{service.origin}/push/{member.id}",
                                            p256dh=subscriber["p256dh"], auth=subscriber["auth"]))
        db.session.commit()
        event_id, member_ids = event.id, [m.id for m in members]

        def one_round() -> tuple[list[float], dict[int, float]]:
            host_ms, started = [], {}
            for n in range(moves):
                member_id = member_ids[(n * 7) % len(member_ids)]
                night_event = db.session.get(Event, event_id)
                began = time.perf_counter()
                with journalled(night_event, None, "move", "Bench move") as log:
                    entry = next(e for e in log.night.entries if e.member_id == member_id)
                    taken = {e.seat_no for e in log.night.entries if e.table_no == entry.table_no}
                    free = min(set(range(1, 13)) - taken)
                    seats.move(log.night, entry, entry.table_no, free, log)
                host_ms.append((time.perf_counter() - began) * 1000)
                started[member_id] = began
                db.session.remove()
            return host_ms, started

        host_with, started = one_round()
        arrived = service.wait_for(moves, timeout=120)
        latencies = []
        for path, _, _, at in arrived:
            member_id = int(path.rsplit("/", 1)[1])
            latencies.append((at - started[member_id]) * 1000)
        db.session.execute(db.delete(PushSubscription))
        db.session.commit()
        host_without, _ = one_round()
    service.close()
    return {"phones": phones, "moves": moves, "received": len(latencies),
            "tap_to_push_ms": {"median": statistics.median(latencies), "p99": percentile(latencies, 99),
                               "max": max(latencies)},
            "host_action_ms_with_push": {"median": statistics.median(host_with), "p95": percentile(host_with, 95)},
            "host_action_ms_without": {"median": statistics.median(host_without), "p95": percentile(host_without, 95)},
            "load_average": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=500)
    parser.add_argument("--moves", type=int, default=200)
    args = parser.parse_args()
    print("load average before:", os.getloadavg())
    result = run(args.phones, args.moves)
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
