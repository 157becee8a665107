"""Web Push to a player's phone (R-MEM-1: a phone acts only for its own member): the key, the
subscription routes and their refusals, and every kind of message as a loopback push service receives
and decrypts it (R-SEAT-2..4 moves, R-PEN-2 penalty over, R-PTS results, R-QUAL-1/2 tickets), with
404/410 removal and retries."""
import datetime as dt
import json

import pytest

from league import push as rules
from services import penalties, seats
from services.models import PushSubscription, Ticket, utcnow
from services.night_snapshot import read_night
from tests.conftest import csrf_token
from tests.fixtures.phones import phone_of
from tests.fixtures.push_service import Phone, messages, subscribe, subscribed
from tests.fixtures.roster import bust_out, host_action, seated_night, settle_night
from tests.fixtures.rows import member
from wiring.extensions import db


def move(night, name, seat):
    """R-SEAT-2: the host moves the named player to `seat` at table 1 (one host action)."""
    with host_action(night, "move") as log:
        entry = next(e for e in log.night.entries if e.member_id == member(name).id)
        seats.move(log.night, entry, 1, seat, log)


# ---- the key and the subscription routes ----

def test_push_key_is_a_p256_point(client, app):
    key = client.get("/api/push/key").get_json()["public_key"]
    assert rules.keys_problem(key, "A" * 22) is None  # a P-256 point, base64url (the auth stands in)
    assert client.get("/api/push/key").get_json()["public_key"] == key  # the same key pair every time


def test_subscribe_and_unsubscribe(app, night, service):
    seated_night(night, ["Ann", "Bob"])
    phone = phone_of(app, member("Ann"))
    ann = service.phone("ann")
    assert subscribe(phone, ann.subscription()).status_code == 201
    assert subscribe(phone, ann.subscription()).status_code == 201  # again: still one row
    rows = db.session.scalars(db.select(PushSubscription)).all()
    assert [(r.member_id, r.endpoint) for r in rows] == [(member("Ann").id, ann.endpoint)]
    token = csrf_token(phone, "/login")
    gone = phone.delete("/me/push", data=json.dumps({"endpoint": ann.endpoint}), content_type="application/json",
                        headers={"X-CSRFToken": token})
    assert gone.status_code == 200 and gone.get_json() == {"subscribed": False, "ended": 1}
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0


@pytest.mark.parametrize("endpoint", [
    "https://evil.example/push",                      # not a push service
    "http://169.254.169.254/latest/meta-data",        # the cloud's metadata address
    "https://fcm.googleapis.com.evil.example/x",     # a look-alike host
    "https://user:pw@fcm.googleapis.com/x",           # credentials in the address
    "ftp://fcm.googleapis.com/x", "not a url", "", 42, None,
    "https://fcm.googleapis.com/" + "x" * 2000,       # too long
])
def test_refused_endpoints_change_nothing(app, night, endpoint):
    seated_night(night, ["Ann"])
    phone = phone_of(app, member("Ann"))
    subscription = {**Phone("https://fcm.googleapis.com/fcm/send/abc").subscription(), "endpoint": endpoint}
    answer = subscribe(phone, subscription)
    assert answer.status_code == 400 and "error" in answer.get_json()
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0


def test_the_browsers_push_services_are_allowed_by_default(app, night):
    seated_night(night, ["Ann"])
    for endpoint in ("https://fcm.googleapis.com/fcm/send/a1", "https://updates.push.services.mozilla.com/wpush/v2/b",
                     "https://wns2-by3p.notify.windows.com/w/?token=c", "https://web.push.apple.com/QGd"):
        assert subscribe(phone_of(app, member("Ann")), Phone(endpoint).subscription()).status_code == 201


@pytest.mark.parametrize("keys", [
    {"p256dh": "BAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"},                       # too short
    {"p256dh": "B" + "A" * 86, "auth": "AAAAAAAAAAAAAAAAAAAAAA"},              # 65 bytes, not on the curve
    {"p256dh": None, "auth": "AAAAAAAAAAAAAAAAAAAAAA"},
    {"auth": "AAAAAAAAAAAAAAAAAAAAAA"},
    {"p256dh": "GOOD", "auth": "AAAA"},                                         # auth 3 bytes
    {"p256dh": "GOOD", "auth": "!!!!"},                                         # not base64url
    "not an object",
])
def test_bad_keys_are_refused(app, night, service, keys):
    seated_night(night, ["Ann"])
    good = service.phone("ann").subscription()
    if isinstance(keys, dict) and keys.get("p256dh") == "GOOD":
        keys = {**keys, "p256dh": good["keys"]["p256dh"]}
    answer = subscribe(phone_of(app, member("Ann")), {**good, "keys": keys})
    assert answer.status_code == 400
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0


