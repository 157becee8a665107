"""Players pre-register themselves from their phone (R-LATE-3, R-LATE-4, R-MEM-1).

The phone knows its member by the signed member cookie. A free night puts the stack in play at once;
a night with a buy-in waits as a request until the host confirms the buy-in was paid. Every write is
journaled (the host sees it as the roster's last action and can undo it) and moves the clock's
version on. Every refusal changes nothing.
"""
import datetime as dt
import re

import pytest

from services import field
from services.models import Action, Entry, Event, League, Member, utcnow
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures.host import fill, host_op, tap
from tests.fixtures.pages import html, text
from tests.fixtures.phones import HX, join, phone_of, prereg
from tests.fixtures.rows import entries
from wiring.extensions import db


def new_member(league_id, name, adult=True):
    member = Member.named(league_id, name)
    member.adult_confirmed_at = utcnow() if adult else None
    db.session.add(member)
    db.session.commit()
    return member


def block(text, event):
    """The event's pre-registration block in a page (the coming-nights list has one per night)."""
    return re.search(rf'id="prereg-{event.id}".*?</div>', text, re.S).group(0)


def state(event):
    """Everything a refusal must leave alone: the entries, the journal, the clock's version."""
    db.session.expire_all()
    rows = db.session.scalars(db.select(Entry).where(Entry.event_id == event.id).order_by(Entry.id)).all()
    return ([(e.member_id, e.status, e.pre_registered) for e in rows],
            db.session.scalar(db.select(db.func.count()).select_from(Action)),
            db.session.get(Event, event.id).clock_version)


def last_action():
    return db.session.scalar(db.select(Action).order_by(Action.id.desc()).limit(1))


@pytest.fixture
def friday(night, league):
    """A free night next week at the Rose, not started: open for pre-registration."""
    event = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly",
                  date=dt.date.today() + dt.timedelta(days=7), start_time=dt.time(19, 0), host_id=night.host_id,
                  status="scheduled")
    db.session.add(event)
    db.session.commit()
    return event


@pytest.fixture
def ann(app, league):
    member = new_member(league.id, "Ann Lee")
    return member, phone_of(app, member)


# ---- the free night: one tap, stack in play at once ----

def test_r_late_3_a_free_night_one_tap_from_coming_nights_then_cancel(ann, friday, league):
    member, phone = ann
    page = phone.get(f"/leagues/{league.slug}/nights")
    assert page.status_code == 200 and "Cookie" in page.headers["Vary"]
    shown = text(page)
    assert f'id="prereg-{friday.id}"' in shown and "Pre-register as Ann Lee" in shown
    assert f'action="/events/{friday.id}/prereg"' in shown and 'name="csrf_token"' in shown  # app.js posts it by fetch
    version = state(friday)[2]

    response = prereg(phone, friday)
    assert response.status_code == 200
    assert {"HX-Request", "Cookie"} <= set(response.vary) and "no-store" in response.headers["Cache-Control"]
    body = text(response)
    assert "<html" not in body and f'id="prereg-{friday.id}"' in body
    assert "Done: you're in." in body and "You're pre-registered." in body and "Cancel my pre-registration" in body
    entry = entries(friday)["Ann Lee"]
    assert (entry.status, entry.pre_registered, entry.arrived_at) == ("registered", True, None)
    assert read_night(friday).players_left == 1 and read_night(friday).chip_count()[0] > 0  # the stack is in play
    action = last_action()
    assert (action.user_id, action.kind) == (None, "self_prereg")  # no host: the player did it
    assert action.summary == "Ann Lee pre-registered on their phone"
    assert state(friday)[2] == version + 1  # every screen re-reads players left

    again = block(text(phone.get(f"/leagues/{league.slug}/nights")), friday)
    assert "You're pre-registered." in again and "Pre-register as" not in again

    cancelled = prereg(phone, friday, cancel=True)
    assert cancelled.status_code == 200 and "Your pre-registration is cancelled." in text(cancelled)
    assert "Pre-register as Ann Lee" in text(cancelled)  # and they may change their mind again
    assert entries(friday) == {} and read_night(friday).players_left == 0
    assert last_action().summary == "Ann Lee cancelled their pre-registration on their phone"
    assert state(friday)[2] == version + 2


