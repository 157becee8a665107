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


def test_r_clock_3_a_heartbeat_round_reads_every_served_event_once_and_wakes_those_behind():
    hub = Hub(heartbeat_s=30)
    reads = []

    def stored(event_ids):
        reads.append(event_ids)
        return {1: 4, 2: 0}  # event 1 moved on to version 4 (its notice lost); event 2 did not

    hub.stored_versions = stored
    hub.publish(2, 0)
    behind = [waiter(hub, 1, 0) for _ in range(20)]
    current = [waiter(hub, 2, 0) for _ in range(20)]
    time.sleep(0.05)
    hub.beat()
    for thread, _ in behind + current:
        thread.join(2)
    assert reads == [[1, 2]]  # one read for both events and their 40 streams
    assert [got for _, got in behind] == [[4]] * 20
    assert [got for _, got in current] == [[None]] * 20  # a heartbeat only
    hub.beat()
    assert reads == [[1, 2]]  # nobody waits now: nothing to read


def test_r_clock_3_a_failed_or_refused_catch_up_read_still_sends_the_heartbeats():
    hub = Hub(heartbeat_s=30)
    for stored in (lambda ids: None, lambda ids: 1 / 0):  # the database down; any other failure
        hub.stored_versions = stored
        thread, got = waiter(hub, 1, 0)
        time.sleep(0.05)
        hub.beat()
        thread.join(2)
        assert got == [None]


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


# --- the hub's one writer: a message written to every phone's socket from one loop -----------------

def phone_pair(hub: Hub, event_id: int, seen: int = 0, sndbuf: int | None = None):
    """A Phone on one end of a socket pair (non-blocking, as gevent's sockets are), joined to the hub."""
    import socket

    from live.notices import Phone
    ours, theirs = socket.socketpair()
    if sndbuf:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    ours.setblocking(False)
    phone = Phone(ours, True, threading.Event())
    hub.join(event_id, phone, seen)
    return phone, theirs


def chunks(data: bytes) -> list[bytes]:
    """Split HTTP/1.1 chunked bytes into their chunks (all complete)."""
    out = []
    while data:
        size, _, rest = data.partition(b"\r\n")
        n = int(size, 16)
        out.append(rest[:n])
        assert rest[n:n + 2] == b"\r\n"
        data = rest[n + 2:]
    return out


def test_r_clock_3_a_delivered_version_is_written_to_every_joined_phone_as_one_chunk():
    hub = Hub(heartbeat_s=30)
    phones = [phone_pair(hub, 5) for _ in range(3)]
    other, other_end = phone_pair(hub, 6)
    hub.keep(5, 1, b"id: 1\nevent: clock\ndata: <p>1</p>\n\n")
    hub.publish(5, 1)
    for phone, theirs in phones:
        theirs.settimeout(2)
        assert chunks(theirs.recv(65536)) == [b"id: 1\nevent: clock\ndata: <p>1</p>\n\n"]
        assert phone.version == 1 and not phone.wake.is_set()  # its greenlet was not woken
    other_end.setblocking(False)
    with pytest.raises(BlockingIOError):
        other_end.recv(10)  # event 6 did not change


def test_r_clock_3_a_version_not_rendered_here_goes_to_the_phones_own_greenlet():
    hub = Hub(heartbeat_s=30)
    phone, theirs = phone_pair(hub, 5)
    hub.publish(5, 2)  # a notice from another process without its message
    assert phone.behind and phone.wake.is_set() and phone.version == 0


def test_r_clock_3_a_phone_that_does_not_read_keeps_the_rest_for_its_greenlet_in_order():
    hub = Hub(heartbeat_s=30)
    phone, theirs = phone_pair(hub, 5, sndbuf=4096)
    message = lambda v: f"id: {v}\ndata: {'x' * 3000}\n\n".encode()  # noqa: E731
    version = 0
    while not phone.pending:  # fill the socket's buffer: the writer never waits for it
        version += 1
        hub.keep(5, version, message(version))
        hub.publish(5, version)
    assert phone.wake.is_set()
    hub.keep(5, version + 1, message(version + 1))
    hub.publish(5, version + 1)  # while the rest waits, newer versions are only marked
    assert phone.behind and phone.version == version
    # the phone's greenlet (here a thread) sends the rest, then the newest version, once it is woken
    phone.sock.setblocking(True)
    served = threading.Thread(target=hub.serve, args=(5, phone, phone.version, lambda v: hub.cached(5, v)),
                              daemon=True)
    served.start()
    received = bytearray()
    theirs.settimeout(2)
    expected = sum(len(phone.frame(message(v))) for v in range(1, version + 2))
    while len(received) < expected:
        received += theirs.recv(65536)
    got = [int(c.split(b"\n", 1)[0][4:]) for c in chunks(bytes(received))]
    assert got == list(range(1, version + 2))  # every message whole, in order, none twice
    idle(phone)
    assert not phone.pending and not phone.behind and phone.version == version + 1
    theirs.close()
    hub.keep(5, version + 2, message(version + 2))
    hub.publish(5, version + 2)  # the hang-up ends the greenlet's service
    served.join(5)
    assert not served.is_alive() and phone.dead
    assert 5 not in hub._direct


