"""What a flood of check-ins leaves behind, cleared (R-MEM-1): the host turns away every waiting arrival
in one action (confirmed on the button, undone through the night's journal), and the organiser deletes
member records that hold no history (confirmed by a tick; refused, with what it holds, otherwise)."""
import re

from services.models import Entry, Member, MemberCode, PushSubscription
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op
from tests.fixtures.pages import html, refusal, text
from tests.fixtures.roster import check_in_players, phone_check_in, seated_night
from tests.fixtures.rows import count, entries, every_row, last_open_action, member
from wiring.extensions import db

FLOOD = [f"Prank {n}" for n in range(7)]


def flooded(app, client, night):
    """Ann seated by the host, then seven arrivals waiting on their own phones; the host logged in.
    The newest waiting entry's id, as the roster's button carries it."""
    seated_night(night, ["Ann"])
    for name in FLOOD:
        phone_check_in(app, night, name)
    login(client, "host", "pw-host")
    return max(e.id for e in entries(night).values() if e.status == "pending")


def test_r_mem_1_the_roster_offers_to_turn_away_every_waiting_arrival_with_a_question(app, client, night):
    newest = flooded(app, client, night)
    page = html(client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    button = re.search(r'<button[^>]*value="clear_arrivals:(\d+)"[^>]*>([^<]*)</button>', page)
    assert button and int(button.group(1)) == newest and button.group(2) == "Turn away all 7 waiting"
    assert 'data-confirm="Turn away all 7 waiting arrivals? Undo brings them back."' in page


def test_r_mem_1_one_action_turns_every_waiting_arrival_away_and_undo_brings_them_back(app, client, night):
    newest = flooded(app, client, night)
    before = every_row(journal=False)
    done = host_op(client, night, f"clear_arrivals:{newest}")
    assert done.status_code == 200
    assert "Turned away 7 waiting arrivals: Prank 0, Prank 1, Prank 2, Prank 3, Prank 4 and 2 more" in text(done)
    assert set(entries(night)) == {"Ann"} and entries(night)["Ann"].status == "playing"
    assert count(Member) == 8  # the records stay (the organiser may delete them)
    action = last_open_action(night)
    undone = host_op(client, night, f"undo:{action.id}")
    assert undone.status_code == 200 and "Took back: Turned away 7 waiting arrivals" in text(undone)
    assert every_row(journal=False) == before


def test_r_mem_1_an_arrival_after_the_screen_was_drawn_stays_waiting(app, client, night):
    newest = flooded(app, client, night)
    phone_check_in(app, night, "Late Lou")
    assert host_op(client, night, f"clear_arrivals:{newest}").status_code == 200
    assert {name: e.status for name, e in entries(night).items()} == {"Ann": "playing", "Late Lou": "pending"}


def test_r_mem_1_clearing_when_nobody_waits_is_refused_and_writes_nothing(app, client, night):
    seated_night(night, ["Ann"])
    login(client, "host", "pw-host")
    before = every_row()
    refused = host_op(client, night, "clear_arrivals:999")
    assert refused.status_code == 422 and "Nobody is waiting to be confirmed." in refusal(html(refused))
    assert every_row() == before


def test_r_mem_1_pre_registration_requests_are_not_arrivals_and_stay(app, client, night):
    newest = flooded(app, client, night)
    ann = entries(night)["Ann"]
    ann.status = "requested"  # a player's own request for a night with a buy-in (R-LATE-3)
    db.session.commit()
    host_op(client, night, f"clear_arrivals:{newest}")
    assert {name: e.status for name, e in entries(night).items()} == {"Ann": "requested"}


def test_r_mem_1_only_the_nights_host_clears_its_arrivals(app, client, night):
    newest = flooded(app, client, night)
    stranger = app.test_client()
    before = every_row()
    answer = stranger.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true"},
                           data={"op": f"clear_arrivals:{newest}", "csrf_token": csrf_token(stranger)})
    assert answer.status_code == 401 and every_row() == before


# ---- the organiser deletes a record with no history ----

