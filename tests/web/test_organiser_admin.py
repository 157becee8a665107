"""The organiser's league settings, members and venues (R-MEM-1, R-MEM-2, R-PAY-1, R-PAY-3, R-CHIP-1,
R-QUAL-2): every route, its fragment, and every refusal changing nothing."""
import datetime as dt
import re

import pytest

from league.results_file import parse_results
from services import field, leagues, results
from services.models import Entry, Event, HostVenue, Member, MemberMerge, Ruling, SettingChange, Ticket, User, Venue
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op
from tests.fixtures.results import HEADER, five_player_night, seed_results
from tests.fixtures.rows import count, member
from wiring.extensions import db

BASE = "/organiser/harbour-league"


def post(client, path, **data):
    return client.post(path, headers={"HX-Request": "true"}, data={"csrf_token": csrf_token(client, "/"), **data})


@pytest.fixture
def olive(client, organiser):
    login(client, "organiser", "pw-organiser")
    return client


def nightly_form(**changes):
    """The nightly group's form as the page fills it (the league's values now), with `changes`."""
    from league import settings as rules
    values = rules.thpa_defaults("free")
    data = {s.key: rules.format_value(s, values[s.key]) for s in rules.settings_of("nightly", "free")}
    data = {k: v for k, v in data.items() if not (rules.BY_KEY[k].kind == rules.Kind.YES_NO and v == "no")}
    data.update(changes)
    return data


# --- who may see the organiser's pages ------------------------------------------------------------

ORGANISER_ONLY = [("get", "/settings"), ("post", "/settings/nightly"), ("post", "/settings/league/reset"),
                  ("get", "/members"), ("get", "/members/1"), ("post", "/members/1"), ("post", "/members/1/ban"),
                  ("post", "/members/1/unban"), ("post", "/members/1/merge"), ("post", "/merges/1/undo"),
                  ("post", "/venues/1/name"), ("post", "/venues/1/retire"), ("post", "/venues/1/reopen"),
                  ("post", "/hosts/1/venues")]


def test_organiser_pages_are_refused_to_hosts_and_players(app, client, league, organiser):
    venue = Venue(league_id=league.id, name="Rose")
    member = Member.named(league.id, "Ann")
    db.session.add_all([venue, member])
    db.session.commit()
    player = app.test_client()
    for method, path in ORGANISER_ONLY:  # a player's phone (no login): sent to log in, or a post refused
        if method == "get":
            response = player.get(BASE + path)
            assert response.status_code == 302 and "/login" in response.headers["Location"], path
        else:
            assert player.post(BASE + path, data={"csrf_token": csrf_token(player)}).status_code == 401, path
    login(client, "host", "pw-host")
    for method, path in ORGANISER_ONLY:
        response = client.get(BASE + path) if method == "get" else post(client, BASE + path, name="X", reason="x")
        assert response.status_code == 403, path
    assert (venue.name, member.banned_at, count(SettingChange), count(HostVenue)) == ("Rose", None, 0, 0)


# --- settings ---------------------------------------------------------------------------------------

def test_settings_page_shows_every_group_with_thpa_defaults(olive):
    page = olive.get(BASE + "/settings")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html
    for label in ("League", "Nightly", "High-roller", "Monthly Final", "Top-10 Shoot-out", "Reset Nightly to THPA",
                  "THPA: 10000", "Hands per hour", "Called clock", "THPA: Australia/Sydney", "No changes yet"):
        assert label in html, label
    assert "Buy-in" not in html  # a free-to-play league's games are free: no money settings
    fragment = olive.get(BASE + "/settings", headers={"HX-Request": "true"})
    assert "<html" not in fragment.get_data(as_text=True) and "HX-Request" in fragment.headers["Vary"]


def test_a_change_is_recorded_and_applies_to_nights_created_after_it(olive, league, night):
    before = night.settings["starting_stack"]
    response = post(olive, BASE + "/settings/nightly", **nightly_form(**{"nightly.starting_stack": "12,000",
                                                                          "nightly.bonus_food": "0"}))
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "2 settings changed" in html and "<html" not in html
    assert "10000 → 12000" in html and "Olive" in html
    changes = {c.key: (c.old, c.new, c.user_id) for c in db.session.scalars(db.select(SettingChange))}
    assert changes == {"nightly.starting_stack": (10_000, 12_000, olive_id()),
                       "nightly.bonus_food": (1_000, 0, olive_id())}
    db.session.refresh(night)
    assert field.starting_stack(night) == before == 10_000  # tonight's night keeps its snapshot
    assert field.bonus_values(night)["food"] == 1_000
    later = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  start_time=dt.time(21, 0))
    db.session.add(later)
    db.session.commit()
    assert field.starting_stack(later) == 12_000 and field.bonus_values(later)["food"] == 0
    old = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date, settings={})
    db.session.add(old)
    db.session.commit()
    assert field.starting_stack(old) == 12_000  # a night from before snapshots reads the league's


