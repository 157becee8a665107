"""The month-end pack over 5 years of a 4-venue league (~200,000 results with `make bench`): the pack's
page, its PDF and its share image through the whole request path (targets: 200 ms, 1 s, 300 ms).
Each round starts a fresh session, as a request would. Plain `make test` runs each once on the small
league as a smoke test; figures are measured by `make bench` on a quiet machine."""
import io

import pytest

from services.models import League, User
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
    return client, path, built


def test_month_pack_page(benchmark, organiser_client):
    client, path, built = organiser_client
    page = benchmark(lambda: client.get(path))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="pack-ledger"' in html and "Balances to the dollar" in html
    assert html.count('id="member-') >= 10


def test_month_pack_pdf(benchmark, organiser_client):
    client, path, _ = organiser_client
    page = benchmark.pedantic(lambda: client.get(path + "/pack.pdf"), rounds=3, iterations=1)
    assert page.status_code == 200 and page.data.startswith(b"%PDF-")


def test_month_pack_share_image(benchmark, organiser_client):
    from PIL import Image
    client, path, _ = organiser_client
    page = benchmark(lambda: client.get(path + "/share.png"))
    assert page.status_code == 200 and Image.open(io.BytesIO(page.data)).size == (1080, 1080)