def test_r_clock_3_a_phone_that_hung_up_is_marked_dead_and_its_greenlet_woken():
    hub = Hub(heartbeat_s=30)
    phone, theirs = phone_pair(hub, 5)
    theirs.close()
    hub.keep(5, 1, b"id: 1\n\n")
    hub.publish(5, 1)
    if not phone.dead:  # the first write after a hang-up may still be taken by the kernel
        hub.keep(5, 2, b"id: 2\n\n")
        hub.publish(5, 2)
    assert phone.dead and phone.wake.is_set()
    hub.leave(5, phone)
    hub.keep(5, 3, b"id: 3\n\n")
    hub.publish(5, 3)  # gone from the writer: nothing written to a closed socket


def test_r_clock_3_the_heartbeat_is_written_to_every_phone_in_slices(monkeypatch):
    import live.notices
    monkeypatch.setattr(live.notices, "BEAT_SLICE", 2)
    yields = []
    real_sleep = time.sleep
    monkeypatch.setattr(live.notices.time, "sleep", lambda s: yields.append(s) if s == 0 else real_sleep(s))
    hub = Hub(heartbeat_s=30)
    phones = [phone_pair(hub, 5) for _ in range(3)] + [phone_pair(hub, 6) for _ in range(2)]
    hub.beat()
    for _, theirs in phones:
        theirs.settimeout(2)
        assert chunks(theirs.recv(100)) == [b": heartbeat\n\n"]
    assert yields == [0, 0]  # after the 2nd and the 4th of 5 heartbeats: taps run in between


def test_r_clock_3_a_phone_joining_behind_the_newest_version_gets_it_at_once():
    hub = Hub(heartbeat_s=30)
    hub.keep(5, 4, b"id: 4\n\n")
    hub.publish(5, 4)
    phone, theirs = phone_pair(hub, 5, seen=3)  # its first message was rendered at version 3
    theirs.settimeout(2)
    assert chunks(theirs.recv(100)) == [b"id: 4\n\n"] and phone.version == 4


def idle(phone, timeout: float = 5) -> None:
    """Wait until the phone's greenlet has finished what it was sending."""
    deadline = time.monotonic() + timeout
    while (phone.busy or phone.behind or phone.pending) and time.monotonic() < deadline:
        time.sleep(0.005)


def test_r_clock_3_the_phones_greenlet_renders_a_missing_version_and_one_found_by_the_heartbeat_round():
    hub = Hub(heartbeat_s=30)
    hub.stored_versions = lambda event_ids: {5: 3}  # version 3 is stored: its notice was lost
    phone, theirs = phone_pair(hub, 5, seen=1)
    rendered = []

    def latest(version):
        rendered.append(version)
        return version, f"id: {version}\n\n".encode()

    served = threading.Thread(target=hub.serve, args=(5, phone, 1, latest), daemon=True)
    served.start()
    theirs.settimeout(2)
    hub.deliver(5, 2)  # a notice without its message: the greenlet renders version 2 and sends it
    assert chunks(theirs.recv(100)) == [b"id: 2\n\n"]
    idle(phone)
    hub.beat()  # the round's read finds version 3: the greenlet renders and sends it
    received = b""
    while b"id: 3" not in received:
        received += theirs.recv(100)
    idle(phone)
    # the heartbeat goes before version 3 or, while the greenlet sends it, is skipped
    assert [c for c in chunks(received) if c != b": heartbeat\n\n"] == [b"id: 3\n\n"]
    assert rendered == [2, 3] and phone.version == 3
    theirs.close()
    hub.beat()
    served.join(5)
    assert not served.is_alive()
