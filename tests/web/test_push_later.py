"""Web Push messages that depend on the night as it goes on, received and decrypted by the loopback push
service: registration closing (R-LATE-1, R-LATE-3: scheduled again whenever the clock changes, told once
a night to each pre-registered player not yet arrived) and the Top-10 Shoot-out (R-QUAL-4: only to
those a night puts in)."""
import datetime as dt
import time

import pytest

from league.structures import Break, Level
from live.push import still_true
from services import checkin, clocks, prereg
from services.clocks import now_ms
from services.models import Event, Member, PushSent
from tests.conftest import login
from tests.fixtures.host import tap
from tests.fixtures.push_service import messages, subscribed
from tests.fixtures.roster import (
    bust_out,
    check_in_players,
    draw_seats,
    host_action,
    seated_night,
    settle_night,
)
from tests.fixtures.rows import member
from wiring.extensions import db

CLOSING = "Registration closes soon"


def closing_body(minutes):
    unit = "minute" if minutes == 1 else "minutes"
    return f"Registration at Rose & Crown closes in {minutes} {unit}: check in at the door to keep your place."


def pre_registered(night, *names):
    """R-LATE-3: each named new member pre-registered by the host (one action each), not arrived."""
    for name in names:
        with host_action(night, "prereg", f"Pre-registered {name}") as log:
            new = Member.named(night.league_id, name)
            db.session.add(new)
            db.session.flush()
            prereg.pre_register(night, new, log)


def arrives(night, name):
    """R-LATE-3: the member (pre-registered, or known already) arrives and the host checks them in."""
    with host_action(night, "checkin", f"{name} arrived") as log:
        checkin.check_in(night, member(name), log, by_host=True, user_id=log.action.user_id)


def closes_after(night, minutes):
    """The night's settings close registration after `minutes` of play (R-LATE-1)."""
    night.settings = {**night.settings, "registration_close_minutes": minutes}
    db.session.commit()


def play_elapsed(night, ms):
    """The paused clock stands `ms` into its first level (as if it had run that long)."""
    db.session.execute(db.update(Event).where(Event.id == night.id).values(clock_item_elapsed_ms=ms))
    db.session.commit()


def told(service, app, seconds=0.0):
    """What the push service has received once the sender is idle (after `seconds` more)."""
    time.sleep(seconds)
    assert app.extensions["push"].wait_idle()
    return list(service.received)


@pytest.mark.both_databases("told once rests on push_sent's unique row, refused by each database's own constraint")
def test_r_late_3_told_once_a_night_across_pause_and_resume(app, client, night, service):
    closes_after(night, 11)
    check_in_players(night, ["Cat"])
    pre_registered(night, "Ann", "Bob")
    phones = subscribed(app, night, service, "Ann", "Bob", "Cat")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    assert told(service, app) == []  # closes in 11 minutes: told in one
    arrives(night, "Bob")
    assert tap(client, night, "minus").status_code == 200  # a minute off: closes in 10, told now
    assert messages(service, phones, 1) == {"Ann": [{"title": CLOSING, "body": closing_body(10),
                                                     "url": f"/events/{night.id}"}]}
    for action in ("pause", "resume", "minus", "pause", "resume"):
        assert tap(client, night, action).status_code == 200
    assert len(told(service, app)) == 1  # not again: once a night, whatever the clock does
    assert db.session.scalars(db.select(PushSent.member_id).where(PushSent.kind == "registration_closing")
                              ).all() == [member("Ann").id]


def test_r_late_3_told_at_its_time_unless_the_clock_stopped_or_they_arrived(app, client, night, service):
    closes_after(night, 11)
    pre_registered(night, "Ann", "Bob")
    phones = subscribed(app, night, service, "Ann", "Bob")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    assert tap(client, night, "pause").status_code == 200
    play_elapsed(night, 60_000 - 3_000)  # 10 minutes and 3 s of play to go
    assert tap(client, night, "resume").status_code == 200
    assert tap(client, night, "pause").status_code == 200  # paused before its time: the moment is unknown
    assert told(service, app, 3.5) == []
    play_elapsed(night, 60_000 - 3_000)
    assert tap(client, night, "resume").status_code == 200
    arrives(night, "Ann")  # arrived before its time: not told
    assert told(service, app) == []
    received = service.wait_for(1, timeout=10)
    assert messages(service, phones, 1) == {"Bob": [{"title": CLOSING, "body": closing_body(10),
                                                     "url": f"/events/{night.id}"}]}
    assert len(told(service, app, 0.3)) == len(received) == 1


