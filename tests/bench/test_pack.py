"""The month-end pack over 5 years of a 4-venue league (~200,000 results with `make bench`): the pack's
page, its PDF and its share image through the whole request path, what the organiser waits for: the
test client's GET of the route, so the queries, the pictures, the template, WeasyPrint's layout and the
PDF (or Pillow's PNG) are all inside (targets: 200 ms, 1 s, 300 ms). Each request starts a fresh
session, as a server's would. Besides pytest-benchmark's wall-clock rounds, each test prints the
median CPU time of its requests, the steadier direction on a shared machine. Plain `make test` runs
each once on the small league as a smoke test; figures are measured by `make bench` on a quiet
machine."""
import gc
import io
import statistics
import time

import pytest

from services.models import League, User
from tests.bench import history
from tests.conftest import login
from wiring.extensions import db


@pytest.fixture
def organiser_client(history_app):
    """A logged-in organiser of the benchmark league (the one login added to the built league)."""
    app, built = history_app
    league = db.session.get(League, built.league_id)
    if not db.session.scalar(db.select(User).where(User.username == "bench-organiser")):
        user = User(username="bench-organiser", display_name="Bench", role="organiser", league_id=league.id)
        user.set_password("pw-bench")
        db.session.add(user)
        db.session.commit()
    path = f"/organiser/{league.slug}/months/{built.month}"
    db.session.remove()
    client = app.test_client()
    login(client, "bench-organiser", "pw-bench")
    # As every gunicorn worker does once it has booted (gunicorn.conf.py's post_worker_init): what is
    # loaded by then is set aside from the collector's full passes, which a PDF's few hundred thousand
    # boxes set off; without it each pass rescans this test process's whole heap (pytest, the history).
    gc.collect()
    gc.freeze()
    yield client, path, built
    gc.unfreeze()


def _measured(benchmark, what: str, request, rounds: int | None = None):
    """Benchmark `request` (pytest-benchmark's own rounds, or `rounds` after one warm-up), noting each
    round's CPU time; prints the medians and keeps them in the benchmark's extra_info."""
    cpu, wall = [], []

    def once():
        started, processor = time.perf_counter(), time.process_time()
        answer = request()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - processor)
        return answer

    if rounds is None:
        answer = benchmark(once)
    else:
        answer = benchmark.pedantic(once, rounds=rounds, iterations=1, warmup_rounds=1)
        # The warm-up's round (WeasyPrint's first import and fonts) left out; with benchmarks disabled
        # (plain `make test`) the one call is the only round.
        if len(wall) > rounds:
            wall, cpu = wall[1:], cpu[1:]
    benchmark.extra_info["cpu_median_ms"] = round(statistics.median(cpu) * 1000, 1)
    print(f"\n{what}: {len(wall)} requests, median {statistics.median(wall) * 1000:.1f} ms wall, "
          f"{statistics.median(cpu) * 1000:.1f} ms CPU; {len(answer.data):,} bytes")
    return answer


def test_month_pack_page(benchmark, organiser_client):
    client, path, built = organiser_client
    page = _measured(benchmark, "month-end pack page", lambda: client.get(path))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="pack-ledger"' in html and "Balances to the dollar" in html
    assert html.count('id="member-') >= 10


def test_month_pack_pdf(benchmark, organiser_client):
    client, path, _ = organiser_client
    page = _measured(benchmark, "month-end pack PDF", lambda: client.get(path + "/pack.pdf"),
                     rounds=7 if history.FULL else 1)
    assert page.status_code == 200 and page.data.startswith(b"%PDF-")


def test_month_pack_share_image(benchmark, organiser_client):
    from PIL import Image
    client, path, _ = organiser_client
    page = _measured(benchmark, "share image", lambda: client.get(path + "/share.png"))
    assert page.status_code == 200 and Image.open(io.BytesIO(page.data)).size == (1080, 1080)
