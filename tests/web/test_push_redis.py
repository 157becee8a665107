"""Web Push messages kept in Redis (REDIS_URL): any process sends what any process queued, a message
due later waits in Redis and survives a restart, two processes never send one message twice, a message
claimed by a process that dies is sent by another once its lease runs out, and with Redis down the
process sends its own (the host's action answers as ever). Redis on 127.0.0.1:6379, database 13, a key
prefix of each test's own."""
import datetime as dt
import time
import uuid

import pytest

from league.push import Message, penalty_over
from live.push import Sender
from live.push_queue import RedisQueue
from services import push
from services.models import utcnow
from tests.conftest import login
from tests.fixtures.host import tap
from tests.fixtures.push_service import messages, subscribed
from tests.fixtures.roster import host_action, seated_night
from tests.fixtures.rows import member
from tests.web.test_health import closed_port
from tests.web.test_push import move
from tests.web.test_push_later import closes_after, closing_body, pre_registered
from wiring.extensions import db

REDIS = "redis://127.0.0.1:6379/13"


@pytest.fixture
def shared(app, service):
    """The app's config pointed at Redis with a prefix of this test's own; `shared(**config)` makes a
    process's Sender (the first becomes the app's). Each one's keys are deleted afterwards."""
    app.config.update(REDIS_URL=REDIS, PUSH_REDIS_PREFIX=f"test-push-{uuid.uuid4().hex[:8]}")
    made = []

    def sender(**config):
        app.config.update(config)
        one = Sender(app)
        made.append(one)
        app.extensions.setdefault("push_first", one)
        app.extensions["push"] = app.extensions["push_first"]
        return one

    yield sender
    for one in made:
        assert one.wait_idle()
    if made:
        made[0].shared.clear()


def test_a_move_goes_through_redis_and_is_received(app, night, service, shared):
    sender = shared()
    queued = []
    put = sender.shared.put
    sender.shared.put = lambda timed: queued.append(len(timed)) or put(timed)
    seated_night(night, ["Ann", "Bob"])
    phones = subscribed(app, night, service, "Ann")
    move(night, "Ann", 9)
    assert messages(service, phones, 1) == {"Ann": [{"title": "Your seat moved", "url": f"/events/{night.id}",
                                                     "body": "Please move to Table 1, Seat 9."}]}
    assert queued == [1]  # through Redis, not this process's own queue


def test_r_pen_2_a_message_due_later_waits_in_redis_and_survives_a_restart(app, night, service, shared):
    web = shared(PUSH_SEND_HERE=False)  # a web process that only queues (and then stops)
    seated_night(night, ["Ann", "Bob"])
    phones = subscribed(app, night, service, "Ann")
    ann = phones["Ann"]
    with host_action(night, "penalty"):  # a penalty's end, due in a second (R-PEN-2)
        push.tell(member("Ann").id, penalty_over(f"/events/{night.id}"), due=utcnow() + dt.timedelta(seconds=1))
    assert web.shared._redis.zcard(web.shared.later) == 1  # in Redis, due later: no process holds it
    time.sleep(1.3)
    assert service.received == []  # nobody sends: the web process doesn't, and the sender is down
    restarted = shared()
    restarted.serve()  # a sender process starts: it finds the message waiting and sends it
    path, _, body, _ = service.wait_for(1)[0]
    assert path.endswith("/push/Ann") and ann.read(body)["title"] == "Penalty over"
    assert web.shared.due_count() == 0


def test_two_processes_never_send_one_message_twice(app, night, service, shared):
    web = shared(PUSH_SEND_HERE=False)
    seated_night(night, ["Ann"])
    phones = subscribed(app, night, service, "Ann")
    first, second = shared(), shared()
    first.serve()
    second.serve()
    with host_action(night, "notes"):
        for number in range(40):
            push.tell(member("Ann").id, Message("Note", f"Message {number}", "/"))
    received = service.wait_for(40)
    time.sleep(0.5)  # anything sent twice would have arrived by now
    bodies = [phones["Ann"].read(body)["body"] for _, _, body, _ in service.received]
    assert len(received) == 40 and sorted(bodies) == sorted(f"Message {n}" for n in range(40))
    assert web.shared.due_count() == 0


@pytest.mark.parametrize("send_here", [True, False])  # a web process that leaves the sending to others, too
def test_r_late_3_redis_down_the_process_sends_its_own_and_the_host_is_answered(app, client, night, service,
                                                                              send_here):
    app.config.update(REDIS_URL=f"redis://127.0.0.1:{closed_port()}/0", PUSH_REDIS_TIMEOUT_S=0.2,
                      PUSH_SEND_HERE=send_here)
    app.extensions["push"] = sender = Sender(app)
    closes_after(night, 4)
    pre_registered(night, "Ann")
    phones = subscribed(app, night, service, "Ann")
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200  # the host's tap: answered, not a 500
    assert messages(service, phones, 1)["Ann"][0]["body"] == closing_body(4)
    assert not sender.shared.up()  # marked down: the next tap doesn't wait for it again
    assert tap(client, night, "pause").status_code == 200
    assert db.session.get(type(night), night.id).clock_running_since_ms is None