def olive_id():
    return db.session.scalar(db.select(User.id).where(User.username == "organiser"))


def test_bad_settings_are_refused_with_a_reason_each_and_change_nothing(olive, league):
    stored = dict(league.settings)
    response = post(olive, BASE + "/settings/nightly", **nightly_form(**{
        "nightly.starting_stack": "ten", "nightly.bonus_drink": "-5", "nightly.reentry_limit": "0",
        "nightly.bonus_windows": "whenever"}))
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert html.count('class="error"') >= 4 and "Starting stack: give a whole number from 100 to 1,000,000" in html
    assert "Re-entries per player: a whole number from 1 to 20" in html and "ten" in html
    league_page = post(olive, BASE + "/settings/league", **{"league.payout_percent": "10", "league.timezone": "Mars/Base",
                                                             "league.shot_clock_seconds": "70",
                                                             "league.hands_per_hour": "30",
                                                             "league.payout_table": "2: 40/60"})
    text = league_page.get_data(as_text=True)
    assert league_page.status_code == 422 and "is not a time zone" in text and "lower place cannot be paid more" in text
    assert post(olive, BASE + "/settings/nowhere").status_code == 404
    db.session.refresh(league)
    assert league.settings == stored and league.timezone == "Australia/Sydney" and count(SettingChange) == 0


def test_r_pay_3_cash_league_pool_shares_cannot_exceed_the_buy_in(client, app):
    cash = leagues.create_league("Cash League", "cash")
    user = User(username="cashier", display_name="Cass", role="organiser", league_id=cash.id)
    user.set_password("pw-cashier")
    db.session.add(user)
    db.session.commit()
    login(client, "cashier", "pw-cashier")
    from league import settings as rules
    values = rules.thpa_defaults("cash")
    data = {s.key: rules.format_value(s, values[s.key]) for s in rules.settings_of("nightly", "cash")}
    data.update({"nightly.awards_points": "yes", "nightly.final_share": "5", "nightly.top50_share": "10"})
    response = post(client, "/organiser/cash-league/settings/nightly", **data)
    assert response.status_code == 422 and "add to more than the buy-in ($30)" in response.get_data(as_text=True)
    data["nightly.top50_share"] = "5"
    assert post(client, "/organiser/cash-league/settings/nightly", **data).status_code == 200
    db.session.refresh(cash)
    assert cash.settings["nightly"]["final_share"] == 5 and cash.settings["nightly"]["top50_share"] == 5


def test_reset_a_group_to_thpa(olive, league):
    post(olive, BASE + "/settings/nightly", **nightly_form(**{"nightly.starting_stack": "15000"}))
    response = post(olive, BASE + "/settings/nightly/reset")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Nightly back to THPA&#39;s defaults: 1 setting changed" in html and "15000 → 10000" in html
    db.session.refresh(league)
    assert league.settings["nightly"]["starting_stack"] == 10_000
    assert post(olive, BASE + "/settings/nowhere/reset").status_code == 404


def test_a_time_zone_change_is_refused_while_a_night_is_under_way(olive, league, night):
    data = {"league.payout_percent": "10", "league.timezone": "Europe/London", "league.shot_clock_seconds": "70",
            "league.hands_per_hour": "30", "league.pass_down": "yes", "league.payout_table": ""}
    response = post(olive, BASE + "/settings/league", **data)
    assert response.status_code == 409 and "a night is under way" in response.get_data(as_text=True)
    db.session.refresh(league)
    assert league.timezone == "Australia/Sydney" and count(SettingChange) == 0
    night.status = "settled"
    db.session.commit()
    assert post(olive, BASE + "/settings/league", **data).status_code == 200
    db.session.refresh(league)
    assert league.timezone == "Europe/London"


