"""A 200-player night: seat draw, a table break and settling, each timed server-side on the
embedded SQLite; and host actions through the full request path (a bust-out and its undo).

Under `make test` each runs once as a plain test and checks its answer; `make bench` times them.
"""
import os

import pytest

from services import seats, settling
from services.journal import Journal, last_action
from services.models import Entry, Member
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures import tonight as seed
from wiring.extensions import db

PLAYERS = 200 if os.environ.get("SHUFFLEUP_BENCH_SCALE") == "full" else 40


@pytest.fixture
def big_night(app):
    """A running nightly game with PLAYERS players in, not yet seated; host `host` / `pw-host`."""
    event = seed.tonight("Bench League", "Big Pub")
    for n in range(PLAYERS):
        member = Member.named(event.league_id, f"Player {n:03d}")
        db.session.add(member)
        db.session.flush()
        db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing"))
    db.session.commit()
    return event


def seated_sizes(event):
    sizes = {}
    for seat in read_night(event).seated.values():
        sizes[seat.table] = sizes.get(seat.table, 0) + 1
    return sizes


def test_seat_draw(benchmark, big_night):
    def draw():
        log = Journal(big_night, None, "draw", "Seats drawn")
        seats.draw(read_night(big_night), log)
        log.record()
        db.session.flush()
        return log

    def reset():
        db.session.rollback()
        return (), {}

    benchmark.pedantic(draw, setup=reset, rounds=5)
    sizes = seated_sizes(big_night)
    assert sum(sizes.values()) == PLAYERS and max(sizes.values()) - min(sizes.values()) <= 1
    db.session.rollback()


def test_table_break(benchmark, big_night):
    log = Journal(big_night, None, "draw", "Seats drawn")
    seats.draw(read_night(big_night), log)
    log.record()
    smallest = min(seated_sizes(big_night).items(), key=lambda item: item[1])[0]
    for entry in [e for e, seat in read_night(big_night).seated.items() if seat.table != smallest][:10]:
        entry.status, entry.position = "played", None
    db.session.commit()
    tables_before = len(seated_sizes(big_night))

    def break_one():
        log = Journal(big_night, None, "break", "Table broken")
        seats.break_table(read_night(big_night), log)
        log.record()
        db.session.flush()

    benchmark.pedantic(break_one, setup=lambda: (db.session.rollback(), ((), {}))[1], rounds=5)
    assert len(seated_sizes(big_night)) == tables_before - 1
    db.session.rollback()


def test_settle(benchmark, big_night):
    players = db.session.scalars(db.select(Entry).where(Entry.event_id == big_night.id).order_by(Entry.id)).all()
    for position, entry in enumerate(players[1:], start=2):
        entry.status, entry.position = "played", PLAYERS - position + 2
    db.session.commit()

    def settle():
        log = Journal(big_night, None, "settle", "Night settled")
        settling.settle(read_night(big_night), log)
        log.record()
        db.session.flush()

    benchmark.pedantic(settle, setup=lambda: (db.session.rollback(), ((), {}))[1], rounds=5)
    winner = db.session.get(Entry, players[0].id)
    assert winner.position == 1 and winner.points > 0
    db.session.rollback()


def test_host_action_through_the_app(benchmark, app, client, big_night):
    """A bust-out then its undo, as the host's phone sends them (login, CSRF, lock, journal, render)."""
    login(client, "host", "pw-host")
    token = csrf_token(client, "/")
    target = db.session.scalar(db.select(Entry.id).where(Entry.event_id == big_night.id).limit(1))
    url = f"/host/events/{big_night.id}/players"

    def bust_and_undo():
        out = client.post(url, headers={"HX-Request": "true"}, data={"op": f"bust:{target}", "csrf_token": token})
        action = last_action(big_night)
        back = client.post(url, headers={"HX-Request": "true"}, data={"op": f"undo:{action.id}", "csrf_token": token})
        db.session.expire_all()
        return out.status_code, back.status_code

    codes = benchmark.pedantic(bust_and_undo, rounds=10)
    assert codes == (200, 200) and db.session.get(Entry, target).status == "playing"
