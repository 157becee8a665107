"""Every screen of the demo league on a 390×844 phone, in both themes: axe-core finds no serious or
critical problem (WCAG 2.2 AA: contrast 4.5:1, targets of 24 px), and the host's controls are 44 px.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from blueprints.play.member_cookie import COOKIE
from league.statuses import EventStatus
from services import demo
from services.models import Event, League
from tests.e2e.conftest import axe_report
from tests.fixtures.phones import cookie_for
from tests.fixtures.roster import draw_seats
from wiring.extensions import db

THEMES = ("dark", "light")


@pytest.fixture
def league(live_server):
    """The demo league (tonight's night running, seats drawn, an under-21 at the table without
    their ID checked yet), and the addresses of its screens by who sees them."""
    app, base = live_server.app, live_server.url
    with app.app_context():
        demo.load_if_empty()
        league = db.session.scalar(db.select(League))
        tonight = db.session.scalar(db.select(Event).where(Event.status == EventStatus.RUNNING))
        tomorrow = db.session.scalar(db.select(Event).where(Event.status == EventStatus.SCHEDULED))
        settled = db.session.scalar(db.select(Event).where(Event.status == EventStatus.SETTLED)
                                    .order_by(Event.date.desc()))
        by_name = draw_seats(tonight)
        young = by_name["Zoë Papadopoulos"].member
        young.under_21, young.id_checked_at = True, None
        phone_member = by_name["O'Brien <b>"].member
        db.session.commit()
        slug, month = league.slug, settled.date.strftime("%Y-%m")
        ids = SimpleNamespace(tonight=tonight.id, tomorrow=tomorrow.id, settled=settled.id,
                              entry=by_name["O'Brien <b>"].id, member=young.id, code=tonight.check_in_code,
                              card=phone_member.card_code, cookie=cookie_for(phone_member, app.secret_key))
        db.session.remove()
    return SimpleNamespace(
        url=base, ids=ids,
        player={
            "home": "/", "league": f"/leagues/{slug}", "month": f"/leagues/{slug}/months/{month}",
            "season": f"/leagues/{slug}/seasons/{month[:4]}", "qualifiers": f"/leagues/{slug}/months/{month}/qualifiers",
            "nights": f"/leagues/{slug}/nights", "results": f"/events/{ids.settled}/results",
            "clock": f"/events/{ids.tonight}", "big screen": f"/events/{ids.tonight}/screen",
            "check-in": f"/check-in/{ids.code}", "me": "/me", "card": f"/cards/{ids.card}", "claim": "/me/claim",
            "pre-register": f"/events/{ids.tomorrow}/prereg", "offline": "/offline", "not found": "/no/such/page",
        },
        host={
            "nights": "/host/", "clock tab": f"/host/events/{ids.tonight}",
            "players tab": f"/host/events/{ids.tonight}/players", "structure": f"/host/events/{ids.tonight}/structure",
            "floor": f"/host/events/{ids.tonight}/floor/{ids.entry}", "edit night": f"/host/events/{ids.tomorrow}/edit",
        },
        organiser={
            "home": "/organiser/", "setup": f"/organiser/{slug}/setup", "nights": f"/organiser/{slug}/nights",
            "members": f"/organiser/{slug}/members", "member": f"/organiser/{slug}/members/{ids.member}",
            "month": f"/organiser/{slug}/months/{month}", "season": f"/organiser/{slug}/seasons/{month[:4]}",
            "settings": f"/organiser/{slug}/settings", "data": f"/organiser/{slug}/data",
            "pack on paper": f"/organiser/{slug}/months/{month}/print",
        })


def logged_in(phone, base, username, password, theme):
    page = phone()
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    page.goto(f"{base}/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page


@pytest.mark.parametrize("theme", THEMES)
def test_baseline(league, phone, theme):
    found = {}
    player = phone()
    player.context.add_cookies([{"name": COOKIE, "value": league.ids.cookie, "url": league.url}])
    player.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    host = logged_in(phone, league.url, demo.HOST[0], demo.HOST[1], theme)
    organiser = logged_in(phone, league.url, demo.ORGANISER[0], demo.ORGANISER[1], theme)
    phone.allow("404")
    for who, page, screens in (("player", player, league.player), ("host", host, league.host),
                               ("organiser", organiser, league.organiser)):
        for name, path in screens.items():
            page.goto(league.url + path)
            page.wait_for_load_state("load")
            found[f"{who} {name}"] = axe_report(page)
    import json
    open(f"/tmp/c_axe_{theme}.json", "w").write(json.dumps(found, indent=1))
