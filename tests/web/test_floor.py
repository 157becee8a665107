"""Warnings and penalties on the host's phone (R-PEN-1..3): given from one player's floor panel, each
a journalled host action with its ruling; the return time on the roster and the player's phone;
ended early or extended; earlier infractions shown; every refusal beside the button, nothing written."""
import datetime as dt
import re

import pytest

from live import seats as seat_digests
from services import penalties
from services.models import Action, Entry, Event, Penalty, Ruling, utcnow
from services.night_snapshot import read_night
from tests.conftest import csrf_token
from tests.fixtures.host import floor_op, floor_url, host_op
from tests.fixtures.pages import html
from tests.fixtures.phones import phone_of
from tests.fixtures.rows import entries
from wiring.extensions import db


def counts():
    """What a refusal must leave as it was: penalties, rulings, actions, and the entries' penalty ends."""
    return (db.session.scalar(db.select(db.func.count()).select_from(Penalty)),
            db.session.scalar(db.select(db.func.count()).select_from(Ruling)),
            db.session.scalar(db.select(db.func.count()).select_from(Action)),
            tuple(db.session.scalars(db.select(Entry.penalty_until).order_by(Entry.id))))


def local(night, at):
    return at.replace(tzinfo=dt.UTC).astimezone(night.league.zone()).strftime("%H:%M")


def test_r_pen_1_a_verbal_warning_is_recorded_with_who_when_why_table_and_seat(client, night, table_of_nine):
    bob = table_of_nine["Bob"]
    panel = client.get(floor_url(night, bob))
    assert panel.status_code == 200 and "Give a warning or penalty" in html(panel)
    assert "No earlier warnings or penalties this month." in html(panel)
    given = floor_op(client, night, bob, "give:warning", reason="Swearing at the dealer")
    assert given.status_code == 200 and "Bob: verbal warning" in html(given)
    penalty = db.session.scalar(db.select(Penalty))
    assert (penalty.kind, penalty.reason, penalty.table_no, penalty.seat_no) == (
        "warning", "Swearing at the dealer", bob.table_no, bob.seat_no)
    assert penalty.user.username == "host" and penalty.until is None and penalty.hands is None
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "penalty"))
    assert ruling.rule_id == "R-PEN-1" and ruling.reason == "Swearing at the dealer" and ruling.user_id == penalty.user_id
    assert ruling.detail["table"] == bob.table_no and ruling.detail["seat"] == bob.seat_no
    assert ruling.detail["member"] == "Bob" and ruling.at is not None
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert action.kind == "floor_give" and action.summary == "Bob: verbal warning"
    assert entries(night)["Bob"].penalty_until is None  # a warning keeps nobody away


def test_r_pen_1_a_missed_round_is_one_hand_per_player_at_the_table_times_the_rounds(client, night, table_of_nine):
    """R-PEN-1/2: 2 rounds at a table of 9 are 18 hands: at 30 hands an hour, 36 minutes away."""
    cat = table_of_nine["Cat"]
    panel = html(client.get(floor_url(night, cat)))
    assert "A round at this table is 9 hands, about 18 minutes at 30 hands an hour." in panel
    given = floor_op(client, night, cat, "give:missed_rounds", rounds="2", reason="Exposed a card")
    assert given.status_code == 200
    penalty = db.session.scalar(db.select(Penalty))
    assert (penalty.kind, penalty.rounds, penalty.table_size, penalty.hands) == ("missed_rounds", 2, 9, 18)
    assert penalty.until - penalty.at == dt.timedelta(minutes=36)
    assert entries(night)["Cat"].penalty_until == penalty.until
    back = local(night, penalty.until)
    assert f"Cat: missed 2 rounds (18 hands), back about {back}" in html(given)
    assert f"Away until about <strong>{back}</strong>" in html(given)
    # the host's roster shows who is on penalty and until when: a flag in her one-line row
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert re.search(rf'>Cat</a><span class="flag" data-away>away till {back}</span>', roster)
    assert roster.count("data-away") == 1
    # every row's name opens the player's sheet (this page)
    assert f'href="{floor_url(night, table_of_nine["Ann"])}">Ann</a>' in roster