LEASE = dict(PUSH_LEASE_S=1, PUSH_TIMEOUT_S=0.3)  # a lease of a second: a dead process's runs out soon


def note_for_ann(night, words="Seat 9 is yours."):
    with host_action(night, "notes"):
        push.tell(member("Ann").id, Message("Note", words, "/"))


def bodies(service, phone):
    return [phone.read(body)["body"] for _, _, body, _ in service.received]


def test_a_message_claimed_by_a_process_that_dies_is_sent_once_more_after_its_lease(app, night, service, shared):
    web = shared(PUSH_SEND_HERE=False, **LEASE)
    seated_night(night, ["Ann"])
    phones = subscribed(app, night, service, "Ann")
    note_for_ann(night)
    dying = web.shared.claim(timeout_s=2)  # a process claims it, then dies before the push service answers
    assert dying.item["message"]["body"] == "Seat 9 is yours."
    assert web.shared._redis.zcard(web.shared.claimed) == 1 and web.shared._redis.llen(web.shared.ready) == 0
    survivor = shared(**LEASE)
    survivor.serve()  # a process still running: its pump finds the lease run out and sends the message
    assert messages(service, phones, 1) == {"Ann": [{"title": "Note", "body": "Seat 9 is yours.", "url": "/"}]}
    assert survivor.wait_idle()
    time.sleep(1.5)  # past another lease: a message sent and answered for is not sent again
    assert bodies(service, phones["Ann"]) == ["Seat 9 is yours."]
    assert web.shared._redis.zcard(web.shared.claimed) == 0 and web.shared.due_count() == 0


def test_a_message_answered_for_is_gone_from_redis_and_never_sent_again(app, night, service, shared):
    web = shared(PUSH_SEND_HERE=False, **LEASE)
    seated_night(night, ["Ann"])
    phones = subscribed(app, night, service, "Ann")
    note_for_ann(night)
    claim = web.shared.claim(timeout_s=2)
    assert web.shared.done(claim, []) is True  # its sender answers for it
    assert web.shared._redis.zcard(web.shared.claimed) == 0 and web.shared._redis.llen(web.shared.ready) == 0
    other = shared(**LEASE)
    other.serve()
    time.sleep(1.5)  # past its lease: nothing comes back to be sent
    assert other.wait_idle() and service.received == []
    note_for_ann(night, "Table 2 is broken.")  # the pump is at work, and it sends what comes next
    assert messages(service, phones, 1)["Ann"][0]["body"] == "Table 2 is broken."


def test_a_retry_goes_back_to_later_as_its_claim_is_released(app, night, service, shared):
    sender = shared(**LEASE)
    seated_night(night, ["Ann"])
    phones = subscribed(app, night, service, "Ann")
    service.answers["/push/Ann"] = [500, 503]  # the push service fails twice, then takes it
    note_for_ann(night)
    service.wait_for(3)
    assert sender.wait_idle()
    time.sleep(1.5)  # past a lease: nothing of it is left claimed to be sent again
    assert bodies(service, phones["Ann"]) == ["Seat 9 is yours."] * 3
    queue = sender.shared
    assert (queue._redis.zcard(queue.claimed), queue._redis.zcard(queue.later), queue._redis.llen(queue.ready)) \
        == (0, 0, 0)


def test_a_slow_sender_whose_lease_ran_out_stops_and_the_new_holder_sends(app, shared):
    shared(**LEASE)
    slow = RedisQueue.from_config(app.config)
    fast = RedisQueue.from_config(app.config)
    assert slow.put([({"member": 1, "message": {"body": "one"}}, 0.0), ({"member": 2, "message": {"body": "two"}}, 0.0)])
    first, second = slow.claim(timeout_s=2), slow.claim(timeout_s=2)
    time.sleep(1.2)  # both leases run out; the first message is claimed again by another process
    again = fast.claim(timeout_s=2)
    assert again.item == first.item and again.receipt != first.receipt
    retry = ({"endpoint": "x", "tries": 1}, time.time())
    assert slow.keep(first) is False and slow.done(first, [retry]) is False  # not its own: nothing queued
    assert slow._redis.llen(slow.ready) == 1  # the second, back in ready, not yet claimed by anyone
    assert slow.keep(second) is True  # taken back: still its own, its lease renewed
    assert slow._redis.llen(slow.ready) == 0 and slow._redis.zcard(slow.claimed) == 2
    assert slow.done(second, []) is True and fast.done(again, [retry]) is True
    assert slow._redis.zcard(slow.claimed) == 0 and slow._redis.llen(slow.ready) == 1  # the holder's retry only
    slow.clear()


def test_the_push_sender_command_needs_redis(runner):
    result = runner.invoke(args=["league", "push-sender"])
    assert result.exit_code != 0 and "needs REDIS_URL" in result.output