def test_r_qual_2_pass_down_cannot_change_once_this_month_has_tickets(olive, league, night):
    member = Member.named(league.id, "Ann")
    db.session.add(member)
    db.session.flush()
    db.session.add(Ticket(league_id=league.id, month=league.today().strftime("%Y-%m"), member_id=member.id,
                          event_id=night.id, position=1))
    night.status = "settled"
    db.session.commit()
    response = post(olive, BASE + "/settings/league", **{
        "league.payout_percent": "10", "league.timezone": "Australia/Sydney", "league.shot_clock_seconds": "70",
        "league.hands_per_hour": "30", "league.payout_table": ""})  # pass-down unticked
    assert response.status_code == 409 and "already given under the current rule" in response.get_data(as_text=True)
    db.session.refresh(league)
    assert league.pass_down is True


def test_r_pay_1_a_nights_payout_table_is_its_snapshot(client, app):
    cash = leagues.create_league("Cash League", "cash")
    venue = Venue(league_id=cash.id, name="Rose")
    db.session.add(venue)
    db.session.flush()
    from services import league_settings
    league_settings.change(cash, {"league.payout_table": {1: (100,), 2: (60, 40)}, "league.payout_percent": 20},
                           None)
    event = Event(league_id=cash.id, venue_id=venue.id, event_type="nightly", date=dt.date(2026, 11, 3),
                  buy_in=30, pool_share=20, status="running")
    db.session.add(event)
    db.session.flush()
    for n in range(10):
        member = Member.named(cash.id, f"P{n}")
        db.session.add(member)
        db.session.flush()
        db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing"))
    db.session.commit()
    assert read_night(event).prizes == [120, 80]  # 10 players, 20 % paid: 2 places, 60/40 of $200


# --- members ----------------------------------------------------------------------------------------

@pytest.fixture
def zoe(league):
    zoe = Member.named(league.id, "Zoë Martínez")
    db.session.add_all([zoe, Member.named(league.id, "Zack Stone"), Member.named(league.id, "Ann <b>")])
    db.session.commit()
    return zoe


def test_member_search_is_partial_and_ignores_case_and_accents(olive, zoe):
    page = olive.get(BASE + "/members?q=MARTINEZ")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html and "Zoë Martínez" in html and "Zack" not in html
    fragment = olive.get(BASE + "/members?q=zo", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and "Zoë Martínez" in fragment
    assert "Ann &lt;b&gt;" in olive.get(BASE + "/members").get_data(as_text=True)
    assert "No member" in olive.get(BASE + "/members?q=nobody").get_data(as_text=True)


def test_open_and_edit_a_member(olive, zoe, league):
    page = olive.get(f"{BASE}/members/{zoe.id}")
    assert page.status_code == 200 and "Zoë Martínez" in page.get_data(as_text=True)
    response = post(olive, f"{BASE}/members/{zoe.id}", name="Zoe  Martinez", contact="0400 000 000", adult="yes",
                    under_21="yes", id_checked="yes")
    assert response.status_code == 200 and "Saved." in response.get_data(as_text=True)
    db.session.refresh(zoe)
    assert (zoe.name, zoe.name_key, zoe.contact, zoe.under_21) == ("Zoe Martinez", "zoe martinez", "0400 000 000", True)
    assert zoe.id_checked_at is not None and zoe.adult_confirmed_at is not None
    taken = post(olive, f"{BASE}/members/{zoe.id}", name="zack stone", adult="yes")
    assert taken.status_code == 422 and "merge the two records" in taken.get_data(as_text=True)
    blank = post(olive, f"{BASE}/members/{zoe.id}", name="   ", adult="yes")
    assert blank.status_code == 422
    db.session.refresh(zoe)
    assert zoe.name == "Zoe Martinez"
    assert olive.get(f"{BASE}/members/99999").status_code == 404


def test_r_mem_2_a_banned_member_cannot_check_in_or_pre_register(app, client, olive, zoe, night):
    refused = post(olive, f"{BASE}/members/{zoe.id}/ban", reason="  ")
    assert refused.status_code == 422 and zoe.banned_at is None
    response = post(olive, f"{BASE}/members/{zoe.id}/ban", reason="Abused the host")
    assert response.status_code == 200 and "banned" in response.get_data(as_text=True)
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "ban"))
    assert (ruling.reason, ruling.rule_id, ruling.detail["member_id"]) == ("Abused the host", "R-MEM-2", zoe.id)
    assert post(olive, f"{BASE}/members/{zoe.id}/ban", reason="again").status_code == 422
    host = app.test_client()
    login(host, "host", "pw-host")
    walk_in = host_op(host, night, f"walk_in:{zoe.id}")
    assert walk_in.status_code == 422 and "banned from the league: Abused the host" in walk_in.get_data(as_text=True)
    prereg = host_op(host, night, f"prereg:{zoe.id}")
    assert prereg.status_code == 422 and "banned" in prereg.get_data(as_text=True)
    assert count(Entry) == 0
    lifted = post(olive, f"{BASE}/members/{zoe.id}/unban", reason="Apologised")
    assert lifted.status_code == 200
    assert host_op(host, night, f"walk_in:{zoe.id}").status_code == 200 and count(Entry) == 1
    assert post(olive, f"{BASE}/members/{zoe.id}/unban", reason="again").status_code == 422
    page = olive.get(f"{BASE}/members/{zoe.id}").get_data(as_text=True)
    assert "Abused the host" in page and "Apologised" in page