def test_r_pen_2_the_return_time_follows_the_hands_per_hour_setting(client, night, table_of_nine):
    night.settings = {**(night.settings or {}), "hands_per_hour": 60}  # as a night created under it keeps it
    db.session.commit()
    dan = table_of_nine["Dan"]
    assert floor_op(client, night, dan, "give:missed_hands", hands="5", reason="Slow roll").status_code == 200
    penalty = db.session.scalar(db.select(Penalty))
    assert penalty.hands == 5 and penalty.until - penalty.at == dt.timedelta(minutes=5)


def test_r_pen_2_a_night_keeps_the_hands_per_hour_it_was_created_with(client, night, table_of_nine):
    assert night.settings["hands_per_hour"] == 30
    night.league.settings = {**(night.league.settings or {}), "league": {"hands_per_hour": 60}}  # changed later
    db.session.commit()
    dan = table_of_nine["Dan"]
    assert floor_op(client, night, dan, "give:missed_hands", hands="5", reason="Slow roll").status_code == 200
    penalty = db.session.scalar(db.select(Penalty))
    assert penalty.until - penalty.at == dt.timedelta(minutes=10)  # 5 hands at tonight's 30 an hour
    assert floor_op(client, night, dan, f"extend:{penalty.id}", more_hands="5").status_code == 200
    db.session.expire_all()
    penalty = db.session.get(Penalty, penalty.id)
    assert penalty.until - penalty.at == dt.timedelta(minutes=20)
    night = db.session.get(Event, night.id)
    night.settings = None  # a night from before snapshots reads the league's settings now
    assert penalties.hands_per_hour(night) == 60


def test_r_pen_2_the_host_ends_a_penalty_early_or_extends_it(client, night, table_of_nine):
    eve = table_of_nine["Eve"]
    floor_op(client, night, eve, "give:missed_hands", hands="3", reason="Phone at the table")
    penalty = db.session.scalar(db.select(Penalty))
    first = penalty.until
    extended = floor_op(client, night, eve, f"extend:{penalty.id}", more_hands="9")
    assert extended.status_code == 200
    db.session.expire_all()
    penalty = db.session.get(Penalty, penalty.id)
    assert penalty.hands == 12 and penalty.until - first == dt.timedelta(minutes=18)
    assert entries(night)["Eve"].penalty_until == penalty.until
    assert f"back about {local(night, penalty.until)}" in html(extended)
    ended = floor_op(client, night, eve, f"end:{penalty.id}")
    assert ended.status_code == 200 and "Eve is back at the table" in html(ended)
    db.session.expire_all()
    assert db.session.get(Penalty, penalty.id).ended_at is not None and entries(night)["Eve"].penalty_until is None
    assert [r.kind for r in db.session.scalars(db.select(Ruling).order_by(Ruling.id))] == [
        "penalty", "penalty_extended", "penalty_ended"]
    assert "data-away" not in html(client.get(f"/host/events/{night.id}/players"))


def test_r_pen_2_undo_takes_a_penalty_back(client, night, table_of_nine):
    fay = table_of_nine["Fay"]
    floor_op(client, night, fay, "give:missed_rounds", rounds="1", reason="Acting out of turn")
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    undone = host_op(client, night, f"undo:{action.id}")
    assert undone.status_code == 200 and "Took back: Fay: missed 1 round" in html(undone)
    assert db.session.scalar(db.select(db.func.count()).select_from(Penalty)) == 0
    assert entries(night)["Fay"].penalty_until is None


def test_r_pen_2_the_players_phone_shows_the_return_time_and_hears_of_it(client, app, night, table_of_nine):
    gus = table_of_nine["Gus"]
    phone = phone_of(app, gus.member)
    before = html(phone.get(f"/events/{night.id}/me"))
    assert "data-penalty" not in before
    digest = seat_digests.seat_digest(read_night(night))
    floor_op(client, night, gus, "give:missed_hands", hands="4", reason="Abusive language")
    db.session.expire_all()
    after = seat_digests.seat_digest(read_night(night))
    bucket = gus.id % seat_digests.SEAT_BUCKETS
    width = seat_digests.SEAT_HASH_CHARS
    assert [i for i in range(seat_digests.SEAT_BUCKETS)
            if digest[i * width:(i + 1) * width] != after[i * width:(i + 1) * width]] == [bucket]
    penalty = db.session.scalar(db.select(Penalty))
    mine = html(phone.get(f"/events/{night.id}/me"))
    assert f"away from the table until about {local(night, penalty.until)}" in mine
    assert f"away from the table until about {local(night, penalty.until)}" in html(phone.get(f"/events/{night.id}"))