def test_no_card_no_csrf_and_oversize_are_refused(app, client, night, service):
    seated_night(night, ["Ann"])
    sub = service.phone("ann").subscription()
    assert subscribe(client, sub).status_code == 403                           # no member card
    phone = phone_of(app, member("Ann"))
    no_token = phone.post("/me/push", data=json.dumps(sub), content_type="application/json")
    assert no_token.status_code == 400                                          # CSRF token missing
    huge = {**sub, "padding": "x" * 5000}
    assert subscribe(phone, huge).status_code == 413
    assert phone.post("/me/push", data="{", content_type="application/json",
                      headers={"X-CSRFToken": csrf_token(phone, "/login")}).status_code == 400
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0


def test_another_members_subscription_is_left_alone(app, night, service):
    seated_night(night, ["Ann", "Bob"])
    ann = service.phone("ann")
    assert subscribe(phone_of(app, member("Ann")), ann.subscription()).status_code == 201
    bob = phone_of(app, member("Bob"))
    answer = bob.delete("/me/push", data=json.dumps({"endpoint": ann.endpoint}), content_type="application/json",
                        headers={"X-CSRFToken": csrf_token(bob, "/login")})
    assert answer.get_json()["ended"] == 0
    assert db.session.scalar(db.select(PushSubscription.member_id)) == member("Ann").id


def test_a_member_keeps_at_most_five_phones(app, night, service):
    seated_night(night, ["Ann"])
    phone = phone_of(app, member("Ann"))
    phones = [service.phone(f"ann-{n}") for n in range(7)]
    for each in phones:
        assert subscribe(phone, each.subscription()).status_code == 201
    kept = set(db.session.scalars(db.select(PushSubscription.endpoint)))
    assert kept == {p.endpoint for p in phones[2:]}  # the newest five


# ---- each kind of message, received and decrypted ----

def test_r_seat_2_balancing_move_names_the_new_seat(app, night, service):
    seated_night(night, ["Ann", "Bob", "Cat"])
    phones = subscribed(app, night, service, "Ann", "Bob")
    ann = member("Ann")
    with host_action(night, "move") as log:
        entry = next(e for e in log.night.entries if e.member_id == ann.id)
        seats.move(log.night, entry, 1, 9, log)
    read = messages(service, phones, 1)
    assert read == {"Ann": [{"title": "Your seat moved", "body": "Please move to Table 1, Seat 9.",
                             "url": f"/events/{night.id}"}]}


def test_a_refused_move_tells_nobody(app, night, service):
    seated_night(night, ["Ann", "Bob"])
    subscribed(app, night, service, "Ann")
    with pytest.raises(RuntimeError), host_action(night, "move") as log:
        entry = next(e for e in log.night.entries if e.member_id == member("Ann").id)
        seats.move(log.night, entry, 1, 9, log)
        raise RuntimeError("the host's action fails after the move")
    assert app.extensions["push"].wait_idle()
    assert service.received == []


def test_r_seat_3_table_break_and_r_seat_4_final_table(app, night, service):
    names = [f"P{n:02d}" for n in range(21)]
    seated_night(night, names)  # three tables of seven
    phones = subscribed(app, night, service, *names)
    bust_out(night, "P00")
    bust_out(night, "P01")
    with host_action(night, "break") as log:
        broken = seats.break_table(log.night, log)
    moved = [e for e in read_night(night).entries if e.moved_from_table == broken]
    got = messages(service, phones, len(moved))
    for entry in moved:
        assert got[entry.member.name] == [{
            "title": "Your seat moved", "url": f"/events/{night.id}",
            "body": f"Table {broken} is broken. Your new seat: Table {entry.table_no}, Seat {entry.seat_no}."}]
    for name in names[2:13]:
        bust_out(night, name)
    start = len(service.received)
    with host_action(night, "final") as log:
        seats.final_table(log.night, log)
    left = [e for e in read_night(night).entries if e.status == "playing"]
    received = service.wait_for(start + len(left))[start:]
    by_path = {p.endpoint.removeprefix(service.origin): n for n, p in phones.items()}
    finals = {by_path[path]: phones[by_path[path]].read(body) for path, _, body, _ in received}
    assert finals == {e.member.name: {"title": "Final table", "url": f"/events/{night.id}",
                                      "body": f"You made the final table: Table {e.table_no}, Seat {e.seat_no}."}
                      for e in left}


