"""Two at a time on every POST (blueprints/once.py): the fuzz's requests (tests/web/test_fuzz.py: every
state-changing route, each role, plausible and malformed forms with a valid CSRF token) sent twice at
the same moment with the same idempotency key, then a third time. Never a 5xx; at most one of the
pair runs its view (the other is the first answer again, or "already being done"); the third is the
first answer again and writes nothing; on SQLite and PostgreSQL.

The totals of the run (`TALLY`) are printed at the end of a run in one process (tests/web/conftest.py)
for docs/reliability.md."""
import os
import uuid
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints import once
from services.models import RequestKey
from tests.fixtures.rows import count
from tests.web.test_fuzz import FUZZ, ROLES, World, draw_form, draw_path, dump, routes
from tests.web.test_once import at_once, replayed, without_keys
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "two requests at once meet in each database's own locking (a unique index waits on PostgreSQL)")

EXAMPLES = int(os.environ.get("SHUFFLEUP_ONCE_EXAMPLES", "60"))
TALLY: Counter = Counter()


@pytest.fixture
def world(app, night, league):
    return World(app, night, league)


def keyed_routes(app) -> list[tuple[str, str, str]]:
    """Every state-changing route a page's key reaches (the auth blueprint's logins take none)."""
    return [r for r in routes(app) if r[1] in once.CHANGES and not r[0].startswith(f"{once.NOT_KEYED}.")]


def busy(response) -> bool:
    return response.status_code == 409 and once.BUSY in response.get_data(as_text=True)


@pytest.mark.parametrize("role", ROLES)
@settings(FUZZ, max_examples=EXAMPLES)
@given(data=st.data())
def test_two_at_a_time_on_every_post_apply_once(world, role, data):
    endpoint, method, rule = data.draw(st.sampled_from(keyed_routes(world.app)), label="route")
    path = draw_path(data, world, rule)
    form = {**draw_form(data, world), "csrf_token": world.csrf("fuzz-secret")}
    headers = {"HX-Request": "true"} if data.draw(st.booleans(), label="htmx") else {}
    key = uuid.uuid4().hex
    phones = [world.client(role, "fuzz-secret") for _ in range(2)]  # one browser's session, twice
    keys_before = count(RequestKey)
    pair = at_once(*(lambda phone=phone: phone.open(path, method=method, headers={**headers, once.HEADER: key},
                                                    data=form) for phone in phones))
    what = f"{role} {method} {path} {form}"
    TALLY["requests"] += 2
    TALLY["5xx"] += sum(a.status_code >= 500 for a in pair)
    assert all(a.status_code < 500 for a in pair), f"{what} -> {[a.status_code for a in pair]}"
    ran = [a for a in pair if not replayed(a) and not busy(a)]
    claimed = count(RequestKey) - keys_before
    assert claimed <= 1, what
    if not claimed:  # refused before a key is claimed (no such route, a refused CSRF token): both alike
        TALLY["refused before the key"] += 2
        assert len({a.status_code for a in pair}) == 1, what
        return
    TALLY["double-applied"] += len(ran) > 1
    TALLY["second answered as the first"] += sum(replayed(a) for a in pair)
    TALLY["second told already being done"] += sum(busy(a) for a in pair)
    assert len(ran) == 1, f"{what} -> {[(a.status_code, a.headers.get('Idempotency-Replayed')) for a in pair]}"
    before = without_keys(dump())
    third = phones[0].open(path, method=method, headers={**headers, once.HEADER: key}, data=form)
    db.session.remove()
    TALLY["requests"] += 1
    assert replayed(third) and third.status_code == ran[0].status_code, what
    assert without_keys(dump()) == before, f"{what}: the third sending wrote"
