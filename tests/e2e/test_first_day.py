"""A ShuffleUp's first day on phones (390×844), from a fresh database with the demo in it: the set-up
link as `make run` prints it, the operator, a new free league, its organiser adding a venue and a host by
a password link, the host setting a password and opening the first night, and the demo removed (its
pages then 404, the new league unchanged). axe-core on each new page."""
import re

from playwright.sync_api import expect

from services import demo
from tests.e2e.conftest import axe, check_fits
from wiring.extensions import db

GOOD = "pub-night-2026"


def _printed_setup_link(app, base: str) -> str:
    """The line `make run` prints (gunicorn's when_ready runs this same command) while no operator exists."""
    with app.app_context():
        assert demo.load_if_empty()
        db.session.commit()
        out = app.test_cli_runner().invoke(args=["league", "setup-link", "--base-url", base]).output
        db.session.remove()
    line = next(line for line in out.splitlines() if "/setup/" in line)
    return line.split(": ", 1)[1]


def _new_password(page, button: str, *, double_tap: bool = False) -> None:
    page.get_by_label("Password", exact=True).fill(GOOD)
    page.get_by_label("Password again").fill(GOOD)
    submit = page.get_by_role("button", name=button)
    submit.dblclick() if double_tap else submit.click()


def test_a_first_day_from_set_up_to_the_first_night_and_the_demo_removed(live_server, phone, screenshot):
    base = live_server.url
    setup_link = _printed_setup_link(live_server.app, base)

    # The operator, by the printed link.
    operator = phone()
    operator.goto(setup_link)
    expect(operator.get_by_role("heading", name="Set up this ShuffleUp")).to_be_visible()
    axe(operator, "the set-up page")
    screenshot(operator, "first-day-setup")
    operator.get_by_label("Username").fill("olga")
    _new_password(operator, "Create the operator's login")
    expect(operator.get_by_role("heading", name="Leagues")).to_be_visible()
    expect(operator.locator("#leagues .league")).to_have_count(1)  # the demo

    # A new free league and its organiser's one-time link.
    operator.get_by_label("League name").fill("Harbour Nights")
    expect(operator.get_by_label("Kind")).to_have_value("free")
    expect(operator.get_by_label("Time zone")).to_have_value("Australia/Sydney")
    operator.locator("#new-league ~ form").get_by_label("Organiser's name").fill("Nina O'Brien <b>")
    operator.locator("#new-league ~ form").get_by_label("Organiser's username").fill("nina")
    operator.get_by_role("button", name="Start the league").click()
    expect(operator.locator("#leagues [role=status]")).to_contain_text("Harbour Nights is started")
    expect(operator.locator("#leagues [role=status]")).to_contain_text("Hand this link to Nina O'Brien <b>")
    organiser_link = operator.locator("#handover-link").input_value()
    assert "/password/" in organiser_link
    expect(operator.locator("#handover-link")).to_be_in_viewport()
    check_fits(operator, 390)
    axe(operator, "the operator's leagues")
    screenshot(operator, "first-day-operator-league-started")

    # The organiser sets a password, adds a venue and a host by a link.
    organiser = phone()
    organiser.goto(organiser_link)
    expect(organiser.get_by_role("heading", name="Set your password")).to_be_visible()
    axe(organiser, "the password link page")
    _new_password(organiser, "Set my password")
    expect(organiser).to_have_url(re.compile(r"/organiser/harbour-nights/months/"))
    organiser.goto(f"{base}/organiser/harbour-nights/setup")
    organiser.get_by_label("Venue", exact=True).fill("The Anchor")
    organiser.get_by_role("button", name="Add venue").click()
    expect(organiser.locator("#setup .venue")).to_have_count(1)
    organiser.get_by_label("Name shown").fill("Kim")
    organiser.get_by_label("Username").fill("Kim")
    organiser.get_by_role("button", name="Add host").click()
    expect(organiser.locator("#setup [role=status]")).to_contain_text("Hand this link to Kim")
    host_link = organiser.locator("#handover-link").input_value()
    axe(organiser, "the organiser's venues and hosts with a link to hand over")
    screenshot(organiser, "first-day-organiser-host-link")

    # The host sets a password and opens the first night.
    host = phone()
    host.goto(host_link)
    _new_password(host, "Set my password", double_tap=True)  # one action: the link is used once, not refused
    expect(host.get_by_role("heading", name="Your nights")).to_be_visible()
    # A host with no nights yet finds the New night form open.
    host.get_by_label("Start", exact=True).fill("19:30")
    host.get_by_role("button", name="Create night").click()
    expect(host).to_have_url(re.compile(r"/host/events/\d+/players$"))
    host.get_by_role("link", name="Clock", exact=True).click()
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    screenshot(host, "first-day-host-first-night")

    # The demo goes, after one confirmation that names what goes.
    operator.goto(f"{base}/operator/")
    demo_league = operator.locator("#leagues .league", has_text=demo.LEAGUE_NAME)
    demo_league.locator("summary").click()
    demo_league.get_by_role("link", name=f"Remove {demo.LEAGUE_NAME}…").click()
    expect(operator.get_by_role("heading", name=f"Remove {demo.LEAGUE_NAME}?")).to_be_visible()
    expect(operator.locator("#remove")).to_contain_text("2 logins")
    axe(operator, "the removal's confirmation")
    screenshot(operator, "first-day-remove-demo")
    operator.get_by_role("button", name=f"Remove {demo.LEAGUE_NAME} and everything in it").click()
    expect(operator.get_by_role("status")).to_contain_text(f"{demo.LEAGUE_NAME} is removed")
    expect(operator.locator("#leagues .league")).to_have_count(1)

    player = phone()
    phone.allow(r"status of 404")  # the demo's pages, on purpose
    assert player.goto(f"{base}/leagues/harbour-city-poker-league").status == 404
    assert player.goto(f"{base}/leagues/harbour-nights").status == 200
    host.reload()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()  # the new league's night runs on

    # The organiser suspends the host: the host's phone is signed out at once; reinstated, back in.
    kim = organiser.locator("#setup .host", has_text="Kim")
    kim.locator("summary").click()
    buttons = kim.locator(".login-changes button")
    assert all(box["height"] >= 44 and box["width"] >= 44 for box in
               (buttons.nth(i).bounding_box() for i in range(buttons.count())))
    kim.get_by_role("button", name="Suspend Kim").click()
    expect(organiser.locator("#setup [role=status]")).to_contain_text("Kim is suspended")
    expect(organiser.locator("#setup .host", has_text="Kim").locator(".flag")).to_have_text("suspended")
    host.reload()
    expect(host.get_by_role("heading", name="Log in")).to_be_visible()
    organiser.locator("#setup .host", has_text="Kim").locator("summary").click()
    organiser.get_by_role("button", name="Reinstate Kim").click()
    expect(organiser.locator("#setup [role=status]")).to_contain_text("Kim is reinstated")
    host.get_by_label("Username").fill("KIM")  # one name whatever its case
    host.get_by_label("Password").fill(GOOD)
    host.get_by_role("button", name="Log in").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