def test_r_pen_3_earlier_warnings_and_penalties_tonight_and_this_month_are_shown(client, night, table_of_nine):
    hal = table_of_nine["Hal"]
    earlier = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", status="settled",
                    date=night.date.replace(day=1) if night.date.day > 1 else night.date)
    db.session.add(earlier)
    db.session.flush()
    old_entry = Entry(event_id=earlier.id, member_id=hal.member_id, status="played", position=3)
    db.session.add(old_entry)
    db.session.flush()
    db.session.add(Penalty(event_id=earlier.id, entry_id=old_entry.id, member_id=hal.member_id, kind="missed_hands",
                           reason="String bet", hands=3, at=utcnow() - dt.timedelta(days=1)))
    db.session.commit()
    floor_op(client, night, hal, "give:warning", reason="Talking about a live hand")
    panel = html(client.get(floor_url(night, hal)))
    assert "Earlier warnings and penalties: 1 tonight, 1 earlier this month." in panel
    assert "Verbal warning: Talking about a live hand" in panel and "Missed 3 hands: String bet" in panel
    # another member's record is not theirs
    assert "No earlier warnings or penalties this month." in html(client.get(floor_url(night, table_of_nine["Ivy"])))


def test_r_pen_3_a_disqualification_from_the_floor_takes_the_players_chips_out_of_play(client, night, table_of_nine):
    ivy = table_of_nine["Ivy"]
    given = floor_op(client, night, ivy, "give:disqualification", reason="Collusion", chips="12,000")
    assert given.status_code == 200 and "Ivy: disqualified" in html(given)
    after = entries(night)["Ivy"]
    assert after.status == "dq" and after.chips_removed == 12_000 and after.position == 9
    assert db.session.scalar(db.select(Penalty)).kind == "disqualification"
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "disqualification"))
    assert ruling.rule_id == "R-PTS-5" and ruling.detail["table"] == ivy.table_no and ruling.detail["seat"] == ivy.seat_no
    assert "Ivy is not in the game now." in html(given)


@pytest.mark.parametrize(("op", "data", "reason"), [
    ("give:warning", {"reason": ""}, "Give the reason"),
    ("give:warning", {"reason": "bad\x00"}, "reason"),
    ("give:missed_hands", {"reason": "Slow", "hands": "0"}, "from 1 to 100"),
    ("give:missed_hands", {"reason": "Slow", "hands": "lots"}, "from 1 to 100"),
    ("give:missed_hands", {"reason": "Slow", "hands": "101"}, "from 1 to 100"),
    ("give:missed_rounds", {"reason": "Slow", "rounds": "5"}, "1 to 4"),
    ("give:missed_rounds", {"reason": "Slow", "rounds": ""}, "1 to 4"),
    ("give:disqualification", {"reason": "Cheat", "chips": "-4"}, "whole number"),
    ("give:nonsense", {"reason": "x"}, "That button did nothing"),
    ("", {}, "That button did nothing"),
    ("end:999", {}, "not in tonight"),
    ("extend:abc", {"more_hands": "3"}, "not in tonight"),
])
def test_r_pen_1_refusals_say_why_beside_the_button_and_change_nothing(client, night, table_of_nine, op, data, reason):
    before = counts()
    refused = floor_op(client, night, table_of_nine["Ann"], op, **data)
    assert refused.status_code == 422
    block = re.search(r'<div class="refusal" id="refusal" role="alert".*?</div>', html(refused), re.S)
    assert block and reason in block.group(0)
    db.session.expire_all()
    assert counts() == before


