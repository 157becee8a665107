"""The night read once (services/night_snapshot.py): the statements a bust-out and the host's roster
cost, counted with SQLAlchemy's cursor events, so that a change which reads the night again fails here
(R-PTS-5, R-CHIP-3, R-SEAT). The counts are the database's work, not a time: nothing here is timed."""
import re
from contextlib import contextmanager

import pytest
from sqlalchemy import event as sa_event

from tests.conftest import csrf_token
from tests.fixtures.host import host_op, seat_players
from tests.fixtures.rows import entries
from wiring.extensions import db

BUST_STATEMENTS = 12  # the login, the night, its lock, the bust's writes and the answer's one read
ROSTER_STATEMENTS = 7


@contextmanager
def statements():
    """Every SQL statement the block sends, as text."""
    sent: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        sent.append(statement)

    sa_event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        sa_event.remove(db.engine, "before_cursor_execute", count)


def reads_of_entries(sent: list[str]) -> int:
    """The statements that read the night's entries themselves (not a join from another table)."""
    return sum(1 for s in sent if re.match(r"\s*SELECT\b", s) and re.search(r"\bFROM entries\b", s))


@pytest.fixture
def seated_twenty(client, night):
    roster = seat_players(client, night, [f"Player {n:02d}" for n in range(20)])
    assert host_op(client, night, "draw").status_code == 200
    return roster


def test_r_pts_5_a_bust_out_reads_the_night_once_before_and_once_after(client, night, seated_twenty):
    token = csrf_token(client, "/")
    out = seated_twenty["Player 07"]
    with statements() as sent:
        answer = client.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true"},
                             data={"op": f"bust:{out.id}", "csrf_token": token})
    assert answer.status_code == 200 and "Player 07 out in 20th" in answer.get_data(as_text=True)
    db.session.expire_all()
    assert entries(night)["Player 07"].position == 20
    assert len(sent) <= BUST_STATEMENTS, "\n".join(sent)
    assert reads_of_entries(sent) == 2, "\n".join(sent)  # under the lock, and the answer's


def test_r_seat_the_hosts_roster_is_one_read_of_the_night(client, night, seated_twenty):
    host_op(client, night, f"bust:{seated_twenty['Player 03'].id}")
    with statements() as sent:
        page = client.get(f"/host/events/{night.id}/players")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Player 03" in text and "Table 2" in text
    assert len(sent) <= ROSTER_STATEMENTS, "\n".join(sent)
    assert reads_of_entries(sent) == 1, "\n".join(sent)
