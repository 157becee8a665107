"""The live clock over HTTP: JSON, pages, the stream, and host controls (R-CLOCK-1..4)."""
import html as html_module
import json
import re

from league import structures
from live.announce import STREAMED
from services import clocks
from services.models import User
from tests.conftest import csrf_token, login, make_app
from tests.fixtures.host import clock, tap
from wiring.extensions import db


def test_r_clock_1_json_shape_before_the_start(client, night):
    data = clock(client, night)
    assert {"level", "is_break", "small_blind", "big_blind", "ante", "remaining_ms", "running", "version",
            "server_time_ms", "next"} <= set(data)
    assert data["level"] == 1 and data["running"] is False and data["version"] == 0
    assert data["remaining_ms"] == data["structure"][0]["minutes"] * 60_000
    assert data["next"]["small_blind"] >= data["small_blind"]
    assert client.get(f"/api/events/{night.id}/clock").headers["Cache-Control"] == "no-store"
    assert client.get("/api/events/999/clock").status_code == 404


def test_r_clock_3_every_control_as_the_host(client, night):
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    started = clock(client, night)
    assert started["running"] and started["started"] and started["version"] == 1
    assert tap(client, night, "pause").status_code == 200
    paused = clock(client, night)
    assert not paused["running"]
    assert tap(client, night, "plus").status_code == 200
    assert clock(client, night)["remaining_ms"] == paused["remaining_ms"] + 60_000
    assert tap(client, night, "minus").status_code == 200
    assert clock(client, night)["remaining_ms"] == paused["remaining_ms"]
    assert tap(client, night, "next").status_code == 200
    assert clock(client, night)["index"] == 1
    assert tap(client, night, "previous").status_code == 200
    assert clock(client, night)["index"] == 0
    assert tap(client, night, "jump", index="3").status_code == 200
    assert clock(client, night)["index"] == 2
    assert tap(client, night, "resume").status_code == 200
    assert clock(client, night)["running"]
    assert clock(client, night)["version"] == 8


def test_r_clock_1_the_hosts_level_picker_names_every_item_and_follows_the_clock(client, night):
    """R-CLOCK-1/3: the picker lists every item of the structure as the host reads it (blinds with the
    ante, a break with its minutes, its label escaped), the current item selected, after each tap
    and after the structure changes (the options are kept per structure)."""
    night.structure = [{"kind": "level", "minutes": 20, "small_blind": 1000, "big_blind": 2000, "ante": 0},
                       {"kind": "break", "minutes": 15, "label": "O'Brien <b>", "colour_up": ""},
                       {"kind": "level", "minutes": 20, "small_blind": 1500, "big_blind": 3000, "ante": 500}]
    db.session.commit()
    login(client, "host", "pw-host")

    def picker(html):
        return re.search(r'<select name="index">(.*?)</select>', html, re.S).group(1)

    page = client.get(f"/host/events/{night.id}").get_data(as_text=True)
    assert picker(page) == ('<option selected value="1">1. 1,000/2,000</option>'
                            '<option value="2">2. O&#39;Brien &lt;b&gt; (15 min)</option>'
                            '<option value="3">3. 1,500/3,000 a500</option>')
    answer = tap(client, night, "jump", index="3").get_data(as_text=True)
    assert '<option selected value="3">3. 1,500/3,000 a500</option>' in picker(answer)
    assert picker(answer).count("selected") == 1
    night.structure = [*night.structure[:2], {**night.structure[2], "ante": 0}]
    db.session.commit()
    answer = tap(client, night, "previous").get_data(as_text=True)
    assert picker(answer).endswith('<option value="3">3. 1,500/3,000</option>')
    assert '<option selected value="2">' in picker(answer)


def test_r_clock_4_call_the_clock_for_a_seat(client, night):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    response = tap(client, night, "shot", seat="Table 2 seat 5 <b>")
    assert response.status_code == 200
    shot = clock(client, night)["shot"]
    assert shot["seat"] == "Table 2 seat 5 <b>" and (shot["length_s"], shot["warning_s"], shot["count_s"]) == (70, 40, 10)
    page = client.get(f"/events/{night.id}").get_data(as_text=True)
    assert "Clock called on Table 2 seat 5 &lt;b&gt;" in page
    tap(client, night, "shot_off")
    assert clock(client, night)["shot"] is None