def _played(member, event, position, points):
    db.session.add(Entry(event_id=event.id, member_id=member.id, status="played", position=position, points=points))


def test_merge_keeps_all_history_and_can_be_undone(olive, league, night):
    kept, dup = Member.named(league.id, "Dave O'Brien"), Member.named(league.id, "Dave OBrien")
    db.session.add_all([kept, dup])
    db.session.flush()
    other = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date
                  - dt.timedelta(days=7), status="settled")
    db.session.add(other)
    db.session.flush()
    _played(kept, night, 2, 550)
    _played(dup, other, 1, 750)
    db.session.add(Ticket(league_id=league.id, month=other.month, member_id=dup.id, event_id=other.id, position=1))
    dup.contact = "dave@example.com"
    db.session.commit()
    page = olive.get(f"{BASE}/members/{kept.id}").get_data(as_text=True)
    assert "Dave OBrien" in page and "Merge here" in page  # offered as a possible duplicate
    response = post(olive, f"{BASE}/members/{kept.id}/merge", other=str(dup.id))
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Merged Dave OBrien into Dave O&#39;Brien" in html and "1300 points" in html
    db.session.refresh(kept)
    db.session.refresh(dup)
    assert {e.member_id for e in db.session.scalars(db.select(Entry))} == {kept.id}
    assert db.session.scalar(db.select(Ticket)).member_id == kept.id
    assert (kept.contact, dup.merged_into_id) == ("dave@example.com", kept.id)
    assert "Dave OBrien" not in olive.get(BASE + "/members?q=dave").get_data(as_text=True)
    merge = db.session.scalar(db.select(MemberMerge))
    undone = post(olive, f"{BASE}/merges/{merge.id}/undo")
    assert undone.status_code == 200 and "Merge undone." in undone.get_data(as_text=True)
    db.session.refresh(kept)
    db.session.refresh(dup)
    owners = {e.event_id: e.member_id for e in db.session.scalars(db.select(Entry))}
    assert owners == {night.id: kept.id, other.id: dup.id}
    assert db.session.scalar(db.select(Ticket)).member_id == dup.id
    assert (kept.contact, dup.merged_into_id) == (None, None)
    again = post(olive, f"{BASE}/merges/{merge.id}/undo")
    assert again.status_code == 409 and "already undone" in again.get_data(as_text=True)
    assert post(olive, f"{BASE}/merges/99999/undo").status_code == 404


def test_a_merge_that_puts_one_person_twice_in_one_night_is_refused(olive, league, night):
    a, b = Member.named(league.id, "Sam Stone"), Member.named(league.id, "Sam Stone Jr")
    db.session.add_all([a, b])
    db.session.flush()
    _played(a, night, 1, 750)
    _played(b, night, 2, 550)
    db.session.commit()
    response = post(olive, f"{BASE}/members/{a.id}/merge", other_name="sam stone jr")
    html = response.get_data(as_text=True)
    assert response.status_code == 409 and "both played Rose &amp; Crown" in html and "cannot be in one night twice" in html
    assert {e.member_id for e in db.session.scalars(db.select(Entry))} == {a.id, b.id}
    assert count(MemberMerge) == 0 and b.merged_into_id is None
    assert post(olive, f"{BASE}/members/{a.id}/merge", other=str(a.id)).status_code == 409
    assert post(olive, f"{BASE}/members/{a.id}/merge", other="nobody").status_code == 422


