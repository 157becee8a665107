"""What a clock tap keeps from the last one (R-CLOCK-3, R-PTS-5, R-CHIP-3, R-PAY-1, R-SEAT): the field's
part of the payload, kept by event and version, and the parsed structure. Every phone must still
get the field as it stands: after a check-in, a bust-out, another process's write, a league's
setting, a rolled-back tap."""
import html
import json
import re

import pytest
from sqlalchemy import event as sa_event

from live import payload
from services import checkin, clocks, field, members
from services.models import Event
from services.night_snapshot import read_night
from tests.conftest import login
from tests.fixtures.host import host_op, seat_players, tap
from tests.fixtures.rows import entries
from wiring.extensions import db


def sent(message: bytes) -> dict:
    """The clock a stream message carries (its one line of JSON)."""
    return json.loads(message.decode().split("\ndata: ", 1)[1])


def phones_got(app, night) -> dict:
    """The clock inside the message every phone of the event was last sent."""
    db.session.expire_all()
    version, message = app.extensions["notices"].cached(night.id, 0)
    assert f"id: {version}\nevent: clock\n".encode() in message
    got = sent(message)
    assert got["version"] == version
    return got


def fresh(night) -> dict:
    """The payload as a process that kept nothing computes it: the field read now."""
    db.session.expire_all()
    event = db.session.get(Event, night.id)
    night = read_night(event)
    return {"players_left": night.players_left,
            "average_stack": night.chip_count()[1],
            "prizes": night.prizes}


def same_field(got: dict, night) -> bool:
    return {key: got[key] for key in ("players_left", "average_stack", "prizes")} == fresh(night)


@pytest.fixture
def running(app, client, night):
    """Four players seated and the clock running, one tap made (so the field's part is kept)."""
    seat_players(client, night, ["Ann", "Bob", "Cat", "Dan"])
    assert tap(client, night, "start").status_code == 200
    assert tap(client, night, "pause").status_code == 200
    return night


def test_r_clock_3_a_tap_after_a_check_in_shows_the_new_field_on_every_phone(app, client, running):
    before = phones_got(app, running)
    assert before["players_left"] == 4
    assert host_op(client, running, "join", name="Eve", adult="yes").status_code == 200
    assert tap(client, running, "resume").status_code == 200
    got = phones_got(app, running)
    assert got["players_left"] == 5 and got["average_stack"] == before["average_stack"]
    assert got["seats"] != before["seats"] and same_field(got, running)
    assert client.get(f"/api/events/{running.id}/clock").get_json()["players_left"] == 5


def test_r_pts_5_a_tap_after_a_bust_out_shows_the_new_field_on_every_phone(app, client, running):
    before = phones_got(app, running)
    host_op(client, running, f"bust:{entries(running)['Dan'].id}")
    assert tap(client, running, "resume").status_code == 200
    got = phones_got(app, running)
    assert got["players_left"] == 3 and got["average_stack"] == 4 * field.starting_stack(running) // 3
    assert got["seats"] != before["seats"] and same_field(got, running)
    # and taps after it keep the new field
    assert tap(client, running, "next").status_code == 200
    assert phones_got(app, running)["players_left"] == 3


def test_r_clock_3_a_write_by_another_process_reaches_the_next_tap(app, client, running):
    """Another process (another gunicorn worker) checks a player in: it moves the version on in the
    database, and this process, which kept the field for the version before, reads it again."""
    member = members.join(running.league_id, "Fay", adult=True, under_21=False)
    clocks.touch(running)
    checkin.check_in(running, member, by_host=True)
    db.session.commit()
    assert tap(client, running, "resume").status_code == 200
    got = phones_got(app, running)
    assert got["players_left"] == 5 and same_field(got, running)


def test_r_chip_3_a_league_setting_read_for_the_field_is_read_on_every_tap(app, client, running):
    """A night from before the settings' snapshot takes its starting stack from the league: a
    change there shows at the next tap, though no write to the night moved its version on."""
    running.settings = None
    db.session.commit()
    assert tap(client, running, "resume").status_code == 200
    stack = phones_got(app, running)["average_stack"]
    league = running.league
    league.settings = {**(league.settings or {}), "nightly": {"starting_stack": 25_000}}
    db.session.commit()
    assert tap(client, running, "pause").status_code == 200
    got = phones_got(app, running)
    assert got["average_stack"] == 25_000 != stack and same_field(got, running)


def test_r_pay_1_a_nights_own_money_is_read_on_every_tap(app, client, running):
    """The night's buy-in changes its prizes (R-PAY-1) without a write to its entries."""
    assert phones_got(app, running)["prizes"] == []
    running.buy_in, running.pool_share = 30, 20
    db.session.commit()
    assert tap(client, running, "resume").status_code == 200
    got = phones_got(app, running)
    assert got["prizes"] == [80] and same_field(got, running)


