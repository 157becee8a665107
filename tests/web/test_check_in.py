"""QR check-in on the player's phone and the host's roster (R-MEM-1, R-LATE-1/4, R-PTS-5/6, undo)."""

import datetime as dt

import pytest

from blueprints.play.member_cookie import COOKIE
from live.payload import clock_payload
from services import field
from services.journal import last_action
from services.models import Action, Event, Member, Ruling, Venue
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op, seat_players, tap
from tests.fixtures.pages import words
from tests.fixtures.phones import join
from tests.fixtures.rows import entries
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "two phones taking one new name meet the database's unique constraint (IntegrityError)")


def test_r_mem_1_join_on_the_spot_then_one_tap_next_time(phone, night):
    page = phone.get(f"/check-in/{night.check_in_code}")
    assert page.status_code == 200 and "Join and check in" in page.get_data(as_text=True)
    response = join(phone, night, "O'Brien <b>", contact="0400 000 000")
    assert response.status_code == 303 and COOKIE in response.headers["Set-Cookie"]
    assert "HttpOnly" in response.headers["Set-Cookie"]
    html = phone.get(f"/check-in/{night.check_in_code}").get_data(as_text=True)
    assert "O&#39;Brien &lt;b&gt;, you're checked in." in html and "will confirm" in html
    assert entries(night)["O'Brien <b>"].status == "pending"
    # a second scan does not make a second entry
    again = phone.post(f"/check-in/{night.check_in_code}", data={"csrf_token": csrf_token(phone)})
    assert again.status_code == 303 and len(entries(night)) == 1


def test_r_mem_1_under_18_and_taken_names_are_refused(phone, night):
    refused = join(phone, night, "Young One", adult=False)
    assert refused.status_code == 422 and "18 or over" in refused.get_data(as_text=True)
    db.session.add(Member.named(night.league_id, "Ann Lee"))
    db.session.commit()
    taken = join(phone, night, "ann  lee")
    assert taken.status_code == 422 and "already exists" in taken.get_data(as_text=True)
    assert entries(night) == {} and COOKIE not in taken.headers.get("Set-Cookie", "")
    assert join(phone, night, "   ").status_code == 422


def test_check_in_links_cannot_be_guessed_and_die_with_the_event(phone, night):
    assert len(night.check_in_code) >= 20
    assert phone.get("/check-in/not-the-code").status_code == 404
    night.status = "settled"
    db.session.commit()
    assert phone.get(f"/check-in/{night.check_in_code}").status_code == 404


def test_r_late_1_check_in_closes_at_the_major_break(client, phone, night):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    major = next(i for i, item in enumerate(clock_payload(night)["structure"]) if item.get("major"))
    tap(client, night, "jump", index=str(major + 1))
    closed = join(phone, night, "Late Larry")
    assert closed.status_code == 422 and "major break has started" in closed.get_data(as_text=True)
    assert entries(night) == {}
    # the host may let them in with a reason, recorded as a ruling
    host_op(client, night, "join", name="Late Larry", adult="yes")
    assert entries(night) == {}
    response = host_op(client, night, "join", name="Late Larry", adult="yes", reason="Car broke down, called ahead")
    assert response.status_code == 200 and entries(night)["Late Larry"].status == "playing"
    ruling = db.session.scalar(db.select(Ruling))
    assert ruling.rule_id == "R-LATE-1" and ruling.reason == "Car broke down, called ahead"


def test_r_late_4_one_game_at_a_time(phone, night, league):
    join(phone, night, "Busy Bee")
    venue = Venue(league_id=league.id, name="Other Pub")
    db.session.add(venue)
    db.session.flush()
    other = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=night.date, status="running")
    db.session.add(other)
    db.session.commit()
    response = phone.post(f"/check-in/{other.check_in_code}", data={"csrf_token": csrf_token(phone)})
    assert response.status_code == 422 and "one game at a time" in response.get_data(as_text=True)


def test_host_confirms_rejects_and_checks_id(client, phone, night):
    join(phone, night, "Young Gun", under_21=True)
    other = night.league_id and phone.application.test_client()
    join(other, night, "Prank Scan")
    login(client, "host", "pw-host")
    page = client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    assert "Young Gun" in page and "under 21: check ID" in page and 'alt="QR code' in page
    roster = entries(night)
    assert host_op(client, night, f"id:{roster['Young Gun'].id}").status_code == 200
    assert db.session.scalar(db.select(Member).where(Member.name == "Young Gun")).id_checked_at is not None
    host_op(client, night, f"confirm:{roster['Young Gun'].id}")
    host_op(client, night, f"reject:{roster['Prank Scan'].id}")
    roster = entries(night)
    assert roster["Young Gun"].status == "playing" and "Prank Scan" not in roster
    again = host_op(client, night, f"confirm:{roster['Young Gun'].id}")
    assert again.status_code == 422 and "not waiting" in again.get_data(as_text=True)


