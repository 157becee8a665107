"""The blind structure editor on the host's phone (R-CLOCK-1): edits save only when valid."""
import pytest

from league import structures
from tests.conftest import csrf_token, login
from tests.fixtures.host import clock


def form_of(items, **extra):
    """The editor's form for `items`, as the browser posts it."""
    data = {"kind": [], "minutes": [], "small_blind": [], "big_blind": [], "ante": [], "label": [], "colour_up": []}
    for n, item in enumerate(items, 1):
        data["kind"].append(item["kind"])
        data["minutes"].append(str(item["minutes"]))
        for key in ("small_blind", "big_blind", "ante", "label", "colour_up"):
            data[key].append(str(item.get(key, "")))
        if item.get("major"):
            data["major"] = str(n)
    return {**data, **extra}


@pytest.fixture
def host(client, night):
    login(client, "host", "pw-host")
    return client


def post(client, event, items, op, version=None, **extra):
    version = clock(client, event)["version"] if version is None else version
    return client.post(f"/host/events/{event.id}/structure", headers={"HX-Request": "true"},
                       data=form_of(items, op=op, version=str(version), csrf_token=csrf_token(client, "/"), **extra))


def test_r_clock_1_editor_page_and_fragment(host, night):
    page = host.get(f"/host/events/{night.id}/structure")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html and "Save structure" in html
    assert "Move item 1 up" in html and "Duplicate" in html and "Use template" in html
    fragment = host.get(f"/host/events/{night.id}/structure", headers={"HX-Request": "true"})
    assert "<html" not in fragment.get_data(as_text=True) and "HX-Request" in fragment.headers["Vary"]


def test_r_clock_1_edit_a_level_and_save(host, night):
    items = clock(host, night)["structure"]
    items[0] = {**items[0], "minutes": 20}
    response = post(host, night, items, "save")
    assert response.status_code == 200 and "Saved." in response.get_data(as_text=True)
    after = clock(host, night)
    assert after["structure"][0]["minutes"] == 20 and after["remaining_ms"] == 20 * 60_000
    assert after["version"] == 1  # every screen re-reads the structure


def test_r_clock_1_add_remove_reorder_duplicate(host, night):
    items = clock(host, night)["structure"]
    n = len(items)
    post(host, night, items, "duplicate:1")
    assert len(clock(host, night)["structure"]) == n + 1
    post(host, night, clock(host, night)["structure"], "remove:2")
    assert clock(host, night)["structure"] == items
    post(host, night, items, f"add_level:{n}")
    last = clock(host, night)["structure"][-1]
    assert last["big_blind"] == items[-1]["big_blind"] * 2
    current = clock(host, night)["structure"]
    refused = post(host, night, current, "up:2")  # 2nd level above the 1st: blinds would go down
    assert refused.status_code == 422 and "Not saved" in refused.get_data(as_text=True)
    assert clock(host, night)["structure"] == current


def test_r_clock_1_bad_values_are_named_and_nothing_changes(host, night):
    items = clock(host, night)["structure"]
    before = clock(host, night)
    bad = [dict(items[0], minutes="1o")] + items[1:]
    response = post(host, night, bad, "save")
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "minutes must be a whole number" in html and 'value="1o"' in html
    lower = [items[0], dict(items[1], big_blind=10, small_blind=5)] + items[2:]
    response = post(host, night, lower, "save")
    assert response.status_code == 422 and "lower than" in response.get_data(as_text=True)
    assert clock(host, night) ["version"] == before["version"]


def test_r_clock_1_template_and_stale_and_garbled(host, night):
    items = clock(host, night)["structure"]
    response = post(host, night, items, "template", template="turbo")
    assert response.status_code == 200
    assert clock(host, night)["structure"] == structures.to_json(structures.TEMPLATES["turbo"][1])
    assert post(host, night, items, "save", version=0).status_code == 409
    assert post(host, night, items, "template", template="nope").status_code == 400
    assert post(host, night, items, "remove:99").status_code == 400


def test_the_editor_needs_the_events_host(client, night):
    assert client.get(f"/host/events/{night.id}/structure").status_code == 302
    token = csrf_token(client)
    anonymous = client.post(f"/host/events/{night.id}/structure", data={"op": "save", "csrf_token": token})
    assert anonymous.status_code == 401