def test_r_late_3_from_the_event_page_and_without_script(ann, friday):
    member, phone = ann
    page = text(phone.get(f"/events/{friday.id}"))
    assert f'id="prereg-{friday.id}"' in page and "Pre-register as Ann Lee" in page
    done = prereg(phone, friday, htmx=False)
    assert done.status_code == 303 and done.headers["Location"].endswith(f"/events/{friday.id}/prereg")
    landed = phone.get(done.headers["Location"])
    assert landed.status_code == 200 and "Done: you're in." in text(landed)  # flashed once
    assert "<html" in text(landed) and "Pre-register" in text(landed)
    assert "You're pre-registered." in text(phone.get(f"/events/{friday.id}"))
    assert prereg(phone, friday, cancel=True, htmx=False).status_code == 303
    assert entries(friday) == {}


def test_the_prereg_block_is_a_page_or_an_htmx_fragment(ann, friday):
    _, phone = ann
    page = phone.get(f"/events/{friday.id}/prereg")
    fragment = phone.get(f"/events/{friday.id}/prereg", headers=HX)
    assert page.status_code == fragment.status_code == 200
    assert "<html" in text(page) and "<html" not in text(fragment)
    for response in (page, fragment):
        assert {"HX-Request", "Cookie"} <= set(response.vary)
        assert "no-store" in response.headers["Cache-Control"]
        assert "Pre-register as Ann Lee" in text(response)
    assert phone.get("/events/999999/prereg").status_code == 404
    token = csrf_token(phone, "/login")
    assert phone.post("/events/999999/prereg", headers=HX, data={"csrf_token": token}).status_code == 404


def test_the_host_sees_it_last_and_can_undo_it(client, ann, night):
    _, phone = ann
    assert prereg(phone, night).status_code == 200
    login(client, "host", "pw-host")
    roster = text(client.get(f"/host/events/{night.id}/players", headers=HX))
    assert "Last: Ann Lee pre-registered on their phone" in roster and "Pre-registered, not here yet" in roster
    undo = host_op(client, night, f"undo:{last_action().id}")
    assert undo.status_code == 200 and "Took back: Ann Lee pre-registered on their phone" in text(undo)
    assert entries(night) == {}
    # and a cancel undone puts the pre-registration back as it was
    prereg(phone, night)
    prereg(phone, night, cancel=True)
    host_op(client, night, f"undo:{last_action().id}")
    entry = entries(night)["Ann Lee"]
    assert (entry.status, entry.pre_registered) == ("registered", True)


# ---- refusals: a clear message, the right status, nothing changes ----

def test_a_phone_without_a_member_is_offered_to_join_or_claim(app, friday, league):
    phone = app.test_client()
    listing = text(phone.get(f"/leagues/{league.slug}/nights"))
    assert "once it holds your member card" in listing and 'href="/me"' in listing
    assert "Pre-register as" not in listing
    before = state(friday)
    for htmx in (True, False):
        refused = prereg(phone, friday, htmx=htmx)
        assert refused.status_code == 403
        shown = text(refused)
        assert "doesn't hold your member card" in shown and 'href="/me"' in shown and 'href="/me/claim"' in shown
        assert state(friday) == before
    assert prereg(phone, friday, cancel=True).status_code == 403 and state(friday) == before


def test_an_event_of_another_league_is_refused(app, friday):
    other = League(name="Other League", slug="other-league", kind="free")
    db.session.add(other)
    db.session.commit()
    stranger = new_member(other.id, "Sam Stranger")
    phone = phone_of(app, stranger)
    before = state(friday)
    refused = prereg(phone, friday)
    assert refused.status_code == 403 and "your member card is for another league" in text(refused)
    assert prereg(phone, friday, cancel=True).status_code == 403
    assert state(friday) == before
    assert "Pre-register as" not in text(phone.get(f"/events/{friday.id}"))


@pytest.mark.parametrize("status", ["settled"])  # the one status after play (league/statuses.py)
def test_a_game_that_is_over_is_refused(ann, friday, status):
    _, phone = ann
    friday.status = status
    db.session.commit()
    before = state(friday)
    refused = prereg(phone, friday)
    assert refused.status_code == 422 and "This game is over." in text(refused)
    assert state(friday) == before


