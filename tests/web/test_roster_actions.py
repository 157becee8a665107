"""The host's roster actions: one handler per op behind one URL, each one journalled transaction;
unknown ops and garbled numbers are refused (4xx) with nothing written."""
import re
from pathlib import Path

import pytest

from blueprints.host.roster import ROSTER_ACTIONS
from live.payload import clock_payload
from services.models import Member
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op, seat_players, tap
from tests.fixtures.rows import written
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "each action is one transaction behind the conditional UPDATE of the night's version")

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# The templates whose forms post to the host's roster (the structure editor posts elsewhere).
ROSTER_FORMS = ("host/_players.html", "host/_moves.html", "host/_search.html", "play/card.html")


def test_every_roster_button_has_a_handler_and_every_handler_names_its_rule():
    posted = set()
    for name in ROSTER_FORMS:
        posted |= set(re.findall(r'name="op" value="([a-z_]+)', (TEMPLATES / name).read_text()))
    assert posted and posted <= set(ROSTER_ACTIONS)
    unnamed = [op for op, action in ROSTER_ACTIONS.items()
               if op not in ("undo", "redo") and not re.search(r"R-[A-Z]+-\d", action.run.__doc__ or "")]
    assert unnamed == []
    assert [op for op, action in ROSTER_ACTIONS.items() if not action.record] == ["undo", "redo"]


@pytest.mark.parametrize("op", ["explode", "", "bust_hand_x:1", "__class__", "undo_", "Bust:1"])
def test_an_unknown_op_is_refused_and_writes_nothing(client, night, op):
    roster = seat_players(client, night, ["A", "B", "C"])
    before = written(night)
    response = host_op(client, night, op, **{f"stack-{roster['A'].id}": "100"})
    assert response.status_code == 422 and "That button did nothing" in response.get_data(as_text=True)
    assert written(night) == before


def test_garbled_numbers_are_refused_with_the_reason_and_write_nothing(client, night):
    """Not a 500: "²".isdigit() is true but int("²") fails; a 20-digit id overflows the column."""
    roster = seat_players(client, night, ["A", "B", "C", "D"])
    a, b = str(roster["A"].id), str(roster["B"].id)
    before = written(night)
    refusals = [
        (("bust:99999999999999999999",), "That player is not in this game."),
        (("bust:²",), "That player is not in this game."),
        (("walk_in:²",), "No such member."),
        ((f"deduct:{a}", {f"blinds-{a}": "²"}), "Give the chips to deduct as a whole number."),
        (("dq", {"dq_entry": a, "reason": "Angle", "dq_chips": "1e3"}), "as a whole number, or leave it blank"),
        (("bust_hand", {"out": [a, b], f"stack-{a}": "-5", f"stack-{b}": "100"}), "as a whole number"),
        (("bust_hand", {"out": [a, b], f"stack-{a}": "5" * 5000, f"stack-{b}": "100"}), "as a whole number"),
        (("move_to:1:²:3", {"mover-1": a}), "Pick the seat to move to."),
    ]
    for (op, *data), message in refusals:
        response = host_op(client, night, op, **(data[0] if data else {}))
        assert (op, response.status_code) == (op, 422) and message in response.get_data(as_text=True)
        assert written(night) == before, op


def test_r_late_1_a_refused_action_rolls_back_what_it_had_written(client, night):
    """host_action: "join" adds the member, then check-in refuses (the major break has started):
    the new member goes too, and nothing else is written."""
    seat_players(client, night, ["A", "B"])
    major = next(i for i, item in enumerate(clock_payload(night)["structure"]) if item.get("major"))
    assert tap(client, night, "jump", index=str(major + 1)).status_code == 200
    before = written(night)
    members = db.session.scalar(db.select(db.func.count()).select_from(Member))
    response = host_op(client, night, "join", name="Late Larry", adult="yes")
    assert response.status_code == 422 and "major break has started" in response.get_data(as_text=True)
    assert written(night) == before
    assert db.session.scalar(db.select(db.func.count()).select_from(Member)) == members


def test_garbled_clock_and_structure_numbers_are_400_not_500(client, night):
    login(client, "host", "pw-host")
    assert tap(client, night, "start", version="²").status_code == 400
    assert tap(client, night, "jump", index="²").status_code == 400
    assert tap(client, night, "jump", index="2").status_code == 200
    response = client.post(f"/host/events/{night.id}/structure", headers={"HX-Request": "true"},
                           data={"op": "up:²", "version": "1", "csrf_token": csrf_token(client, "/")})
    assert response.status_code == 400 and "garbled" in response.get_data(as_text=True)


def test_a_member_code_for_a_garbled_member_is_404_not_500(client, night):
    login(client, "host", "pw-host")
    for raw in ("²", "99999999999999999999", ""):
        assert client.post("/member-codes", data={"member": raw, "csrf_token": csrf_token(client, "/")}
                           ).status_code == 404