def test_r_clock_3_a_tap_that_did_not_commit_keeps_nothing_for_its_version(app, client, running, monkeypatch):
    """The tap from version S to S+1 fails at its commit; a check-in then makes S+1 with a new
    player: the next tap must show that player, not the field the failed tap had carried."""
    import blueprints.host.clock as views

    def broken():
        raise RuntimeError("the disk is full")

    seen = phones_got(app, running)["version"]
    monkeypatch.setattr(views, "commit_as_is", broken)
    with pytest.raises(RuntimeError):
        tap(client, running, "resume")
    db.session.rollback()
    monkeypatch.undo()
    assert host_op(client, running, "join", name="Gus", adult="yes").status_code == 200
    db.session.expire_all()
    assert running.clock_version == seen + 1  # the version the failed tap would have written
    assert tap(client, running, "resume").status_code == 200
    got = phones_got(app, running)
    assert got["players_left"] == 5 and same_field(got, running)


def test_r_clock_3_carry_moves_only_the_version_it_was_kept_for(app, night):
    kept = payload.field_part(night, night.clock_version)
    payload.carry(night.id, night.clock_version + 5, night.clock_version + 6)  # not the version kept
    assert app.extensions["night_figures"][night.id].version == night.clock_version
    payload.carry(night.id, night.clock_version, night.clock_version + 1)
    assert app.extensions["night_figures"][night.id].version == night.clock_version + 1
    assert payload.field_part(night, night.clock_version + 1) is kept


def test_r_clock_1_a_structure_changed_elsewhere_is_read_again(app, client, running):
    """The parsed structure is kept by event, and compared with the stored one on every read: a
    structure saved by another process shows at the next tap."""
    assert tap(client, running, "resume").status_code == 200
    digest = phones_got(app, running)["structure_digest"]
    old = client.get(f"/api/events/{running.id}/clock").get_json()["structure"]
    new = [{**old[0], "minutes": old[0]["minutes"] + 7}, *old[1:]]
    db.session.execute(db.update(Event).where(Event.id == running.id).values(
        structure=new, clock_version=Event.clock_version + 1))
    db.session.commit()
    assert tap(client, running, "pause").status_code == 200
    got = phones_got(app, running)
    assert got["structure_digest"] != digest  # every phone asks for the whole clock again
    whole = client.get(f"/api/events/{running.id}/clock").get_json()
    assert whole["structure"] == new and whole["structure_digest"] == got["structure_digest"]
    assert clocks.structure_json(db.session.get(Event, running.id)) == new


def test_r_clock_3_the_hosts_answer_shows_what_the_phones_got(app, client, running):
    """The host's own answer carries the very message the phones were sent (made once, in the tap's
    transaction: nothing read again between the two)."""
    login(client, "host", "pw-host")
    answer = tap(client, running, "resume").get_data(as_text=True)
    _, message = app.extensions["notices"].cached(running.id, 0)
    state = html.unescape(re.search(r'id="clock-state" hidden data-state="([^"]*)"', answer).group(1))
    assert message.decode().split("\ndata: ", 1)[1] == state + "\n\n"


def test_r_pay_1_the_ladder_is_rendered_once_per_change_of_the_field(app, client, running, monkeypatch):
    """The prize ladder every phone gets is kept with the night's figures: clock taps render it once,
    a bust-out (the field changed) and the night's own money (its pool share) render it again, as shown."""
    running.buy_in, running.pool_share = 30, 20
    db.session.commit()
    rendered = []
    real = payload._render_ladder
    monkeypatch.setattr(payload, "_render_ladder", lambda *args: rendered.append(list(args[1])) or real(*args))
    for action in ("resume", "pause", "resume"):
        assert tap(client, running, action).status_code == 200
    assert rendered == [[80]]
    assert "$80" in phones_got(app, running)["ladder"]
    assert host_op(client, running, f"bust:{entries(running)['Dan'].id}").status_code == 200
    assert tap(client, running, "pause").status_code == 200
    assert len(rendered) == 2 and phones_got(app, running)["ladder"] == real(running, rendered[-1], 0)
    running.pool_share = 25
    db.session.commit()
    assert tap(client, running, "resume").status_code == 200
    assert rendered[-1] == [100] and "$100" in phones_got(app, running)["ladder"]


def test_r_clock_3_a_tap_reads_nothing_of_the_field(app, client, running):
    """What a tap costs stays a tap's: with the field's figures and the ladder kept for the night's
    version, ten taps read no entry, member, bonus claim or journal row."""
    statements: list[str] = []

    def seen(conn, cursor, statement, *args):
        statements.append(statement)
    sa_event.listen(db.engine, "before_cursor_execute", seen)
    try:
        for action in ("resume", "pause") * 5:
            assert tap(client, running, action).status_code == 200
    finally:
        sa_event.remove(db.engine, "before_cursor_execute", seen)
    print(f"\n{len(statements) / 10:.2f} SQL statements a tap")
    assert statements and not [s for s in statements
                               if re.search(r"\bFROM (entries|members|bonus_claims|actions)\b", s)]