def test_r_late_3_a_moved_moment_drops_the_old_message(app, client, night, service):
    closes_after(night, 30)
    pre_registered(night, "Ann")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    first = ["registration", night.id, now_ms() + 30 * 60_000]
    assert still_true(first)  # computed again from the same clock: the same moment
    assert tap(client, night, "plus").status_code == 200  # a minute added: it closes a minute later
    assert not still_true(first)
    assert still_true(["registration", night.id, first[2] + 60_000])
    assert tap(client, night, "pause").status_code == 200
    assert not still_true(["registration", night.id, first[2] + 60_000])  # stopped: no moment


def test_r_late_3_closer_than_ten_minutes_told_at_once_with_the_minutes_left(app, client, night, service):
    closes_after(night, 4)
    pre_registered(night, "Ann", "Bob")
    with host_action(night, "cancel") as log:  # Bob cancels before play: not told
        prereg.cancel_pre_registration(night, member("Bob"), log)
    phones = subscribed(app, night, service, "Ann")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    assert messages(service, phones, 1) == {"Ann": [{"title": CLOSING, "body": closing_body(4),
                                                     "url": f"/events/{night.id}"}]}


def test_r_late_3_no_message_once_registration_has_closed(app, client, night, service):
    closes_after(night, 11)
    pre_registered(night, "Ann")
    subscribed(app, night, service, "Ann")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    assert tap(client, night, "jump", index="3").status_code == 200  # past 11 minutes of play: closed
    assert told(service, app) == []


def test_r_late_3_a_new_structure_moves_the_moment(app, client, night, service):
    pre_registered(night, "Ann")
    phones = subscribed(app, night, service, "Ann")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    assert told(service, app) == []  # the nightly's major break is an hour of play away
    # R-CLOCK-1: the host edits the structure: the major break now comes after ten minutes of play
    shorter = (Level(5, 25, 50), Level(5, 50, 100), Break(15, "Major break", major=True), Level(20, 100, 200))
    clocks.set_structure(night, shorter, night.clock_version)
    db.session.commit()
    assert messages(service, phones, 1)["Ann"][0]["body"] == closing_body(10)


def second_night(night):
    """Another nightly at the Rose the same month, an hour later."""
    later = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  start_time=dt.time(20, 0), host_id=night.host_id, status="running")
    db.session.add(later)
    db.session.commit()
    return later


def test_r_qual_4_only_those_a_night_puts_in_hear_of_the_shootout(app, night, service):
    seated_night(night, ["Ann", "Bob"])
    phones = subscribed(app, night, service, "Ann", "Bob")
    bust_out(night, "Bob")
    settle_night(night)
    month = night.date.strftime("%B %Y")
    url = f"/leagues/{night.league.slug}/months/{night.month}/qualifiers"
    shootout = {"title": "Top-10 Shoot-out", "body": f"You made the Top-10 Shoot-out for {month}.", "url": url}
    read = messages(service, phones, 2 + 2 + 2)  # results, tickets (both in the top five), the Shoot-out
    assert all(shootout in read[name] for name in ("Ann", "Bob"))
    start = len(told(service, app))
    later = second_night(night)
    check_in_players(later, ["Cat"])
    arrives(later, "Ann")  # a member already: checked in by the host
    draw_seats(later)
    phones |= subscribed(app, later, service, "Cat")
    bust_out(later, "Ann")
    settle_night(later)
    received = told(service, app, 0.2)[start:]
    by_path = {p.endpoint.removeprefix(service.origin): n for n, p in phones.items()}
    shootouts = [by_path[path] for path, _, body, _ in received
                 if phones[by_path[path]].read(body)["title"] == "Top-10 Shoot-out"]
    assert shootouts == ["Cat"]  # Ann and Bob were in already: not told every night
