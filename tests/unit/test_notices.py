"""Change notices between the process that changed an event and its waiting live streams (R-CLOCK-3)."""
import threading
import time
import uuid

import pytest

from live.notices import Hub, RedisHub


def waiter(hub: Hub, event_id: int, seen: int):
    """Start a stream-like wait in a thread; → (thread, result list)."""
    got = []
    thread = threading.Thread(target=lambda: got.append(hub.wait(event_id, seen)), daemon=True)
    thread.start()
    return thread, got


def test_a_version_already_newer_returns_at_once():
    hub = Hub()
    hub.publish(7, 3)
    assert hub.wait(7, 2) == 3


def test_a_publish_wakes_every_waiter_of_that_event_only():
    hub = Hub(heartbeat_s=30)
    waiters = [waiter(hub, 1, 0) for _ in range(5)]
    other = waiter(hub, 2, 0)
    time.sleep(0.05)
    hub.publish(1, 1)
    for thread, got in waiters:
        thread.join(2)
        assert got == [1]
    other[0].join(0.1)
    assert other[0].is_alive() and other[1] == []  # event 2 did not change
    hub.beat()
    other[0].join(2)
    assert other[1] == [None]


def test_an_older_or_repeated_version_wakes_nobody():
    hub = Hub(heartbeat_s=30)
    hub.publish(1, 5)
    thread, got = waiter(hub, 1, 5)
    time.sleep(0.05)
    hub.publish(1, 4)  # a late notice from another process
    hub.publish(1, 5)  # the same one again
    thread.join(0.1)
    assert thread.is_alive() and got == []
    hub.publish(1, 6)
    thread.join(2)
    assert got == [6]


def test_the_heartbeat_wakes_idle_streams_without_a_version():
    hub = Hub(heartbeat_s=0.05)
    thread, got = waiter(hub, 1, 0)
    thread.join(2)
    assert got == [None]


def test_one_catch_up_read_per_event_per_interval():
    hub = Hub()
    assert hub.due_check(1, 10) is True
    assert [hub.due_check(1, 10) for _ in range(100)] == [False] * 100
    assert hub.due_check(2, 10) is True  # another event has its own
    assert hub.due_check(3, 0.01) is True
    time.sleep(0.02)
    assert hub.due_check(3, 0.01) is True


def test_a_version_is_rendered_once_however_many_streams_ask():
    hub = Hub()
    calls = []

    def render():
        calls.append(1)
        time.sleep(0.02)
        return 4, b"v4"

    threads = [threading.Thread(target=hub.rendered, args=(1, 4, render)) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(2)
    assert len(calls) == 1
    assert hub.cached(1, 4) == (4, b"v4") and hub.cached(1, 3) == (4, b"v4")
    assert hub.cached(1, 5) is None
    assert hub.rendered(1, 5, lambda: (6, b"v6")) == (6, b"v6")  # newer than asked is fine
    assert hub.rendered(1, 5, lambda: pytest.fail("rendered again")) == (6, b"v6")


@pytest.mark.services
def test_redis_carries_a_notice_to_another_process_hub():
    """Two hubs on one channel stand for two processes: a publish through one wakes the other's
    streams; a hub on another channel (another database) hears nothing."""
    import os
    url = os.environ.get("SHUFFLEUP_TEST_REDIS", "redis://127.0.0.1:6379/0")
    channel = f"test:{uuid.uuid4().hex}"
    a, b, stranger = RedisHub(url, channel, 30), RedisHub(url, channel, 30), RedisHub(url, channel + "x", 30)
    for hub in (b, stranger):
        hub.listen()
    deadline = time.monotonic() + 5
    while b._redis.pubsub_numsub(channel)[0][1] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    thread, got = waiter(b, 9, 0)
    lonely, nothing = waiter(stranger, 9, 0)
    time.sleep(0.05)
    a.rendered(9, 1, lambda: (1, b"id: 1\nevent: clock\ndata: <p>a:b</p>\n\n"))
    a.publish(9, 1)
    thread.join(5)
    assert got == [1]
    # the message rendered once in process A arrives with the notice: B's streams send it as it is
    assert b.cached(9, 1) == (1, b"id: 1\nevent: clock\ndata: <p>a:b</p>\n\n")
    b.keep(9, 0, b"older")  # an older message never replaces a newer one
    assert b.cached(9, 1)[1].startswith(b"id: 1")
    a.publish(9, 2)  # nothing rendered for 2 here: the notice goes alone, B reads it itself
    deadline = time.monotonic() + 5
    while b.wait(9, 1) is None and time.monotonic() < deadline:
        pass
    assert b.cached(9, 2) is None and b.cached(9, 1) is not None
    lonely.join(0.2)
    assert nothing == []
    stranger.beat()
    lonely.join(2)
    assert nothing == [None]