def organiser_on(client, league, who):
    login(client, "organiser", "pw-organiser")
    return f"/organiser/{league.slug}/members/{who.id}"


def delete(client, page, sure=True):
    data = {"csrf_token": csrf_token(client, page), **({"sure": "yes"} if sure else {})}
    return client.post(page + "/delete", data=data)


def test_r_mem_1_a_record_with_no_history_is_deleted_with_its_codes(app, client, night, league):
    flooded(app, client, night)
    host_op(client, night, f"clear_arrivals:{max(e.id for e in entries(night).values())}")
    prank = member("Prank 0")
    db.session.add(MemberCode(member_id=prank.id, code_hash="x" * 64, expires_at=prank.created_at))
    db.session.add(PushSubscription(member_id=prank.id, endpoint="https://fcm.googleapis.com/fcm/send/x",
                                    p256dh="k", auth="a"))
    db.session.commit()
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    page = organiser_on(client, league, prank)
    shown = text(client.get(page))
    assert "Delete this record" in shown and "Yes, delete Prank 0's record for good" in shown
    done = delete(client, page)
    assert done.status_code == 303 and done.headers["Location"] == f"/organiser/{league.slug}/members"
    assert member("Prank 0") is None and count(MemberCode) == 0 and count(PushSubscription) == 0
    assert "Deleted Prank 0's record." in text(client.get(done.headers["Location"]))


def test_r_mem_1_deleting_without_the_tick_is_refused_and_writes_nothing(app, client, night, league):
    phone_check_in(app, night, "Typo Tim")
    entry = entries(night)["Typo Tim"]
    db.session.delete(entry)
    db.session.commit()
    page = organiser_on(client, league, member("Typo Tim"))
    before = every_row()
    refused = delete(client, page, sure=False)
    assert refused.status_code == 422 and "Tick “Yes, delete Typo Tim's record”" in text(refused)
    assert every_row() == before


def test_r_mem_1_a_record_with_history_is_refused_with_what_it_holds(app, client, night, league):
    check_in_players(night, ["Ann"])  # a night
    page = organiser_on(client, league, member("Ann"))
    assert "Delete this record" not in html(client.get(page))
    before = every_row()
    refused = delete(client, page)
    assert refused.status_code == 409
    assert "Ann can't be deleted: their record holds 1 night." in text(refused)
    assert every_row() == before


def test_r_mem_2_a_banned_member_is_history_too(app, client, night, league):
    phone_check_in(app, night, "Rowdy Ray")
    db.session.delete(entries(night)["Rowdy Ray"])
    db.session.commit()
    page = organiser_on(client, league, member("Rowdy Ray"))
    client.post(page + "/ban", data={"csrf_token": csrf_token(client, page), "reason": "Abusive to staff"})
    refused = delete(client, page)
    assert refused.status_code == 409 and "holds a ban" in html(refused) and member("Rowdy Ray") is not None


def test_r_mem_1_deleting_without_an_organisers_login_is_refused(app, client, night, league):
    phone_check_in(app, night, "Typo Tim")
    tim = member("Typo Tim")
    page = f"/organiser/{league.slug}/members/{tim.id}"
    anonymous = app.test_client()
    before = every_row()
    assert anonymous.post(page + "/delete", data={"csrf_token": csrf_token(anonymous), "sure": "yes"}).status_code in (302, 401)
    login(client, "host", "pw-host")  # a host is not the organiser
    assert client.post(page + "/delete", data={"csrf_token": csrf_token(client, "/"), "sure": "yes"}).status_code == 403
    assert every_row() == before


def test_r_mem_1_undo_that_would_bring_back_a_deleted_member_is_refused(app, client, night, league):
    newest = flooded(app, client, night)
    host_op(client, night, f"clear_arrivals:{newest}")
    action = last_open_action(night)
    organiser = app.test_client()
    page = organiser_on(organiser, league, member("Prank 3"))
    assert delete(organiser, page).status_code == 303
    before = every_row()
    refused = host_op(client, night, f"undo:{action.id}")
    assert refused.status_code == 422 and "member record deleted by the organiser" in text(refused)
    assert every_row() == before and count(Entry) == 1
