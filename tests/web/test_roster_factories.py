"""The roster factories (tests/fixtures/roster.py) leave the night the host's requests leave: the same
entries, table sizes, positions, points, prizes, journal and clock version, so a test may build its
world either way."""
from collections import Counter

from services.models import Action, Event
from tests.conftest import login
from tests.fixtures.host import bust, host_op
from tests.fixtures.phones import join
from tests.fixtures.roster import (
    bust_out,
    check_in_players,
    confirm_arrivals,
    draw_seats,
    phone_check_in,
    settle_night,
)
from tests.fixtures.rows import entries
from tests.fixtures.tonight import tonight
from wiring.extensions import db

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]


def night_as_left(event: Event) -> tuple:
    """What a test could read of the night: each entry by name, the tables' sizes, the journal and the
    clock's version. Who sits where is left out: the seats are drawn at random (R-SEAT-1, R-LATE-2),
    and a fixed seed would not fix them here, as the draw orders the players by their rows' ids
    before it shuffles and the two nights' ids differ."""
    db.session.expire_all()
    rows = {name: (e.status, e.position, e.points, e.prize, e.bust_hand, e.stack_at_bust)
            for name, e in entries(event).items()}
    seats = {(e.table_no, e.seat_no) for e in entries(event).values()}
    sizes = sorted(Counter(table for table, _ in seats).values()) if len(seats) == len(entries(event)) else None
    actions = [(a.kind, a.summary, a.undone_at, len(a.changes)) for a in db.session.scalars(
        db.select(Action).where(Action.event_id == event.id).order_by(Action.id))]
    return rows, sizes, actions, db.session.get(Event, event.id).clock_version


def test_a_seated_night_played_out_by_the_factories_is_the_night_the_requests_leave(app, client, night):
    night.max_seats = 5
    db.session.commit()
    phone = app.test_client()
    join(phone, night, "Zoe")
    login(client, "host", "pw-host")
    host_op(client, night, f"confirm:{entries(night)['Zoe'].id}")
    for name in PLAYERS[:10]:
        host_op(client, night, "join", name=name, adult="yes")
    host_op(client, night, "draw")
    for name in PLAYERS[10:]:  # late arrivals draw from the same pool (R-LATE-2)
        host_op(client, night, "join", name=name, adult="yes")
    bust(client, night, "Lu")
    bust(client, night, "Ann", "Bob", stacks=[2000, 5000])
    for name in PLAYERS[2:10] + ["Zoe"]:
        bust(client, night, name)
    assert host_op(client, night, "settle").status_code == 200

    other = tonight(league="Other League", username="other", password="pw-other")
    other.max_seats = 5
    db.session.commit()
    phone_check_in(app, other, "Zoe")
    confirm_arrivals(other)
    check_in_players(other, PLAYERS[:10])
    draw_seats(other)
    check_in_players(other, PLAYERS[10:])
    bust_out(other, "Lu")
    bust_out(other, "Ann", "Bob", stacks=[2000, 5000])
    for name in PLAYERS[2:10] + ["Zoe"]:
        bust_out(other, name)
    settle_night(other)

    assert night_as_left(other) == night_as_left(night)
    by = {a.user_id for a in db.session.scalars(db.select(Action))}
    assert by == {night.host_id, other.host_id}  # each night's actions by its host


def test_a_phone_check_in_by_the_factory_is_the_one_the_link_makes(app, night):
    phone = phone_check_in(app, night, "Ann Lee")
    page = phone.get(f"/check-in/{night.check_in_code}").get_data(as_text=True)
    assert "Ann Lee, you're checked in." in page and "will confirm" in page
    assert entries(night)["Ann Lee"].status == "pending" and db.session.scalar(db.select(Action)) is None