def test_r_pen_2_penalty_over_when_ended_early_and_at_its_time(app, night, service):
    entries = seated_night(night, ["Ann", "Bob"])
    phones = subscribed(app, night, service, "Ann", "Bob")
    with host_action(night, "penalty") as log:
        penalty = penalties.give(night, entries["Ann"], "missed_hands", log, None, reason="Swore", hands=3)
    assert app.extensions["push"].wait_idle() and service.received == []  # not yet: its time is to come
    with host_action(night, "penalty_end") as log:
        penalties.end_early(night, db.session.merge(penalty), log, None)
    assert messages(service, phones, 1) == {"Ann": [{"title": "Penalty over", "url": f"/events/{night.id}",
                                                     "body": "Your penalty is over: you can go back to your seat."}]}
    # Bob's ends by the clock: a return time already past is sent at once (and only once).
    with host_action(night, "penalty") as log:
        given = penalties.give(night, entries["Bob"], "missed_hands", log, None, reason="Slow roll", hands=1,
                               now=utcnow() - dt.timedelta(hours=1))
    assert given.until < utcnow()
    read = messages(service, phones, 2)
    assert read["Bob"][0]["title"] == "Penalty over"
    assert app.extensions["push"].wait_idle() and len(service.received) == 2


def test_an_extended_penalty_is_not_announced_at_its_old_time(app, night, service):
    entries = seated_night(night, ["Ann", "Bob"])
    subscribed(app, night, service, "Ann")
    old = {"check": None}
    with host_action(night, "penalty") as log:
        penalty = penalties.give(night, entries["Ann"], "missed_hands", log, None, reason="Swore", hands=3)
        old["check"] = ("penalty", penalty.id, penalty.until.isoformat())
    with host_action(night, "penalty_extend") as log:
        penalties.extend(night, db.session.merge(penalty), 5, log, None)
    from live.push import still_true
    assert still_true(list(old["check"])) is False
    fresh = db.session.get(type(penalty), penalty.id)
    assert still_true(["penalty", fresh.id, fresh.until.isoformat()]) is True


def test_r_pts_results_and_r_qual_1_ticket(app, night, service):
    seated_night(night, ["Ann", "Bob", "Cat"])
    phones = subscribed(app, night, service, "Ann", "Bob", "Cat")
    bust_out(night, "Cat")
    bust_out(night, "Bob")
    settle_night(night)
    entries = {e.member.name: e for e in read_night(night).entries}
    tickets = {t.member_id for t in db.session.scalars(db.select(Ticket))}
    expected = 3 + len(tickets) + 3  # results, tickets, and all three in the Shoot-out (R-QUAL-4: fewer than ten)
    read = messages(service, phones, expected)
    label = f"Rose & Crown, {night.date.strftime('%a %d %b')}"
    for name, entry in entries.items():
        results = [m for m in read[name] if m["title"] == "Results are up"]
        assert results == [{"title": "Results are up", "url": f"/events/{night.id}/results",
                            "body": f"{label}: You finished {rules.ordinal(entry.position)} with {entry.points} points."}]
        won = [m for m in read[name] if m["title"] == "Monthly Final ticket"]
        assert won == ([{"title": "Monthly Final ticket", "url": "/me",
                         "body": f"You won a Monthly Final ticket at {label}."}] if entry.member_id in tickets else [])
    assert member("Ann").id in tickets  # the winner of a nightly holds a ticket (R-QUAL-1)


# ---- the push service's answers ----

def test_404_and_410_remove_the_subscription(app, night, service):
    seated_night(night, ["Ann", "Bob", "Cat"])
    phones = subscribed(app, night, service, "Ann", "Bob")
    service.answers["/push/Ann"] = [410]
    service.answers["/push/Bob"] = [404]
    move(night, "Ann", 9)
    move(night, "Bob", 10)
    service.wait_for(2)
    assert app.extensions["push"].wait_idle()
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0
    assert phones


def test_a_failing_push_service_is_tried_again(app, night, service):
    seated_night(night, ["Ann", "Bob"])
    phones = subscribed(app, night, service, "Ann")
    service.answers["/push/Ann"] = [500, 503, 429]
    move(night, "Ann", 9)
    received = service.wait_for(4)
    assert len(received) == 4
    assert phones["Ann"].read(received[-1][2])["body"] == "Please move to Table 1, Seat 9."
    assert app.extensions["push"].wait_idle()
    assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 1
    assert app.extensions["push"].sent >= 1
