"""The host's roster and sheet actions kept on the phone while the signal was down, sent when it came
back (R-PTS-5, R-PEN-1/2, R-MEM-1): a bust-out and a penalty journalled at the moment they were
tapped (`tapped_at_ms`, within R-CLOCK-3's bounds), a kept moment in the future taken as now, one too
old or garbled refused with nothing written, the same key sent again applied once, one that no longer
applies refused with its reason; and the league's members for the door with no signal, the host's
only."""
import datetime as dt
import re

import pytest

from league import clock as league_clock
from live.payload import clock_payload
from services import clocks
from services.models import Action, BonusClaim, Entry, Member, Penalty, User, moment
from tests.conftest import csrf_token, login
from tests.fixtures.host import floor_op, host_op, seat_players, tap
from tests.fixtures.pages import html
from tests.fixtures.rows import entries, every_row, written
from wiring.extensions import db

T0 = 1_900_000_000_000  # the server's time, in the test's hands
MINUTE = 60_000
KEY = "k" * 32


@pytest.fixture
def server_time(monkeypatch):
    now = {"ms": T0}
    monkeypatch.setattr(clocks, "now_ms", lambda: now["ms"])
    return now


@pytest.fixture
def three(client, night):
    """Ann, Bob and Cy in tonight's game, the host logged in."""
    return seat_players(client, night, ["Ann", "Bob", "Cy"])


def actions(night, kind):
    db.session.expire_all()
    return db.session.scalars(db.select(Action).where(Action.event_id == night.id, Action.kind == kind)).all()


def test_r_pts_5_a_bust_out_kept_offline_is_journalled_when_it_was_tapped(client, night, three, server_time):
    tapped = T0 - 4 * MINUTE  # the signal came back four minutes after the host's tap
    answer = host_op(client, night, f"bust:{three['Cy'].id}", tapped_at_ms=str(tapped))
    assert answer.status_code == 200 and "Cy out in 3rd" in html(answer)
    assert entries(night)["Cy"].status == "played"
    [bust] = actions(night, "bust")
    assert bust.at == moment(tapped)


def test_r_pts_5_a_bust_out_sent_as_made_is_journalled_now(client, night, three, server_time):
    before = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=5)
    assert host_op(client, night, f"bust:{three['Cy'].id}").status_code == 200
    [bust] = actions(night, "bust")
    assert bust.at >= before  # the row's own default: no tapped moment, the server's now


def test_r_pts_5_a_kept_moment_in_the_future_is_taken_as_now(client, night, three, server_time):
    assert host_op(client, night, f"bust:{three['Cy'].id}", tapped_at_ms=str(T0 + 3 * MINUTE)).status_code == 200
    [bust] = actions(night, "bust")
    assert bust.at == moment(T0)


@pytest.mark.parametrize("raw, said", [
    (str(T0 - league_clock.TAP_KEPT_MS - 1), "Tapped more than 10 minutes ago, too long to apply as then"),
    ("4 minutes ago", "That request was garbled; nothing changed."),
    ("-5", "That request was garbled; nothing changed."),
    (str(10**14), "That request was garbled; nothing changed."),
])
def test_r_pts_5_a_kept_bust_out_too_old_or_garbled_is_refused_nothing_written(client, night, three, server_time,
                                                                               raw, said):
    before = written(night)
    answer = host_op(client, night, f"bust:{three['Cy'].id}", tapped_at_ms=raw)
    assert answer.status_code == 422 and said in html(answer)
    assert written(night) == before


def test_r_pts_5_the_same_kept_bust_out_sent_twice_is_applied_once(client, night, three, server_time):
    """The answer to a kept bust-out was lost (wifi up, no internet): the phone sends it again with the
    same key 15 seconds later, and the server answers as the first time, applying nothing more."""
    # the very same fields, the CSRF token too (a new one each second would make it another request)
    fields = {"tapped_at_ms": str(T0 - MINUTE), "idempotency_key": KEY, "version": "3",
              "csrf_token": csrf_token(client, "/")}
    first = host_op(client, night, f"bust:{three['Cy'].id}", **fields)
    rows = every_row()
    server_time["ms"] += 15_000
    again = host_op(client, night, f"bust:{three['Cy'].id}", **fields)
    assert first.status_code == again.status_code == 200
    assert again.headers.get("Idempotency-Replayed") == "true" and html(again) == html(first)
    assert every_row() == rows
    assert len(actions(night, "bust")) == 1