def test_r_pen_2_a_second_penalty_while_one_runs_and_ending_one_not_running_are_refused(client, night, table_of_nine):
    ann = table_of_nine["Ann"]
    floor_op(client, night, ann, "give:missed_hands", hands="3", reason="Slow")
    penalty = db.session.scalar(db.select(Penalty))
    before = counts()
    again = floor_op(client, night, ann, "give:missed_rounds", rounds="1", reason="Again")
    assert again.status_code == 422 and "already on a penalty until" in html(again) and "extend it instead" in html(again)
    bad = floor_op(client, night, ann, f"extend:{penalty.id}", more_hands="0")
    assert bad.status_code == 422 and "hands to add" in html(bad)
    assert counts() == before
    # a warning on top of a penalty is allowed: it takes nobody away
    assert floor_op(client, night, ann, "give:warning", reason="And rude").status_code == 200
    floor_op(client, night, ann, f"end:{penalty.id}")
    before = counts()
    twice = floor_op(client, night, ann, f"end:{penalty.id}")
    assert twice.status_code == 422 and "Ann is not on a penalty now." in html(twice)
    assert counts() == before


def test_r_pen_1_a_player_out_of_the_game_gets_no_penalty(client, night, table_of_nine):
    bob = table_of_nine["Bob"]
    host_op(client, night, f"bust:{bob.id}")
    before = counts()
    refused = floor_op(client, night, bob, "give:warning", reason="Late")
    assert refused.status_code == 422 and "Bob is not in the game." in html(refused)
    assert counts() == before


def test_the_floor_belongs_to_the_nights_host_and_its_players(client, app, night, table_of_nine, league):
    other = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  status="running", host_id=night.host_id)
    db.session.add(other)
    db.session.commit()
    assert client.get(f"/host/events/{other.id}/floor/{table_of_nine['Ann'].id}").status_code == 404
    assert client.get(f"/host/events/{night.id}/floor/999999").status_code == 404
    assert client.get(f"/host/events/{night.id}/floor/99999999999999999999999").status_code == 404
    assert floor_op(client, night, type("E", (), {"id": 999999})(), "give:warning", reason="x").status_code == 404
    stranger = app.test_client()
    assert stranger.get(floor_url(night, table_of_nine["Ann"])).status_code in (302, 401)


def test_a_plain_form_post_answers_the_whole_floor_page(client, night, table_of_nine):
    ann = table_of_nine["Ann"]
    page = client.post(floor_url(night, ann), data={"op": "give:warning", "reason": "Rude",
                                                    "csrf_token": csrf_token(client, "/")})
    assert page.status_code == 200 and "<html" in html(page) and "Ann: verbal warning" in html(page)
    assert "<html" not in html(client.get(floor_url(night, ann), headers={"HX-Request": "true"}))


def test_r_pen_3_a_disqualification_from_the_roster_at_another_night_this_month_counts(client, night, table_of_nine):
    earlier = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", status="settled",
                    date=night.date.replace(day=1) if night.date.day > 1 else night.date)
    db.session.add(earlier)
    db.session.flush()
    ann = table_of_nine["Ann"]
    db.session.add(Entry(event_id=earlier.id, member_id=ann.member_id, status="dq", position=7))
    db.session.add(Ruling(league_id=night.league_id, event_id=earlier.id, kind="disqualification", rule_id="R-PTS-5",
                          reason="Marked cards", detail={"member": "Ann"}))
    db.session.commit()
    panel = html(client.get(floor_url(night, ann)))
    assert "Disqualified: Marked cards" in panel
    assert "Earlier warnings and penalties: 1 earlier this month." in panel  # another night, even on the 1st


def test_r_pen_2_undo_takes_back_an_end_early_and_an_extension(client, night, table_of_nine):
    cat = table_of_nine["Cat"]
    floor_op(client, night, cat, "give:missed_hands", hands="4", reason="Slow roll")
    penalty = db.session.scalar(db.select(Penalty))
    given = (penalty.hands, penalty.until)
    floor_op(client, night, cat, f"extend:{penalty.id}", more_hands="6")
    floor_op(client, night, cat, f"end:{penalty.id}")
    newest = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert host_op(client, night, f"undo:{newest.id}").status_code == 200  # the end early: away again
    db.session.expire_all()
    penalty = db.session.get(Penalty, penalty.id)
    assert penalty.ended_at is None and entries(night)["Cat"].penalty_until == penalty.until
    assert penalty.hands == 10
    extension = db.session.scalar(db.select(Action).where(Action.undone_at.is_(None)).order_by(Action.id.desc()))
    assert host_op(client, night, f"undo:{extension.id}").status_code == 200  # the extension
    db.session.expire_all()
    penalty = db.session.get(Penalty, penalty.id)
    assert (penalty.hands, penalty.until) == given and entries(night)["Cat"].penalty_until == given[1]
