"""Several app processes behind one database behave as one (DESIGN.md "Scale", R-CLOCK-3):
two gunicorn processes (gevent workers, the production command) on one PostgreSQL and one Redis;
a pause made through process A reaches a phone streaming from process B."""
import http.client
import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid

import psycopg
import pytest
import redis
from flask_migrate import upgrade

from app import create_app
from tests.fixtures import tonight as seed
from wiring.extensions import db

pytestmark = pytest.mark.services
PG = os.environ.get("SHUFFLEUP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("SHUFFLEUP_TEST_REDIS", "redis://127.0.0.1:6379/0")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def pg_url():
    """A fresh PostgreSQL database, dropped afterwards."""
    name = "shuffleup_test_" + uuid.uuid4().hex[:10]
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = PG.rsplit("/", 1)[0] + "/" + name
    yield url
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def seeded(pg_url):
    """The schema by the real migrations, a league, a host and tonight's event."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": pg_url})
    with app.app_context():
        upgrade()
        event_id = seed.tonight("Multi", "Rose").id
        db.engine.dispose()
    return pg_url, event_id


@pytest.fixture
def two_processes(seeded):
    pg_url, event_id = seeded
    redis.Redis.from_url(REDIS).ping()  # fails loudly when Redis is down: .ci/run starts it
    env = {**os.environ, "DATABASE_URL": pg_url, "REDIS_URL": REDIS, "SHUFFLEUP_SECRET_KEY": "shared-secret"}
    ports, procs = [free_port(), free_port()], []
    for port in ports:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "--worker-connections", "1000", "--graceful-timeout", "3",
             "-b", f"127.0.0.1:{port}", "app:create_app()"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    for port, proc in zip(ports, procs):
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/time", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("app process did not start: " + proc.stderr.read().decode()[-2000:]) from None
                time.sleep(0.2)
    yield ports, event_id
    for proc in procs:
        proc.send_signal(signal.SIGQUIT)  # quick shutdown: open streams need not finish
        proc.wait(15)


def read_event(response, deadline):
    """The next SSE message's id (version) from a streaming response, or None by the deadline."""
    version = None
    while time.monotonic() < deadline:
        line = response.fp.readline().decode()
        if line.startswith("id: "):
            version = int(line[4:])
        elif line == "\n" and version is not None:
            return version
    return None


def test_a_pause_through_a_reaches_a_phone_on_b(two_processes):
    (port_a, port_b), event_id = two_processes
    # the phone on B: its stream opens with the current version (0)
    phone = http.client.HTTPConnection("127.0.0.1", port_b, timeout=10)
    phone.request("GET", f"/events/{event_id}/stream")
    stream = phone.getresponse()
    assert stream.status == 200
    assert read_event(stream, time.monotonic() + 5) == 0

    # the host on A: log in through the form (CSRF token included), then start the clock
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = f"http://127.0.0.1:{port_a}"
    token = re.search(r'name="csrf_token" value="([^"]+)"', browser.open(base + "/login").read().decode()).group(1)
    browser.open(base + "/login", urllib.parse.urlencode(
        {"username": "host", "password": "pw-host", "csrf_token": token}).encode())
    page = browser.open(f"{base}/host/events/{event_id}").read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    sent = time.monotonic()
    browser.open(urllib.request.Request(
        f"{base}/host/events/{event_id}/clock", headers={"HX-Request": "true"},
        data=urllib.parse.urlencode({"action": "start", "version": "0", "csrf_token": token}).encode()))

    # B's phone hears version 1 well before B's heartbeat would have caught it up
    assert read_event(stream, sent + 5) == 1
    assert time.monotonic() - sent < 5
    state = urllib.request.urlopen(f"http://127.0.0.1:{port_b}/api/events/{event_id}/clock").read().decode()
    assert '"running":true' in state.replace(" ", "")
    phone.close()
