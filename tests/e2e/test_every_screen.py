"""Every screen of the demo league on a 390×844 phone, in both themes: the player's, the host's and
the organiser's pages, the refusal pages, and the states that show red and green (a called clock,
a paused one, an under-21 at the door, a refused structure, a disqualified player). axe-core finds no
serious or critical problem (WCAG 2.2 AA: contrast 4.5:1, targets of 24 px), and every control on a
host's screen is 44 px or more. Screenshots of each in test-artifacts/screenshots/every-screen-*.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from blueprints.play.member_cookie import COOKIE
from league.statuses import DealMethod, EntryStatus, EventStatus
from services import deals, demo
from services.models import Entry, Event, League, Member
from services.night_snapshot import read_night
from tests.e2e.conftest import axe_report, check_taps, seed_tonight
from tests.e2e.test_seat_notice import seed_players
from tests.fixtures.cash import as_cash_night
from tests.fixtures.phones import cookie_for
from tests.fixtures.roster import bust_out, draw_seats, host_action
from wiring.extensions import db

THEMES = ("dark", "light")
# A host's controls: the page's buttons, fields and button-links (a link inside a sentence is text).
HOST_CONTROLS = "main :is(button, input, select, a.button, summary)"


@pytest.fixture
def league(live_server):
    """The demo league with tonight's seats drawn, one player out and one disqualified, an under-21
    at the door whose ID is not checked yet, and this phone's member playing; the addresses of each
    one's screens."""
    app, base = live_server.app, live_server.url
    with app.app_context():
        demo.load_if_empty()
        league = db.session.scalar(db.select(League))
        tonight = db.session.scalar(db.select(Event).where(Event.status == EventStatus.RUNNING))
        tomorrow = db.session.scalar(db.select(Event).where(Event.status == EventStatus.SCHEDULED))
        settled = db.session.scalar(db.select(Event).where(Event.status == EventStatus.SETTLED)
                                    .order_by(Event.date.desc()))
        by_name = draw_seats(tonight)
        out, gone = [name for name in by_name if name not in demo.SPECIAL_MEMBERS][:2]
        bust_out(tonight, out)
        by_name[gone].status, by_name[gone].position = EntryStatus.DQ, len(by_name) - 1
        young = Member.named(league.id, "Kid Under-Twenty")
        young.under_21 = True
        db.session.add(young)
        db.session.flush()
        db.session.add(Entry(event_id=tonight.id, member_id=young.id, status=EntryStatus.PENDING))
        mine = by_name["O'Brien <b>"]
        db.session.commit()
        slug, month, year = league.slug, settled.date.strftime("%Y-%m"), settled.date.year
        ids = SimpleNamespace(tonight=tonight.id, tomorrow=tomorrow.id, settled=settled.id, entry=mine.id,
                              member=young.id, code=tonight.check_in_code, card=young.card_code,
                              cookie=cookie_for(mine.member, app.secret_key))
        db.session.remove()
    night = f"/host/events/{ids.tonight}"
    return SimpleNamespace(
        url=base, ids=ids,
        player={
            "home": "/", "league": f"/leagues/{slug}", "month": f"/leagues/{slug}/months/{month}",
            "season": f"/leagues/{slug}/seasons/{year}", "qualifiers": f"/leagues/{slug}/months/{month}/qualifiers",
            "nights": f"/leagues/{slug}/nights", "results": f"/events/{ids.settled}/results",
            "clock": f"/events/{ids.tonight}", "big screen": f"/events/{ids.tonight}/screen",
            "clock, night over": f"/events/{ids.settled}", "big screen, night over": f"/events/{ids.settled}/screen",
            "check-in": f"/check-in/{ids.code}", "me": "/me", "claim": "/me/claim",
            "pre-register": f"/events/{ids.tomorrow}/prereg", "offline": "/offline",
            "not found": "/no/such/page", "closed check-in": "/check-in/NOPE",
        },
        host={
            "nights": "/host/", "clock tab": night, "players tab": f"{night}/players",
            "structure": f"{night}/structure", "floor": f"{night}/floor/{ids.entry}",
            "edit night": f"/host/events/{ids.tomorrow}/edit", "member card": f"/cards/{ids.card}",
            "not yours": "/organiser/",
        },
        organiser={
            "home": "/organiser/", "setup": f"/organiser/{slug}/setup", "nights": f"/organiser/{slug}/nights",
            "members": f"/organiser/{slug}/members", "member": f"/organiser/{slug}/members/{ids.member}",
            "month": f"/organiser/{slug}/months/{month}", "season": f"/organiser/{slug}/seasons/{year}",
            "settings": f"/organiser/{slug}/settings", "data": f"/organiser/{slug}/data",
            "pack on paper": f"/organiser/{slug}/months/{month}/print",
            "correct a night": f"/host/events/{ids.settled}/correct",
        })


def in_theme(page, theme):
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    return page


def logged_in(phone, base, login, theme):
    page = in_theme(phone(), theme)
    page.goto(f"{base}/login")
    page.get_by_label("Username").fill(login[0])
    page.get_by_label("Password").fill(login[1])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page