def test_r_pts_5_a_kept_bust_out_for_a_player_already_out_comes_back_with_the_reason(client, night, three,
                                                                                     server_time):
    """Another host busted Cy while this phone had no signal: its kept Out is refused with why."""
    assert host_op(client, night, f"bust:{three['Cy'].id}").status_code == 200
    before = written(night)
    answer = host_op(client, night, f"bust:{three['Cy'].id}", tapped_at_ms=str(T0 - MINUTE), idempotency_key=KEY)
    assert answer.status_code == 422
    assert re.search(r'<p class="error">[^<]*Cy[^<]*</p>', html(answer))
    assert written(night) == before


def test_r_pen_2_a_penalty_kept_offline_starts_and_ends_from_its_moment(client, night, three, server_time):
    tapped = T0 - 6 * MINUTE
    answer = floor_op(client, night, three["Bob"], "give:missed_hands", hands="5", reason="Slow roll",
                      tapped_at_ms=str(tapped))
    assert answer.status_code == 200
    db.session.expire_all()
    penalty = db.session.scalar(db.select(Penalty))
    assert penalty.at == moment(tapped)
    assert penalty.until == moment(tapped) + dt.timedelta(minutes=10)  # 5 hands at 30 an hour
    assert entries(night)["Bob"].penalty_until == penalty.until
    [given] = actions(night, "floor_give")
    assert given.at == moment(tapped)


def test_r_pen_2_a_penalty_ended_early_or_extended_offline_takes_its_moment(client, night, three, server_time):
    """Extended two hands at 7 minutes before the signal came back, ended early at 2: the penalty's return
    moves on from the extension, and it ends when the host said so, not when the phone sent it."""
    started = T0 - 6 * MINUTE
    assert floor_op(client, night, three["Bob"], "give:missed_hands", hands="5", reason="Slow roll",
                    tapped_at_ms=str(started)).status_code == 200
    penalty = db.session.scalar(db.select(Penalty))
    extended = floor_op(client, night, three["Bob"], f"extend:{penalty.id}", more_hands="2",
                        tapped_at_ms=str(T0 - 5 * MINUTE))
    assert extended.status_code == 200
    ended = floor_op(client, night, three["Bob"], f"end:{penalty.id}", tapped_at_ms=str(T0 - 2 * MINUTE))
    assert ended.status_code == 200 and "Bob is back at the table" in html(ended)
    db.session.expire_all()
    penalty = db.session.get(Penalty, penalty.id)
    assert penalty.hands == 7 and penalty.until == moment(started) + dt.timedelta(minutes=14)  # 7 hands, 30 an hour
    assert penalty.ended_at == moment(T0 - 2 * MINUTE)
    assert [action.at for action in actions(night, "floor_end")] == [moment(T0 - 2 * MINUTE)]


def test_r_pen_1_a_warning_kept_too_long_is_refused_nothing_written(client, night, three, server_time):
    rows = every_row()
    answer = floor_op(client, night, three["Bob"], "give:warning", reason="Swearing",
                      tapped_at_ms=str(T0 - 11 * MINUTE))
    assert answer.status_code == 422 and "too long to apply as then" in html(answer)
    assert every_row() == rows


def test_r_pen_1_a_garbled_moment_on_the_sheet_is_refused(client, night, three, server_time):
    rows = every_row()
    answer = floor_op(client, night, three["Bob"], "give:warning", reason="Swearing", tapped_at_ms="1e12")
    assert answer.status_code == 422 and "That request was garbled; nothing changed." in html(answer)
    assert every_row() == rows


def test_r_mem_1_the_door_list_names_every_member_and_where_they_are_tonight(client, night, three):
    from services.models import Member
    db.session.add(Member.named(night.league_id, "Dora Walker"))
    db.session.commit()
    host_op(client, night, f"bust:{three['Cy'].id}")
    answer = client.get(f"/host/events/{night.id}/members.json")
    assert answer.status_code == 200 and "no-store" in answer.headers["Cache-Control"]
    listed = answer.get_json()
    by_name = {m["name"]: m for m in listed["members"]}
    assert list(by_name) == ["Ann", "Bob", "Cy", "Dora Walker"]
    assert by_name["Ann"]["status"] == "playing" and by_name["Ann"]["entry"] == three["Ann"].id
    assert by_name["Cy"]["status"] == "played"
    assert by_name["Dora Walker"]["status"] is None and by_name["Dora Walker"]["entry"] is None
    # what tells two apart, as the search shows it: never a phone number or an email
    assert set(by_name["Ann"]) == {"id", "name", "id_first", "entry", "status", "table", "seat"}