def test_r_qual_2_merging_two_ticket_holders_of_one_month_passes_the_second_ticket_down(olive, league):
    # Kim won on the 3rd; the same person, typed "Kimberly", won on the 10th: two tickets for one person.
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Kim", "Ann", "Bob", "Cat", "Dan"])
                 + five_player_night("2026-11-10", "Rose", ["Kimberly", "Eve", "Fay", "Gus", "Hal", "Ivy"]))
    kim, typo = member("Kim"), member("Kimberly")

    def holders():
        db.session.expire_all()
        return {t.member.name: (t.event.date.day, t.position) for t in db.session.scalars(db.select(Ticket))}
    assert holders()["Kimberly"] == (10, 1) and "Ivy" not in holders()
    response = post(olive, f"{BASE}/members/{kim.id}/merge", other=str(typo.id))
    assert response.status_code == 200, response.get_data(as_text=True)
    after = holders()
    # One person, one ticket: Kim's from the 3rd; the 10th's passes down to Ivy in 6th (R-QUAL-2).
    assert after["Kim"] == (3, 1) and "Kimberly" not in after and after["Ivy"] == (10, 6) and len(after) == 10
    merge = db.session.scalar(db.select(MemberMerge))
    assert post(olive, f"{BASE}/merges/{merge.id}/undo").status_code == 200
    assert holders()["Kimberly"] == (10, 1) and "Ivy" not in holders()


def test_r_qual_3_a_ticket_presented_at_the_final_stays_presented_when_its_record_is_merged(olive, league):
    """R-QUAL-2/3: Kimberly (the same person as Kim) presented her ticket at the final; merging her into Kim
    leaves the person one ticket, still marked presented at that final, and Undo gives the mark back to
    Kimberly's own ticket."""
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Kim", "Ann", "Bob", "Cat", "Dan"])
                 + five_player_night("2026-11-10", "Rose", ["Kimberly", "Eve", "Fay", "Gus", "Hal", "Ivy"]))
    kim, typo = member("Kim"), member("Kimberly")
    final = Event(league_id=league.id, venue_id=db.session.scalar(db.select(Venue.id)), event_type="monthly_final",
                  date=dt.date(2026, 12, 1), start_time=dt.time(19, 0), status="settled", final_month="2026-11")
    db.session.add(final)
    db.session.flush()
    ticket = db.session.scalar(db.select(Ticket).where(Ticket.member_id == typo.id))
    at = dt.datetime(2026, 12, 1, 8, 30)
    ticket.presented_at, ticket.presented_event_id = at, final.id
    db.session.commit()

    def presented():
        db.session.expire_all()
        return {t.member.name: (t.presented_at, t.presented_event_id) for t in db.session.scalars(db.select(Ticket))
                if t.presented_at is not None}
    assert post(olive, f"{BASE}/members/{kim.id}/merge", other=str(typo.id)).status_code == 200
    assert presented() == {"Kim": (at, final.id)}
    merge = db.session.scalar(db.select(MemberMerge))
    assert post(olive, f"{BASE}/merges/{merge.id}/undo").status_code == 200
    assert presented() == {"Kimberly": (at, final.id)}