class Findings:
    """axe-core's findings, screen by screen, reported all at once."""

    def __init__(self, theme, screenshot):
        self.theme, self.screenshot, self.found = theme, screenshot, {}

    def look(self, page, name, full_page=False):
        page.wait_for_load_state("load")
        # The TV's screen is always dark (a dim pub, across the room); the pack on paper has no theme.
        fixed = {"big screen": "dark", "pack on paper": None}
        assert page.evaluate("document.documentElement.dataset.theme") == next(
            (theme for screen, theme in fixed.items() if screen in name), self.theme)
        self.found[name] = axe_report(page)
        self.screenshot(page, f"every-screen-{name}-{self.theme}", full_page)  # by default what the phone shows

    def check(self):
        bad = {name: found for name, found in self.found.items() if found}
        assert not bad, f"axe-core in the {self.theme} theme:\n" + "\n".join(
            f"{name}: {rule} ({impact}) {help} {targets}" for name, found in bad.items()
            for rule, impact, help, targets in found)


@pytest.mark.parametrize("theme", THEMES)
def test_every_screen_in_both_themes_passes_axe(league, phone, screenshot, theme):
    phone.allow(r"status of (403|404|422)")  # the refusal pages, and the structure refused
    findings = Findings(theme, screenshot)
    player = in_theme(phone(), theme)
    player.context.add_cookies([{"name": COOKIE, "value": league.ids.cookie, "url": league.url}])
    for name, path in league.player.items():
        player.goto(league.url + path)
        findings.look(player, f"player {name}")

    host = logged_in(phone, league.url, demo.HOST, theme)
    for name, path in league.host.items():
        host.goto(league.url + path)
        findings.look(host, f"host {name}")
    # A player's sheet as it opens over the roster (a dialog, not the floor page above).
    host.goto(f"{league.url}/host/events/{league.ids.tonight}/players")
    host.locator("#players").get_by_role("link", name="O'Brien <b>").first.click()
    expect(host.locator("#sheet")).to_be_visible()
    findings.look(host, "host player's sheet")
    # The states in red and green: a called clock (Stop the called clock, its banner on the TV
    # too), a paused clock (Resume), a structure the editor refuses.
    host.goto(f"{league.url}/host/events/{league.ids.tonight}")
    host.get_by_label("Seat").fill("T1 S3")
    host.get_by_role("button", name="Call the clock").click()
    expect(host.get_by_role("button", name="Stop the called clock")).to_be_visible()
    findings.look(host, "host clock called", full_page=True)
    player.goto(f"{league.url}/events/{league.ids.tonight}/screen")
    expect(player.locator('[data-field="shot-box"]')).to_be_visible()
    findings.look(player, "player big screen, clock called")
    host.get_by_role("button", name="Pause").click()
    expect(host.get_by_role("button", name="Resume")).to_be_visible()
    findings.look(host, "host clock paused", full_page=True)
    host.goto(f"{league.url}/host/events/{league.ids.tonight}/structure")
    host.locator('input[name="minutes"]').first.fill("ten")
    host.get_by_role("button", name="Save structure").click()
    expect(host.locator("#refusal")).to_contain_text("Not saved")
    findings.look(host, "host structure refused", full_page=True)

    organiser = logged_in(phone, league.url, demo.ORGANISER, theme)
    for name, path in league.organiser.items():
        organiser.goto(league.url + path)
        findings.look(organiser, f"organiser {name}")
    findings.check()


@pytest.mark.parametrize("theme", THEMES)
def test_the_deals_screens_in_both_themes_pass_axe(live_server, phone, screenshot, theme):
    """R-PAY-2, R-CHIP-3: a cash night's last three (30,000 in play, all counted) with a deal on the
    ballot: a player's own ballot, the host's roster with the vote going on, and the host's phone
    handed to a player to vote."""
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bea Park", "Cal Dunn"])
    with live_server.app.app_context():
        event = as_cash_night(db.session.get(Event, event_id), 30, 25, 250)
        with host_action(event, "deal", "Deal put to the vote") as log:
            night = read_night(event)
            players = sorted(night.deal_players, key=lambda entry: entry.member.name)
            deals.open_deal(night, dict(zip(players, (15_000, 10_000, 5_000))), DealMethod.CHIP_CHOP, log)
        ann, cal = players[0], players[2]
        cookie, cal_id = cookie_for(ann.member, live_server.app.secret_key), cal.id
        db.session.remove()
    findings = Findings(theme, screenshot)
    player = in_theme(phone(), theme)
    player.context.add_cookies([{"name": COOKIE, "value": cookie, "url": live_server.url}])
    player.goto(f"{live_server.url}/events/{event_id}/deal")
    expect(player.get_by_role("button", name="Yes, deal")).to_be_visible()
    findings.look(player, "player deal ballot", full_page=True)
    host = logged_in(phone, live_server.url, ("harry", "pw-harry"), theme)
    host.goto(f"{live_server.url}/host/events/{event_id}/players")
    expect(host.locator("#players")).to_contain_text("0 of 3 have voted")
    findings.look(host, "host deal on the ballot")
    host.goto(f"{live_server.url}/host/events/{event_id}/ballot/{cal_id}")
    expect(host.get_by_role("button", name="No, play on")).to_be_visible()
    findings.look(host, "host phone handed to a player", full_page=True)
    findings.check()


def test_every_control_on_the_hosts_screens_is_thumb_sized(league, phone):
    phone.allow(r"status of 403")  # not the host's page
    host = logged_in(phone, league.url, demo.HOST, "dark")
    for name, path in league.host.items():
        host.goto(league.url + path)
        host.wait_for_load_state("load")
        check_taps(host, HOST_CONTROLS)
        assert host.locator(HOST_CONTROLS).count() > 0 or name == "not yours"
    # the roster's closed sections open: what is inside counts too
    host.goto(f"{league.url}/host/events/{league.ids.tonight}/players")
    for summary in host.locator("main details:not([open]) > summary").all():
        if summary.is_visible():
            summary.click()
    check_taps(host, HOST_CONTROLS)
