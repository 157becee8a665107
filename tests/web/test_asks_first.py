"""What the host's roster asks before it acts, and what it does not offer: Undo, Reject (and Turn away),
Call off the deal, Break table and the final-table draw carry their question (app.js asks it; the
browser tests answer it, tests/e2e/test_guided_seating.py); Settle the night is not offered, and is
refused, while nobody has played (R-PTS-5: a pre-registered player who never came is no field)."""
import re

import pytest

from services import members
from tests.fixtures.host import fill, host_op, put_to_vote, seated_down_to
from tests.fixtures.pages import html, refusal, text
from tests.fixtures.roster import bust_out, draw_seats, phone_check_in, player_names
from tests.fixtures.rows import entries, written
from wiring.extensions import db

pytestmark = pytest.mark.usefixtures("app")


def question(page: str, op: str) -> str | None:
    """The question the button posting `op` asks first (None: it asks none)."""
    button = re.search(rf'<button[^>]*value="{re.escape(op)}"[^>]*>', page)
    assert button, f"no button posts {op}"
    asked = re.search(r'data-confirm="([^"]*)"', button[0])
    return asked[1] if asked else None


def test_undo_and_reject_ask_first(client, night):
    fill(client, night, 2)
    phone_check_in(client.application, night, "Zed O'Hara")
    page = text(host_op(client, night, "noop"))
    zed = entries(night)["Zed O'Hara"]
    assert question(page, f"reject:{zed.id}") == "Turn Zed O'Hara away?"
    last = re.search(r'value="undo:(\d+)"', page)[1]
    assert question(page, f"undo:{last}").startswith("Undo “New member Player 01”")


def test_r_pay_2_calling_off_the_deal_asks_first(client, night):
    fill(client, night, 3)
    draw_seats(night)
    put_to_vote(client, night, {name: 10000 for name in player_names(3)})
    assert question(text(host_op(client, night, "noop")), "deal_off") == (
        "Call off the deal? The votes so far are lost and play goes on.")


def test_r_seat_3_4_break_and_final_table_ask_first(client, night):
    seated_down_to(client, night, 21, 2)
    page = text(host_op(client, night, "noop"))
    assert question(page, "break").startswith("Break table ")
    host_op(client, night, "break")
    for name in [e.member.name for e in entries(night).values() if e.status == "playing"][:9]:
        bust_out(night, name)
    assert question(text(host_op(client, night, "noop")), "final") == (
        "Draw the final table? Every player gets a new seat at table 1.")


def test_r_pts_5_settle_is_not_offered_nor_done_while_nobody_has_played(client, night):
    fill(client, night, 0)
    member = members.join(night.league_id, "Prue Early", True, False)
    db.session.commit()
    assert host_op(client, night, f"prereg:{member.id}").status_code == 200
    page = html(host_op(client, night, "noop"))
    assert "Pre-registered, not here yet" in page and 'value="settle"' not in page
    before = written(night)
    refused = host_op(client, night, "settle")
    assert refused.status_code == 422 and "Nobody has played" in (refusal(text(refused)) or "")
    assert written(night) == before


def test_r_pts_5_settle_is_offered_once_one_player_remains(client, night):
    fill(client, night, 2)
    bust_out(night, "Player 00")
    assert 'value="settle"' in html(host_op(client, night, "noop"))