def test_r_mem_1_the_door_list_is_the_nights_host_or_organisers_only(client, night, league):
    url = f"/host/events/{night.id}/members.json"
    logged_out = client.get(url)
    assert logged_out.status_code in (302, 401) and "Ann" not in html(logged_out)
    other = User(username="other", display_name="Other host", role="host", league_id=league.id)
    other.set_password("pw-other")
    db.session.add(other)
    db.session.commit()
    login(client, "other", "pw-other")
    assert client.get(url).status_code == 403
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, "organiser", "pw-organiser")
    assert client.get(url).status_code == 200
    assert client.get("/host/events/99999/members.json").status_code == 404


@pytest.fixture
def dora(night):
    """A member not in tonight's game; the night's registration closes after 30 minutes of play."""
    member = Member.named(night.league_id, "Dora Walker")
    night.settings = {**night.settings, "registration_close_minutes": 30}
    db.session.add(member)
    db.session.commit()
    return member


def arrived(night, member):
    db.session.expire_all()
    return db.session.scalar(db.select(Entry).where(Entry.event_id == night.id, Entry.member_id == member.id))


def test_r_late_1_a_check_in_kept_while_registration_was_open_is_in_though_sent_after_it_closed(
        client, night, three, dora, server_time):
    """The host checked Dora in at 29 minutes of play with no signal; it came back at 32: she arrived
    when the host said so, with registration open then, and needs no ruling."""
    tap(client, night, "start")
    tapped = T0 + 29 * MINUTE
    server_time["ms"] = T0 + 32 * MINUTE
    answer = host_op(client, night, f"walk_in:{dora.id}", tapped_at_ms=str(tapped))
    assert answer.status_code == 200 and "Checked in Dora Walker" in html(answer)
    entry = arrived(night, dora)
    assert entry.status == "playing" and entry.arrived_at == moment(tapped)


def test_r_late_1_a_check_in_kept_after_registration_closed_is_refused_with_the_override(
        client, night, three, dora, server_time):
    tap(client, night, "start")
    server_time["ms"] = T0 + 32 * MINUTE
    answer = host_op(client, night, f"walk_in:{dora.id}", tapped_at_ms=str(T0 + 31 * MINUTE))
    assert answer.status_code == 422 and "registration ended after 30 minutes of play" in html(answer)
    assert 'form="override"' in html(answer)
    assert arrived(night, dora) is None


def test_r_late_1_a_check_in_kept_before_the_clock_changed_is_judged_on_the_clock_now(
        client, night, three, dora, server_time):
    """The host's phone kept Dora's check-in at 29 minutes; meanwhile another screen jumped the clock
    on: the clock at the tap can no longer be told from the stored one, so she is judged as now."""
    tap(client, night, "start")
    server_time["ms"] = T0 + 30 * MINUTE + 30_000
    tap(client, night, "jump", index="3")
    server_time["ms"] = T0 + 31 * MINUTE
    answer = host_op(client, night, f"walk_in:{dora.id}", tapped_at_ms=str(T0 + 29 * MINUTE))
    assert answer.status_code == 422 and "registration ended" in html(answer)
    assert arrived(night, dora) is None


def test_r_chip_2_a_drink_bonus_kept_in_the_major_break_is_given_though_sent_after_it(client, night, three,
                                                                                     server_time):
    """The host gave Ann her drink bonus three minutes before the major break ended, with no signal; the
    signal came back after the break: the window at the tap was open, so no ruling is needed. Sent as made, now, it
    is outside the window."""
    structure = clock_payload(night)["structure"]
    major = next(i for i, item in enumerate(structure) if item.get("major"))
    tap(client, night, "start")
    tap(client, night, "jump", index=str(major + 1))  # the major break begins at T0
    server_time["ms"] = T0 + (structure[major]["minutes"] + 2) * MINUTE  # and is over
    ann, bob = three["Ann"], three["Bob"]
    refused = host_op(client, night, f"bonus:{bob.id}", kind="drink")
    assert refused.status_code == 422 and "only before play starts or during the major break" in html(refused)
    tapped = T0 + (structure[major]["minutes"] - 3) * MINUTE
    given = host_op(client, night, f"bonus:{ann.id}", kind="drink", tapped_at_ms=str(tapped))
    assert given.status_code == 200 and "Ann: Drink bonus" in html(given), re.findall(r"class=\"error\">([^<]*)", html(given))
    db.session.expire_all()
    assert db.session.scalars(db.select(BonusClaim.entry_id).where(BonusClaim.kind == "drink")).all() == [ann.id]