def test_r_late_3_once_play_has_started_they_check_in_at_the_venue(client, app, ann, night, league):
    _, phone = ann
    bob = new_member(league.id, "Bob Early")
    bob_phone = phone_of(app, bob)
    assert prereg(bob_phone, night).status_code == 200
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    before = state(night)
    refused = prereg(phone, night)
    assert refused.status_code == 422
    assert "Play has started" in text(refused) and "check in at the venue" in text(refused)
    assert "Play has started" in text(phone.get(f"/events/{night.id}"))  # said before they tap, too
    # Bob's stack is in play now: he can't take it back from his phone
    late = prereg(bob_phone, night, cancel=True)
    assert late.status_code == 422 and "Tell the host" in text(late)
    assert "Cancel my pre-registration" not in text(bob_phone.get(f"/events/{night.id}"))
    assert state(night) == before


def test_already_in_this_game_is_refused(app, ann, night, league):
    member, phone = ann
    assert prereg(phone, night).status_code == 200
    before = state(night)
    twice = prereg(phone, night)
    assert twice.status_code == 422 and "already pre-registered" in text(twice)
    # a player who checked in at the door is in the game already
    walker = app.test_client()
    assert join(walker, night, "Walk In").status_code == 303
    before = state(night)
    refused = prereg(walker, night)
    assert refused.status_code == 422 and "already in this game" in text(refused)
    assert state(night) == before


def test_r_late_4_still_in_another_live_game_that_night_is_refused(app, ann, night, friday):
    """Two games the same night: still in one, no entry to the other. A game next week is no
    clash: a player may pre-register for it from their seat tonight."""
    member, phone = ann
    night.status = "running"
    db.session.add(Entry(event_id=night.id, member_id=member.id, status="playing"))
    late_game = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                      start_time=dt.time(23, 0), host_id=night.host_id, status="scheduled")
    db.session.add(late_game)
    db.session.commit()
    before = state(late_game)
    refused = prereg(phone, late_game)
    assert refused.status_code == 422 and "still in the game at Rose & Crown" in text(refused)
    assert "one game at a time" in text(refused) and state(late_game) == before
    assert prereg(phone, friday).status_code == 200
    assert entries(friday)["Ann Lee"].status == "registered"


def test_r_mem_1_a_member_who_never_confirmed_18_must_confirm_it(client, app, friday, league):
    member = new_member(league.id, "Imported Ivy", adult=False)  # e.g. from a results file
    phone = phone_of(app, member)
    form = text(phone.get(f"/events/{friday.id}"))
    assert 'name="adult"' in form and "I am 18 or over" in form
    before = state(friday)
    refused = prereg(phone, friday)
    assert refused.status_code == 422 and "Members must be 18 or over" in text(refused)
    assert state(friday) == before and db.session.get(Member, member.id).adult_confirmed_at is None
    assert prereg(phone, friday, adult="yes").status_code == 200
    assert db.session.get(Member, member.id).adult_confirmed_at is not None
    assert entries(friday)["Imported Ivy"].status == "registered"
    # the host's Undo takes back the confirmation with the pre-registration
    login(client, "host", "pw-host")
    host_op(client, friday, f"undo:{last_action().id}")
    db.session.expire_all()
    assert entries(friday) == {} and db.session.get(Member, member.id).adult_confirmed_at is None


def test_csrf_missing_or_forged_is_refused(ann, friday):
    _, phone = ann
    before = state(friday)
    assert phone.post(f"/events/{friday.id}/prereg", headers=HX).status_code == 400
    assert phone.post(f"/events/{friday.id}/prereg", headers=HX, data={"csrf_token": "forged"}).status_code == 400
    assert phone.post(f"/events/{friday.id}/prereg/cancel", data={}).status_code == 400
    assert state(friday) == before


def test_another_members_entry_cannot_be_cancelled(app, ann, friday, league):
    member, phone = ann
    assert prereg(phone, friday).status_code == 200
    ann_entry = entries(friday)["Ann Lee"]
    bob = phone_of(app, new_member(league.id, "Bob Other"))
    before = state(friday)
    refused = prereg(bob, friday, cancel=True, entry=str(ann_entry.id), member=str(member.id))
    assert refused.status_code == 422 and "no pre-registration to cancel" in text(refused)
    assert state(friday) == before and entries(friday)["Ann Lee"].status == "registered"


def test_names_render_as_text(client, app, friday, league):
    member = new_member(league.id, "O'Brien <b>")
    phone = phone_of(app, member)
    listing = html(phone.get(f"/leagues/{league.slug}/nights"))
    assert "Pre-register as O&#39;Brien &lt;b&gt;" in listing and "<b>" not in listing
    done = html(prereg(phone, friday))
    assert "<b>" not in done
    login(client, "host", "pw-host")
    roster = html(client.get(f"/host/events/{friday.id}/players", headers=HX))
    assert "Last: O&#39;Brien &lt;b&gt; pre-registered on their phone" in roster and "<b>" not in roster