def test_r_mem_1_a_re_import_that_corrects_a_name_leaves_no_empty_member(league):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bbo", "Cat", "Dan", "Eve"]))
    night = db.session.scalar(db.select(Event))
    phone_member = Member.named(league.id, "Fin")  # a member with a card on a phone and no results: kept
    phone_member.adult_confirmed_at = night.created_at
    db.session.add(phone_member)
    db.session.commit()
    rows = "".join(f"2026-11-03,19:00,Rose,nightly,{p},{name},\n"
                   for p, name in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve"], 1))
    results.import_results(league, parse_results(HEADER + rows), replace=True)
    db.session.commit()
    names = set(db.session.scalars(db.select(Member.name)))
    assert names == {"Ann", "Bob", "Cat", "Dan", "Eve", "Fin"}  # "Bbo" is gone, not left empty


def test_a_merged_record_cannot_check_in(app, olive, league, night):
    a, b = Member.named(league.id, "Lee"), Member.named(league.id, "Lee Two")
    db.session.add_all([a, b])
    db.session.commit()
    post(olive, f"{BASE}/members/{a.id}/merge", other=str(b.id))
    host = app.test_client()
    login(host, "host", "pw-host")
    response = host_op(host, night, f"walk_in:{b.id}")
    assert response.status_code == 422 and "merged into Lee" in response.get_data(as_text=True)
    found = host.get(f"/host/events/{night.id}/members?q=lee").get_data(as_text=True)
    assert "Lee" in found and "Lee Two" not in found  # the walk-in search offers the kept record only


# --- venues and hosts -------------------------------------------------------------------------------

def test_rename_and_retire_a_venue(olive, league, night):
    venue = night.venue
    spare = Venue(league_id=league.id, name="Anchor")
    db.session.add(spare)
    db.session.commit()
    response = post(olive, f"{BASE}/venues/{venue.id}/name", name="The Rose")
    assert response.status_code == 200 and "Renamed to The Rose." in response.get_data(as_text=True)
    taken = post(olive, f"{BASE}/venues/{venue.id}/name", name="anchor")
    assert taken.status_code == 422 and "already has a venue" in taken.get_data(as_text=True)
    assert post(olive, f"{BASE}/venues/{venue.id}/name", name="  ").status_code == 422
    busy = post(olive, f"{BASE}/venues/{venue.id}/retire")
    assert busy.status_code == 409 and "has a night booked" in busy.get_data(as_text=True)
    retired = post(olive, f"{BASE}/venues/{spare.id}/retire")
    assert retired.status_code == 200 and "retired" in retired.get_data(as_text=True)
    db.session.refresh(venue)
    db.session.refresh(spare)
    assert venue.name == "The Rose" and venue.retired_at is None and spare.retired_at is not None
    assert post(olive, f"{BASE}/venues/{spare.id}/retire").status_code == 409
    # no new nights at a retired venue: it is not offered, and a forged choice fails
    nights = olive.get(BASE + "/nights").get_data(as_text=True)
    assert "Anchor" not in nights
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    forged = post(olive, BASE + "/nights", venue=str(spare.id), date=dt.date.today().isoformat(),
                  event_type="nightly", host=str(host.id), template="turbo")
    assert forged.status_code == 422 and count(Event) == 1
    assert post(olive, f"{BASE}/venues/{spare.id}/reopen").status_code == 200
    assert "Anchor" in olive.get(BASE + "/nights").get_data(as_text=True)
    assert post(olive, f"{BASE}/venues/99999/retire").status_code == 404


def test_a_host_sees_and_runs_only_their_venues_nights(app, olive, league, night):
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    anchor = Venue(league_id=league.id, name="Anchor")
    db.session.add(anchor)
    db.session.flush()
    there = Event(league_id=league.id, venue_id=anchor.id, event_type="nightly", date=night.date,
                  start_time=dt.time(20, 0), host_id=host.id)
    db.session.add(there)
    db.session.commit()
    harry = app.test_client()
    login(harry, "host", "pw-host")
    home = harry.get("/host/").get_data(as_text=True)
    assert "Rose &amp; Crown" in home and "Anchor" in home  # no venues given: the nights assigned to him
    response = post(olive, f"{BASE}/hosts/{host.id}/venues", venue=str(night.venue_id))
    assert response.status_code == 200 and "venues saved" in response.get_data(as_text=True)
    assert leagues.host_venue_ids(host.id) == {night.venue_id}
    home = harry.get("/host/").get_data(as_text=True)
    assert "Rose &amp; Crown" in home and f"/host/events/{there.id}" not in home
    assert harry.get(f"/host/events/{there.id}").status_code == 403
    assert harry.get(f"/host/events/{night.id}").status_code == 200
    other_host = User(username="kim", display_name="Kim", role="host", league_id=league.id)
    other_host.set_password("pw-kim-long")
    db.session.add(other_host)
    db.session.commit()
    post(olive, f"{BASE}/hosts/{other_host.id}/venues", venue=str(night.venue_id))
    kim = app.test_client()
    login(kim, "kim", "pw-kim-long")
    assert kim.get(f"/host/events/{night.id}").status_code == 200  # her venue's night, though Harry's
    assert "Anchor" not in kim.get("/host/").get_data(as_text=True)  # her new-night form offers her venues
    assert olive.get(f"/host/events/{there.id}").status_code == 200  # organisers run every night
    bad = post(olive, f"{BASE}/hosts/{host.id}/venues", venue="99999")
    assert bad.status_code == 422 and leagues.host_venue_ids(host.id) == {night.venue_id}
    assert post(olive, f"{BASE}/hosts/{host.id}/venues", venue="x").status_code == 422
    assert post(olive, f"{BASE}/hosts/{olive_id()}/venues").status_code == 404
    assert post(olive, f"{BASE}/hosts/{host.id}/venues").status_code == 200  # none: back to his assigned nights
    assert harry.get(f"/host/events/{there.id}").status_code == 200


def test_a_night_is_given_only_to_a_host_who_runs_its_venue(olive, league, night):
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    anchor = Venue(league_id=league.id, name="Anchor")
    db.session.add(anchor)
    db.session.flush()
    # booked for the league's today (its venues' date: after 13:00 UTC it is tomorrow in Sydney)
    there = Event(league_id=league.id, venue_id=anchor.id, event_type="nightly", date=league.today(),
                  start_time=dt.time(20, 0), host_id=olive_id())
    db.session.add(there)
    db.session.commit()
    post(olive, f"{BASE}/hosts/{host.id}/venues", venue=str(night.venue_id))
    refused = post(olive, f"{BASE}/nights/{there.id}/host", **{f"e{there.id}-host": str(host.id)})
    assert refused.status_code == 422 and "Harry does not run Anchor" in refused.get_data(as_text=True)
    db.session.refresh(there)
    assert there.host_id == olive_id()
    post(olive, f"{BASE}/hosts/{host.id}/venues", venue=[str(night.venue_id), str(anchor.id)])
    assert post(olive, f"{BASE}/nights/{there.id}/host", **{f"e{there.id}-host": str(host.id)}).status_code == 200
    db.session.refresh(there)
    assert there.host_id == host.id


def test_a_night_is_booked_only_for_a_host_who_runs_its_venue(olive, league, night):
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    anchor = Venue(league_id=league.id, name="Anchor")
    db.session.add(anchor)
    db.session.commit()
    post(olive, f"{BASE}/hosts/{host.id}/venues", venue=str(night.venue_id))
    before = count(Event)
    booking = {"venue": str(anchor.id), "date": league.today().isoformat(), "start_time": "20:00",
               "event_type": "nightly", "host": str(host.id), "template": ""}
    refused = post(olive, f"{BASE}/nights", **booking)
    assert refused.status_code == 422 and "Harry does not run Anchor" in refused.get_data(as_text=True)
    assert count(Event) == before
    assert post(olive, f"{BASE}/nights", **{**booking, "host": str(olive_id())}).status_code == 200
    assert count(Event) == before + 1


@pytest.mark.parametrize("event_type,first_minutes", [("nightly", 15), ("monthly_final", 20),
                                                      ("highroller_final", 20), ("top10_shootout", 20)])
def test_r_clock_1_a_night_booked_with_its_types_own_structure_gets_its_types(olive, league, night, event_type,
                                                                              first_minutes):
    from league.structures import DEFAULT_TEMPLATE, TEMPLATES, to_json
    page = olive.get(f"{BASE}/nights").get_data(as_text=True)
    assert re.search(r'<option selected value="">The type&#39;s own', page)  # the form's default
    response = post(olive, f"{BASE}/nights", venue=str(night.venue_id), date=league.today().isoformat(),
                    start_time="21:00", event_type=event_type, host=str(olive_id()), template="")
    assert response.status_code == 200
    booked = db.session.scalar(db.select(Event).order_by(Event.id.desc()))
    assert booked.structure == to_json(TEMPLATES[DEFAULT_TEMPLATE[event_type]][1])
    assert booked.structure[0]["minutes"] == first_minutes


def test_r_chip_1_a_night_rebooked_as_another_type_before_play_takes_that_types_settings(league, night):
    booked = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                   start_time=dt.time(21, 0))
    db.session.add(booked)
    db.session.commit()
    assert field.starting_stack(booked) == 10_000
    booked.event_type = "highroller"
    db.session.commit()
    assert field.starting_stack(booked) == 20_000 and field.bonus_values(booked)["food"] == 0
    night.event_type = "highroller"  # under way: it keeps what it was created with
    db.session.commit()
    assert night.settings["starting_stack"] == 10_000
