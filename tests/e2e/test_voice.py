"""The big screen's voice (static/js/voice.js): with its switch on, the TV says a level change ("Level 2.
Blinds 50, 100"), a table break, the final table and each move by name ("Wren: table 1, seat 8"), and the called clock's
last seconds, one at a time in Australian English. What it says is read from the text it queued
(window.shuffleupSaid) and from a stand-in for the speech engine that records each utterance and
whether another was still being spoken."""
from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from services.models import Event
from tests.e2e.conftest import axe, seed_tonight
from tests.e2e.test_night_ends import TV
from tests.e2e.test_seat_notice import open_roster, seats, seed_players
from tests.fixtures.roster import bust_out, player_names
from wiring.extensions import db

# The engine's stand-in: each utterance takes 150 ms; `overlaps` counts one begun while another speaks.
ENGINE = """
window.spokenAloud = []; window.overlaps = 0;
let busy = 0;
speechSynthesis.speak = utterance => {
  if (busy) window.overlaps++;
  busy++;
  window.spokenAloud.push([utterance.text, utterance.lang]);
  setTimeout(() => { busy--; utterance.onend && utterance.onend(); }, 150);
};
"""


def said(tv) -> list[str]:
    return tv.evaluate("window.shuffleupSaid")


def clock_json(base: str, event_id: int) -> dict:
    with urllib.request.urlopen(f"{base}/api/events/{event_id}/clock") as answer:
        return json.load(answer)


def test_the_tv_says_the_level_the_moves_and_the_called_clock_one_at_a_time(live_server, phone, screenshot):
    app, base = live_server.app, live_server.url
    league_id, event_id, _ = seed_tonight(app)
    seed_players(app, event_id, league_id, player_names(21))
    with app.app_context():
        event = db.session.get(Event, event_id)   # a called clock of 11 s: a count of 10 after a second
        event.settings = {**(event.settings or {}), "shot_clock_seconds": 11}
        db.session.commit()
        db.session.remove()
    tv = phone(**TV)
    tv.add_init_script(ENGINE)
    tv.goto(f"{base}/events/{event_id}/screen")
    voice = tv.get_by_role("button", name="Voice off: tap to turn on")
    expect(voice).to_have_attribute("aria-pressed", "false")   # off by default
    host = open_roster(phone, base, event_id)
    host.locator("#players").get_by_role("button", name="Draw seats").click()
    expect(host.locator("#players .flash")).to_have_text("Seats drawn")
    voice.click()
    expect(tv.get_by_role("button", name="Voice on")).to_have_attribute("aria-pressed", "true")
    axe(tv, "the big screen with its voice on")
    tv.wait_for_function("document.querySelector('[data-clock]')._clock.seats")

    # A table breaks: the TV names it, then each of its players' new seats, by name
    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in player_names(21)[:2]:
            bust_out(event, name)
        db.session.remove()
    before = seats(app, event_id)
    host.reload()
    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_role("button", name="Break table").click()
    expect(host.locator("#players .answer-bar .flash")).to_have_text("Table broken")
    after = seats(app, event_id)
    broken = ({table for table, _ in before.values()} - {table for table, _ in after.values()}).pop()
    moves = [f"{name}: table {table}, seat {seat}" for name, (table, seat) in sorted(after.items(), key=lambda i: i[1])
             if before[name] != (table, seat)]
    assert moves
    tv.wait_for_function("n => window.shuffleupSaid.length >= n", arg=1 + len(moves))
    assert said(tv) == [f"Table {broken} breaks."] + moves

    # The final table: said once, then each player whose seat changed
    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in [n for n in player_names(21) if n in after][:9]:
            bust_out(event, name)
        db.session.remove()
    before, heard = seats(app, event_id), len(said(tv))
    host.reload()
    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_role("button", name="Draw the final table").click()
    expect(host.locator("#players .answer-bar .flash")).to_have_text("Final table drawn")
    after = seats(app, event_id)
    moves = [f"{name}: table 1, seat {seat}" for name, (_, seat) in sorted(after.items(), key=lambda i: i[1])
             if before[name] != (1, seat)]
    tv.wait_for_function("n => window.shuffleupSaid.length >= n", arg=heard + 1 + len(moves))
    assert said(tv)[heard:] == ["Final table. Everyone to table 1."] + moves

    # The next level, said after the chime every phone plays at that moment
    host.goto(f"{base}/host/events/{event_id}")
    host.get_by_role("button", name="Start").click()
    # the start answered (one tap at a time: a tap while one is on its way is a double tap, dropped)
    expect(host.locator("#controls [data-main]")).to_have_text("Pause")
    host.get_by_role("button", name="Next level").click()
    tv.wait_for_function("window.shuffleupSaid.some(text => text.startsWith('Level'))")
    level = clock_json(base, event_id)
    ante = f", ante {level['ante']}" if level["ante"] else ""
    assert said(tv)[-1] == f"Level {level['level']}. Blinds {level['small_blind']}, {level['big_blind']}{ante}"

    # The called clock: its last seconds counted down, then "Time."
    host.get_by_label("Seat").fill("T1 S3")
    host.get_by_role("button", name="Call the clock").click()
    tv.wait_for_function("window.shuffleupSaid.includes('Time.')", timeout=20_000)
    numbers = [int(text) for text in said(tv) if text.isdigit()]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    assert numbers[0] <= 10 and numbers[-1] == 1 and len(numbers) >= 5, numbers
    assert said(tv)[-1] == "Time."

    # One at a time, all of it in Australian English
    tv.wait_for_function("window.spokenAloud.length === window.shuffleupSaid.length")
    assert tv.evaluate("window.overlaps") == 0
    assert {lang for _, lang in tv.evaluate("window.spokenAloud")} == {"en-AU"}
    screenshot(tv, "voice-tv")

    # Off: nothing more is queued
    tv.get_by_role("button", name="Voice on").click()
    host.get_by_role("button", name="Next level").click()
    tv.wait_for_timeout(2000)
    assert not said(tv)[-1].startswith("Level")
