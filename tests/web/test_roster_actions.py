"""The host's roster actions: garbled numbers are refused (4xx) with the reason and nothing written."""
from services.models import Action, Entry, Event, Ruling
from tests.conftest import csrf_token, login
from tests.web.test_check_in import host_op, seat_players
from tests.web.test_clock import tap
from wiring.extensions import db


def written(event):
    """Everything a roster action could write: the journal, the entries, rulings and the version."""
    db.session.expire_all()
    return (db.session.scalar(db.select(db.func.count()).select_from(Action)),
            sorted((e.id, e.status, e.position, e.table_no, e.seat_no, e.chips_removed, e.stack_at_bust)
                   for e in db.session.scalars(db.select(Entry).where(Entry.event_id == event.id))),
            db.session.scalar(db.select(db.func.count()).select_from(Ruling)),
            db.session.get(Event, event.id).clock_version)


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