def test_taps_are_rate_limited_per_member(ann, friday):
    _, phone = ann
    for n in range(12):  # PREREG_RATE_LIMIT: 12 a minute
        assert prereg(phone, friday, cancel=bool(n % 2)).status_code == 200
    before = state(friday)
    limited = prereg(phone, friday)
    assert limited.status_code == 429 and "Too many taps" in text(limited)
    assert 0 < int(limited.headers["Retry-After"]) <= 60
    assert state(friday) == before


# ---- a night with a buy-in: the request waits for the host (R-LATE-3 "with the full buy-in") ----

@pytest.fixture
def cash(friday):
    friday.buy_in = 30
    db.session.commit()
    return friday


def test_r_late_3_cash_request_then_the_host_confirms_the_buy_in(client, ann, cash, night):
    member, phone = ann
    listing = text(phone.get(f"/events/{cash.id}"))
    assert "Ask to pre-register · $30" in listing
    asked = prereg(phone, cash)
    assert asked.status_code == 200 and "Sent to the host." in text(asked) and "Pre-registration asked." in text(asked)
    assert "$30 buy-in is paid" in text(asked)
    entry = entries(cash)["Ann Lee"]
    assert (entry.status, entry.pre_registered) == ("requested", False)
    # no stack in play on the player's word, and not "in a game" for R-LATE-4
    assert read_night(cash).players_left == 0 and read_night(cash).chip_count()[0] == 0
    assert field.live_game_elsewhere(member, night) is None
    assert last_action().summary == "Ann Lee asked on their phone to pre-register ($30 buy-in to confirm)"
    home = text(phone.get("/me"))  # their home page says where they stand
    assert "Asked to pre-register: the host confirms you once your buy-in is paid." in home

    login(client, "host", "pw-host")
    roster = text(client.get(f"/host/events/{cash.id}/players", headers=HX))
    assert "Pre-registration requests" in roster and f'value="confirm:{entry.id}"' in roster
    assert "Buy-in paid" in roster and "Turn away" in roster
    confirmed = host_op(client, cash, f"confirm:{entry.id}")
    assert confirmed.status_code == 200 and "Confirmed Ann Lee" in text(confirmed)
    entry = entries(cash)["Ann Lee"]
    assert (entry.status, entry.pre_registered) == ("registered", True)
    assert read_night(cash).players_left == 1 and read_night(cash).chip_count()[0] > 0  # now the stack is in play
    assert "You're pre-registered." in text(phone.get(f"/events/{cash.id}"))


def test_r_late_3_cash_request_turned_away_puts_nothing_in_play(client, ann, cash):
    _, phone = ann
    prereg(phone, cash)
    entry = entries(cash)["Ann Lee"]
    login(client, "host", "pw-host")
    turned = host_op(client, cash, f"reject:{entry.id}")
    assert turned.status_code == 200 and "Turned away Ann Lee" in text(turned)
    assert entries(cash) == {} and read_night(cash).players_left == 0 and read_night(cash).chip_count()[0] == 0
    assert "Ask to pre-register · $30" in text(phone.get(f"/events/{cash.id}"))  # they may ask again


def test_a_cash_request_can_be_cancelled_by_the_player(ann, cash):
    _, phone = ann
    prereg(phone, cash)
    assert "Cancel my pre-registration" in text(phone.get(f"/events/{cash.id}"))
    assert prereg(phone, cash, cancel=True).status_code == 200
    assert entries(cash) == {}


# ---- a request still waiting at the end of the night, or turning up at the door ----

def test_r_late_3_settling_with_a_request_still_waiting_is_refused(client, ann, night):
    night.buy_in = 30
    db.session.commit()
    assert prereg(ann[1], night).status_code == 200
    roster = fill(client, night, 2)
    host_op(client, night, f"bust:{roster['Player 00'].id}")
    before = state(night)
    refused = host_op(client, night, "settle")
    assert refused.status_code == 422 and state(night) == before


def test_r_late_3_a_requester_can_still_check_in_at_the_door(ann, cash):
    _, phone = ann
    prereg(phone, cash)
    cash.status = "running"
    db.session.commit()
    arrived = phone.post(f"/check-in/{cash.check_in_code}", data={"csrf_token": csrf_token(phone, "/login")})
    assert arrived.status_code == 303 and entries(cash)["Ann Lee"].status == "pending"
