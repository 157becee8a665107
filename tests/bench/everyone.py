"""Food for everyone on a 200-player night, in process: the roster's POST `bonus_all:food` (R-CHIP-1/2)
and its undo, `--times` times on a fresh SQLite night, the median and least of the POSTs' wall times
after five warm-ups; `--profile` counts the function calls under cProfile instead. For an A/B of two
checkouts: run it in each, in turn (docs/benchmarks.md, session 13).

    .venv/bin/python tests/bench/everyone.py [--times 40] [--profile]
"""
import argparse
import cProfile
import pstats
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from flask_migrate import upgrade  # noqa: E402

from services.models import Entry, Member  # noqa: E402
from tests.conftest import make_app  # noqa: E402
from tests.fixtures import tonight as seed  # noqa: E402
from wiring.extensions import db  # noqa: E402

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--times", type=int, default=40)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    opts = parser.parse_args()
    app = make_app(tempfile.mktemp(suffix=".db"))
    with app.app_context():
        upgrade()
        event = seed.tonight()
        for number in range(opts.players):
            member = Member.named(event.league_id, f"Player {number}")
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing"))
        db.session.commit()
        event_id = event.id
        db.session.remove()
    client = app.test_client()
    client.post("/login", data={"username": "host", "password": "pw-host",
                                "csrf_token": TOKEN.search(client.get("/login").get_data(as_text=True)).group(1)})
    url = f"/host/events/{event_id}/players"
    token = TOKEN.search(client.get(url).get_data(as_text=True)).group(1)
    profile = cProfile.Profile() if opts.profile else None
    times = []
    for _ in range(opts.times):
        started = time.perf_counter()
        if profile:
            profile.enable()
        answer = client.post(url, headers={"HX-Request": "true"}, data={"op": "bonus_all:food", "csrf_token": token})
        if profile:
            profile.disable()
        times.append((time.perf_counter() - started) * 1000)
        undo = re.search(r'name="op" value="(undo:\d+)"', answer.get_data(as_text=True))
        assert answer.status_code == 200 and undo, answer.status_code
        assert client.post(url, headers={"HX-Request": "true"},
                           data={"op": undo.group(1), "csrf_token": token}).status_code == 200
    if profile:
        stats = pstats.Stats(profile)
        print(f"function calls: {stats.total_calls:,} in {stats.total_tt:.2f} s")
    print(f"food for everyone, {opts.players} players: median {statistics.median(times[5:]):.1f} ms, "
          f"least {min(times):.1f} ms over {opts.times - 5}")


if __name__ == "__main__":
    main()