def test_the_host_sees_controls_and_the_fragment_carries_the_clock_out_of_band(client, night):
    login(client, "host", "pw-host")
    page = client.get(f"/host/events/{night.id}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and ">Start<" in html and "hx-swap-oob" not in html
    for label in ("Previous level", "Next level", "+1 min", "−1 min", "Jump", "Call the clock"):
        assert label in html
    response = tap(client, night, "start")
    fragment = response.get_data(as_text=True)
    assert "<html" not in fragment and ">Pause<" in fragment
    # the clock's new state out of band, as the phones' stream sent it: not the fragment again
    state = re.search(r'<div id="clock-state" hidden data-state="([^"]*)" hx-swap-oob="true"></div>', fragment)
    sent = json.loads(html_module.unescape(state.group(1)))
    assert sent["version"] == 1 and sent["state"]["started"] and 'data-clock=' not in fragment
    assert 'id="clock-state" hidden data-state="{' in html.replace("&#34;", '"')  # the page's, for htmx to swap
    assert "HX-Request" in response.headers["Vary"]


def test_a_form_post_without_htmx_redirects_back(client, night):
    login(client, "host", "pw-host")
    token = csrf_token(client, f"/host/events/{night.id}")
    response = client.post(f"/host/events/{night.id}/clock", data={"action": "start", "version": "0",
                                                                    "csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"] == f"/host/events/{night.id}"


def test_a_stale_tap_changes_nothing(client, night):
    """A double tap on flaky wifi: the second carries the old version and is refused."""
    login(client, "host", "pw-host")
    assert tap(client, night, "next", version=0).status_code == 200
    again = tap(client, night, "next", version=0)
    assert again.status_code == 409 and "changed on another screen" in again.get_data(as_text=True)
    assert clock(client, night)["index"] == 1 and clock(client, night)["version"] == 1


def test_refused_actions_say_why_and_change_nothing(client, night):
    login(client, "host", "pw-host")
    refused = tap(client, night, "pause")
    assert refused.status_code == 422 and "started yet" in refused.get_data(as_text=True)
    assert tap(client, night, "dance").status_code == 422
    assert tap(client, night, "jump", index="99").status_code == 422
    assert tap(client, night, "start", version="x").status_code == 400
    assert clock(client, night)["version"] == 0


def test_anonymous_and_forged_control_requests_are_refused(client, night):
    token = csrf_token(client)
    anonymous = client.post(f"/host/events/{night.id}/clock", headers={"HX-Request": "true"},
                            data={"action": "start", "version": "0", "csrf_token": token})
    assert anonymous.status_code == 401
    login(client, "host", "pw-host")
    forged = client.post(f"/host/events/{night.id}/clock", data={"action": "start", "version": "0"})
    assert forged.status_code == 400
    wrong_token = client.post(f"/host/events/{night.id}/clock", data={
        "action": "start", "version": "0", "csrf_token": "forged"})
    assert wrong_token.status_code == 400
    assert clock(client, night)["version"] == 0


def test_only_the_events_host_or_an_organiser_runs_it(client, night, league):
    other = User(username="other", display_name="Other host", role="host", league_id=league.id)
    other.set_password("pw-other")
    db.session.add(other)
    db.session.commit()
    login(client, "other", "pw-other")
    assert client.get(f"/host/events/{night.id}").status_code == 403
    assert tap(client, night, "start", version=0).status_code == 403
    assert clock(client, night)["version"] == 0
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, "organiser", "pw-organiser")
    assert tap(client, night, "start").status_code == 200


def test_host_home_lists_their_nights(client, night):
    login(client, "host", "pw-host")
    html = client.get("/host/").get_data(as_text=True)
    assert "Rose &amp; Crown" in html and f"/host/events/{night.id}" in html


def test_player_and_screen_pages(client, night):
    for path in (f"/events/{night.id}", f"/events/{night.id}/screen"):
        page = client.get(path)
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and "data-clock=" in html
        assert f'data-stream-url="/events/{night.id}/stream"' in html and "Players left" in html
        assert "vendor/htmx" not in html and "sse-connect" not in html  # clock.js holds the stream itself
    # The player's page: its first-paint styles inline, unless the phone's service worker holds app.css.
    first, worker = (client.get(f"/events/{night.id}", headers=headers).get_data(as_text=True)
                     for headers in ({}, {"Service-Worker-Navigation-Preload": "true"}))
    assert first.count("<style>") == 1 and first.index("<style>") < first.index("</head>") < first.index("app.css")
    assert "<style>" not in worker and worker.index("app.css") < worker.index("</head>")
    assert client.get("/events/12345").status_code == 404
    assert client.get("/events/12345/screen").status_code == 404


def test_only_the_hosts_night_page_loads_the_hosts_controls(client, night):
    """The host's clock controls (static/host/controls.js) are a module of their own, run after clock.js
    on the host's night page: a player's clock page loads clock.js alone (and push.js, the "Tell me
    when I move" switch, for a phone with a member card), the big screen clock.js and its voice, even
    for a host logged in on them."""
    modules = re.compile(r'<script type="module" src="/static/([^"?]+)\?v=[0-9a-f]{12}"></script>')
    player_pages = {f"/events/{night.id}": ["js/clock.js"], f"/events/{night.id}/screen": ["js/clock.js", "js/voice.js"]}
    for path, loaded in player_pages.items():
        assert modules.findall(client.get(path).get_data(as_text=True)) == loaded, path
    login(client, "host", "pw-host")
    host_page = client.get(f"/host/events/{night.id}").get_data(as_text=True)
    assert modules.findall(host_page) == ["js/clock.js", "host/controls.js"]
    for path, loaded in player_pages.items():
        assert modules.findall(client.get(path).get_data(as_text=True)) == loaded, path


def test_the_stream_sends_the_current_clock_at_once(client, night):
    """R-CLOCK-3: a stream opens with the clock as it stands: one line of JSON, the structure named by
    its digest (the page that opened the stream holds the structure itself)."""
    response = client.get(f"/events/{night.id}/stream")
    assert response.mimetype == "text/event-stream"
    first = next(response.response)
    first = first.decode() if isinstance(first, bytes) else first
    assert first.startswith("retry: 2000\nid: 0\nevent: clock\ndata: {") and first.endswith("}\n\n")
    sent = json.loads(first.split("data: ", 1)[1])
    whole = client.get(f"/api/events/{night.id}/clock").get_json()
    assert set(sent) == {*STREAMED, "ladder"} and len(first) < 800
    assert {key: sent[key] for key in STREAMED if key != "server_time_ms"} == {
        key: whole[key] for key in STREAMED if key != "server_time_ms"}
    assert len(sent["structure_digest"]) == 12
    response.close()
    assert client.get("/events/999/stream").status_code == 404


def test_r_clock_3_a_tap_sends_the_state_and_the_structure_only_when_it_changed(app, client, night):
    """R-CLOCK-3: a tap's message is the new state and the field's figures (what the phones cannot
    derive), not the fragment and the structure; a saved structure goes out with its new digest, and
    the next tap's message names that digest without the structure."""
    hub = app.extensions["notices"]
    login(client, "host", "pw-host")
    tap(client, night, "start")
    version, message = hub.cached(night.id, 1)
    sent = json.loads(message.decode().split("data: ", 1)[1])
    assert version == sent["version"] == 1 and "structure" not in sent and len(message) < 700
    assert sent["state"]["started"] and sent["state"]["running_since_ms"] is not None
    before = sent["structure_digest"]
    form = {"csrf_token": csrf_token(client, "/"), "version": "1", "op": "template", "template": "turbo"}
    assert client.post(f"/host/events/{night.id}/structure", data=form).status_code == 200
    version, message = hub.cached(night.id, 2)
    saved = json.loads(message.decode().split("data: ", 1)[1])
    assert saved["structure"] == structures.to_json(structures.TEMPLATES["turbo"][1]) and saved["structure_digest"] != before
    tap(client, night, "pause")
    _, message = hub.cached(night.id, 3)
    paused = json.loads(message.decode().split("data: ", 1)[1])
    assert "structure" not in paused and paused["structure_digest"] == saved["structure_digest"]
    assert paused["state"]["running_since_ms"] is None


def test_a_restarted_app_shows_the_same_clock(client, night, db_path):
    """No process keeps the clock: a new app on the same database derives the same state."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    tap(client, night, "next")
    tap(client, night, "pause")
    before = clock(client, night)
    restarted = make_app(db_path)
    after = restarted.test_client().get(f"/api/events/{night.id}/clock").get_json()
    for key in ("version", "index", "level", "remaining_ms", "running", "small_blind", "big_blind"):
        assert after[key] == before[key]


def test_time_source(client):
    data = client.get("/api/time").get_json()
    assert abs(data["server_time_ms"] - clocks.now_ms()) < 60_000
