"""Six anonymous 250 MB POSTs to /login at once against the app as in production (gunicorn's gevent
worker, tests/services/test_faults.py's Server): each is refused with 413 from its Content-Length,
the server stops reading each connection (it takes no more than the sockets' buffers hold), and a
phone's /api/time is answered all through. Before the body limit, the same flood was read whole,
spooled to disk and held up every phone's clock (docs/reliability.md, "Limits before work")."""
import socket
import threading
import time
import urllib.request

import pytest

from tests.services.test_faults import record, seed_night, servers, sqlite_url  # noqa: F401  (servers: a fixture)

pytestmark = pytest.mark.services

ANNOUNCED = 250 * 1024 * 1024
SENDERS = 6


def flood(port: int, results: list) -> None:
    """One anonymous POST announcing 250 MB, sent as fast as the server takes it; what it got in and
    the answer's status line."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"POST /login HTTP/1.1\r\nHost: pub\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                 b"Content-Length: %d\r\n\r\n" % ANNOUNCED)
    sock.settimeout(30)  # a generous bound on a stuck sender, not a figure
    sent, chunk = 0, b"a" * 65536
    try:
        while sent < ANNOUNCED:
            sock.sendall(chunk)
            sent += len(chunk)
    except OSError:  # the server stopped reading: its buffers are full, or it closed
        pass
    try:
        answer = sock.recv(200).split(b"\r\n")[0].decode()
    except OSError:
        answer = ""
    sock.close()
    results.append((sent, answer))


def test_six_anonymous_250_mb_posts_are_refused_unread_and_the_clock_answers_throughout(tmp_path, servers):  # noqa: F811
    url = sqlite_url(tmp_path)
    seed_night(url)
    server = servers(url)
    results: list = []
    senders = [threading.Thread(target=flood, args=(server.port, results)) for _ in range(SENDERS)]
    for sender in senders:
        sender.start()
    slowest, answers = 0.0, []
    while any(sender.is_alive() for sender in senders) or len(answers) < 20:
        started = time.monotonic()
        answers.append(urllib.request.urlopen(server.base + "/api/time", timeout=60).status)
        slowest = max(slowest, time.monotonic() - started)
        time.sleep(0.05)
    for sender in senders:
        sender.join()
    assert answers == [200] * len(answers)
    assert [answer for _, answer in results] == ["HTTP/1.1 413 REQUEST ENTITY TOO LARGE"] * SENDERS
    taken = max(sent for sent, _ in results)
    assert taken < 32 * 1024 * 1024  # the sockets' buffers, not the body: nothing read it
    assert "Exception on" not in server.errors_logged()
    record("body_flood", clock_slowest_s=round(slowest, 3), most_sent_mb=round(taken / 2**20, 1))
    print(f"/api/time slowest of {len(answers)} during the flood: {slowest:.3f} s; "
          f"the most one sender got in before the 413: {taken / 2**20:.1f} MB")