def test_walk_in_by_name_search(client, night):
    db.session.add_all([Member.named(night.league_id, "Sam Stone"), Member.named(night.league_id, "Samir <i>")])
    db.session.commit()
    login(client, "host", "pw-host")
    found = client.get(f"/host/events/{night.id}/members?q=sam").get_data(as_text=True)
    assert "Sam Stone" in found and "Samir &lt;i&gt;" in found
    sam = db.session.scalar(db.select(Member).where(Member.name == "Sam Stone"))
    assert host_op(client, night, f"walk_in:{sam.id}").status_code == 200
    assert entries(night)["Sam Stone"].status == "playing"
    # R-LATE-4: in tonight, shown where he is and never offered again
    again = words(client.get(f"/host/events/{night.id}/members?q=sam").get_data(as_text=True))
    assert "Sam Stone in: seats not drawn yet" in again and f"walk_in:{sam.id}" not in again
    assert host_op(client, night, "walk_in:99999").status_code == 422


def test_walk_in_search_results_are_one_element_the_search_replaces_whole(client, night):
    """The players page holds the results' element once (the fragment, included empty) and each search
    answers that same element, swapped in whole: never a second id="search-results" inside the first."""
    db.session.add(Member.named(night.league_id, "Sam Stone"))
    db.session.commit()
    login(client, "host", "pw-host")
    page = client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    assert page.count('id="search-results"') == 1 and 'hx-target="#search-results" hx-swap="outerHTML"' in page
    assert "New member" not in page  # empty until the host types
    for query in ("sam", "stone"):  # a first search, then a second
        found = client.get(f"/host/events/{night.id}/members?q={query}", headers={"HX-Request": "true"})
        html = found.get_data(as_text=True)
        assert html.count('id="search-results"') == 1 and html.lstrip().startswith('<div id="search-results">')
        assert "Sam Stone" in html and "New member" in html
    empty = client.get(f"/host/events/{night.id}/members?q=", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert empty.count('id="search-results"') == 1 and "New member" not in empty  # cleared, still one element


def test_r_pts_5_bust_outs_take_the_worst_open_position(client, night):
    roster = seat_players(client, night, ["A", "B", "C", "D", "E"])
    host_op(client, night, f"bust:{roster['E'].id}")
    assert entries(night)["E"].position == 5
    # R-PTS-6: two out in one hand: the bigger stack finishes higher
    response = host_op(client, night, "bust_hand", out=[str(roster["C"].id), str(roster["D"].id)],
                       **{f"stack-{roster['C'].id}": "3,000", f"stack-{roster['D'].id}": "5000"})
    assert response.status_code == 200
    after = entries(night)
    assert (after["D"].position, after["C"].position) == (3, 4)
    assert "Out in one hand: D 3rd, C 4th" in response.get_data(as_text=True)
    twice = host_op(client, night, f"bust:{roster['E'].id}")
    assert twice.status_code == 422 and "not in the game" in twice.get_data(as_text=True)
    no_stacks = host_op(client, night, "bust_hand", out=[str(roster["A"].id), str(roster["B"].id)])
    assert no_stacks.status_code == 422
    last = host_op(client, night, f"bust:{roster['A'].id}")
    assert last.status_code == 200
    winner = host_op(client, night, f"bust:{roster['B'].id}")
    assert winner.status_code == 422 and "Someone has to win" in winner.get_data(as_text=True)


def test_r_pts_6_equal_stacks_share_a_position(client, night):
    roster = seat_players(client, night, ["A", "B", "C", "D"])
    host_op(client, night, "bust_hand", out=[str(roster["C"].id), str(roster["D"].id)],
            **{f"stack-{roster['C'].id}": "2000", f"stack-{roster['D'].id}": "2000"})
    after = entries(night)
    assert after["C"].position == after["D"].position == 3


def test_undo_takes_back_the_last_action_exactly(client, night):
    roster = seat_players(client, night, ["A", "B", "C"])
    host_op(client, night, f"bust:{roster['C'].id}")
    last = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert last.summary == "C out in 3rd" and last.user.username == "host"
    response = host_op(client, night, f"undo:{last.id}")
    assert response.status_code == 200 and "Took back: C out in 3rd" in response.get_data(as_text=True)
    c = entries(night)["C"]
    assert (c.status, c.position) == ("playing", None)
    stale = host_op(client, night, f"undo:{last.id}")
    assert stale.status_code == 422
    # undoing a new member's check-in removes the entry and the member
    join_action = db.session.scalar(db.select(Action).where(Action.undone_at.is_(None)).order_by(Action.id.desc()))
    host_op(client, night, f"undo:{join_action.id}")
    assert "C" not in entries(night)
    assert db.session.scalar(db.select(Member).where(Member.name == "C")) is None


def test_r_pts_5_disqualification_needs_a_reason_and_is_recorded(client, night):
    roster = seat_players(client, night, ["A", "B", "C"])
    assert host_op(client, night, "dq", dq_entry=str(roster["B"].id)).status_code == 422
    response = host_op(client, night, "dq", dq_entry=str(roster["B"].id), reason="Collusion")
    assert response.status_code == 200
    b = entries(night)["B"]
    assert (b.status, b.position) == ("dq", 3)
    assert db.session.scalar(db.select(Ruling).where(Ruling.kind == "disqualification")).reason == "Collusion"


@pytest.mark.parametrize("reason", ["Collusion\x00", "\u200b", "Soft play \u202e", "x" * 501])
def test_r_pts_5_a_disqualification_reason_that_cannot_be_stored_is_refused_and_changes_nothing(client, night, reason):
    roster = seat_players(client, night, ["A", "B", "C"])
    refused = host_op(client, night, "dq", dq_entry=str(roster["B"].id), reason=reason)
    assert refused.status_code == 422 and "reason" in refused.get_data(as_text=True)
    assert entries(night)["B"].status == "playing"
    assert db.session.scalar(db.select(Ruling).where(Ruling.kind == "disqualification")) is None


def test_roster_needs_the_events_host(client, phone, night):
    assert client.get(f"/host/events/{night.id}/players").status_code == 302
    token = csrf_token(client)
    assert client.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true"},
                       data={"op": "bust:1", "csrf_token": token}).status_code == 401
    login(client, "host", "pw-host")
    assert client.post(f"/host/events/{night.id}/players", data={"op": "bust:1"}).status_code == 400
    assert host_op(client, night, "bust:abc").status_code == 422
    assert host_op(client, night, "explode").status_code == 422
    page = client.get(f"/host/events/{night.id}/players")
    assert page.status_code == 200 and "<html" in page.get_data(as_text=True)
    fragment = client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"})
    assert fragment.get_data(as_text=True).lstrip().startswith('<section id="players"')
    svg = client.get(f"/host/events/{night.id}/check-in.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data


def test_a_forged_member_cookie_is_ignored(phone, night):
    join(phone, night, "Real Person")
    stranger = phone.application.test_client()
    stranger.set_cookie(COOKIE, "forged.value")
    html = stranger.get(f"/check-in/{night.check_in_code}").get_data(as_text=True)
    assert "Join and check in" in html and "Real Person" not in html
    member = db.session.scalar(db.select(Member).where(Member.name == "Real Person"))
    cookie = phone.get_cookie(COOKIE).value
    member.cookie_secret = "revoked"
    db.session.commit()
    thief = phone.application.test_client()
    thief.set_cookie(COOKIE, cookie)
    assert "Join and check in" in thief.get(f"/check-in/{night.check_in_code}").get_data(as_text=True)


def test_two_hosts_busting_at_the_same_moment_exactly_one_wins(app, client, night, organiser):
    """Two phones (the host and an organiser) tap Out for the same player at once; and for two
    different players at once: the positions stay a valid finishing order."""
    import threading

    from league.points import check_finishing_order
    roster = seat_players(client, night, ["A", "B", "C", "D", "E"])
    phones = [app.test_client(), app.test_client()]
    login(phones[0], "host", "pw-host")
    login(phones[1], "organiser", "pw-organiser")
    tokens = [csrf_token(p, "/") for p in phones]

    def race(targets):
        barrier, codes = threading.Barrier(2), [None, None]

        def tap_out(n):
            barrier.wait()
            codes[n] = phones[n].post(f"/host/events/{night.id}/players", headers={"HX-Request": "true"},
                                      data={"op": f"bust:{targets[n]}", "csrf_token": tokens[n]}).status_code
        threads = [threading.Thread(target=tap_out, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return sorted(codes)

    assert race([roster["E"].id, roster["E"].id]) == [200, 422]
    assert race([roster["C"].id, roster["D"].id]) == [200, 200]
    db.session.expire_all()
    out = [e.position for e in entries(night).values() if e.status == "played"]
    assert sorted(out) == [3, 4, 5]
    check_finishing_order(out + [1, 2])


def test_the_big_screen_shows_the_check_in_qr_only_from_the_hosts_link(client, night):
    public = client.get(f"/events/{night.id}/screen").get_data(as_text=True)
    assert "Scan to check in" not in public and night.check_in_code not in public
    wrong = client.get(f"/events/{night.id}/screen?code=guess").get_data(as_text=True)
    assert "Scan to check in" not in wrong
    hosts = client.get(f"/events/{night.id}/screen?code={night.check_in_code}").get_data(as_text=True)
    assert "Scan to check in" in hosts and "<svg" in hosts


def test_a_host_creates_a_night(client, night):
    login(client, "host", "pw-host")
    page = client.get("/host/").get_data(as_text=True)
    assert "Create night" in page
    venue_id = night.venue_id
    response = client.post("/host/nights", data={
        "csrf_token": csrf_token(client, "/"), "venue": str(venue_id), "date": "2026-12-24", "start_time": "19:00",
        "event_type": "nightly", "template": "turbo"})
    assert response.status_code == 303
    created = db.session.scalar(db.select(Event).where(Event.date == dt.date(2026, 12, 24)))
    assert created.host.username == "host" and created.structure[0]["minutes"] == 10
    assert response.headers["Location"] == f"/host/events/{created.id}/players"
    bad = client.post("/host/nights", data={"csrf_token": csrf_token(client, "/"), "venue": "999",
                                            "date": "2026-12-24", "event_type": "nightly", "template": "turbo"})
    assert bad.status_code == 422


def test_every_change_reaches_the_live_screens_at_once(app, client, phone, night):
    """R-CLOCK-3: a phone's check-in and a host's action each move the version on and wake every
    stream, with the clock message for that version already rendered (no stream reads it again)."""
    hub = app.extensions["notices"]
    before = night.clock_version
    assert join(phone, night, "Early Bird").status_code == 303
    db.session.expire_all()
    version, message = hub.cached(night.id, night.clock_version)
    assert night.clock_version == version > before
    assert hub.wait(night.id, before) == version
    assert f"id: {version}\nevent: clock\n".encode() in message
    login(client, "host", "pw-host")
    entry = entries(night)["Early Bird"]
    assert host_op(client, night, f"confirm:{entry.id}").status_code == 200
    db.session.expire_all()
    assert hub.wait(night.id, version) == night.clock_version > version
    assert b'"players_left":1,' in hub.cached(night.id, night.clock_version)[1]


def test_r_chip_3_a_disqualified_players_chips_leave_play(client, night):
    """R-CHIP-3: chips in play lose a disqualified player's stack: the one the host counted, or
    the average stack when it wasn't counted; a count that isn't a number changes nothing."""
    roster = seat_players(client, night, ["A", "B", "C", "D"])
    start = field.starting_stack(night)
    assert read_night(night).chip_count() == (4 * start, start)
    garbled = host_op(client, night, "dq", dq_entry=str(roster["A"].id), reason="Collusion", dq_chips="lots")
    assert garbled.status_code == 422 and "whole number" in garbled.get_data(as_text=True)
    assert entries(night)["A"].status == "playing"
    assert host_op(client, night, "dq", dq_entry=str(roster["A"].id), reason="Collusion").status_code == 200
    assert read_night(night).chip_count() == (3 * start, start)  # uncounted: the average stack left play
    counted = host_op(client, night, "dq", dq_entry=str(roster["B"].id), reason="Angle", dq_chips="12,500")
    assert counted.status_code == 200
    assert read_night(night).chip_count() == (3 * start - 12_500, (3 * start - 12_500 + 1) // 2)
    assert host_op(client, night, f"undo:{last_action(night).id}").status_code == 200
    assert read_night(night).chip_count() == (3 * start, start)


@pytest.mark.parametrize(("date", "start", "said"), [("٢٠٢٦-12-24", "19:00", "Pick the date."),
                                                     ("2026-12-2４", "19:00", "Pick the date."),
                                                     ("2026-12-24", "١٩:٠٠", "Not a valid time value.")])
def test_a_night_date_or_start_in_another_scripts_digits_is_refused(client, night, date, start, said):
    """strptime reads any script's digits ("٢٠٢٦" is 2026): the night's date and start are ASCII or
    refused, with the field named, and no night is made."""
    login(client, "host", "pw-host")
    before = db.session.scalar(db.select(db.func.count(Event.id)))
    response = client.post("/host/nights", data={
        "csrf_token": csrf_token(client, "/"), "venue": str(night.venue_id), "date": date, "start_time": start,
        "event_type": "nightly", "template": "turbo"})
    assert response.status_code == 422
    assert said in response.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count(Event.id))) == before
