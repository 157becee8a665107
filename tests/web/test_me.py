"""The player's own pages (R-MEM-1: players act only for themselves):
/me from the member cookie, the member card a host scans, moving the card to a new phone with a
one-time code, and "Jump to me" on the standings.

Players join through the check-in link and the host confirms them, as on a real night. Expected
numbers are worked out from RULES.md by hand.
"""
import datetime as dt
import re

import pytest
from itsdangerous import URLSafeSerializer

from blueprints.play.member_cookie import COOKIE
from live import qr
from services.models import Event, League, Member, MemberCode, User, utcnow
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op
from tests.fixtures.pages import html
from tests.fixtures.phones import CODE_RE, claim, join
from tests.fixtures.results import seed_results
from tests.fixtures.roster import bust_out, check_in_players, confirm_arrivals, settle_night
from tests.fixtures.rows import entries, member
from wiring.extensions import db


@pytest.fixture
def tonight(night, league):
    """Tonight's running game, dated the league's local today (so "this month" is its month)."""
    night.date = league.today()
    db.session.commit()
    return night


@pytest.fixture
def ann(app, tonight):
    """Ann's phone: she joins on the spot through tonight's check-in link."""
    phone = app.test_client()
    assert join(phone, tonight, "Ann Lee", contact="ann@example.com").status_code == 303
    return phone


def qr_path(svg_text):
    """The QR code's modules (the path data) from an SVG, inline or drawn by qr.svg."""
    return re.search(r' d="([^"]+)"', svg_text).group(1)


def new_code(phone):
    """Ask for a one-time code on the phone that holds the card; return its ten digits."""
    response = phone.post("/me/move", data={"csrf_token": csrf_token(phone, "/me")})
    assert response.status_code == 200
    return "".join(CODE_RE.search(html(response)).groups())


def play_the_night(host, tonight):
    """Ann (checked in on her phone, confirmed by the host) and three walk-ins play: Dot, Cy, then Bea
    are out, Ann wins, and the host settles the night."""
    login(host, "host", "pw-host")
    confirm_arrivals(tonight)
    check_in_players(tonight, ["Bea", "Cy", "Dot"])
    for name in ("Dot", "Cy", "Bea"):
        bust_out(tonight, name)
    settle_night(tonight)
    assert tonight.status == "settled"


# ---- /me ----

def test_me_without_a_member_cookie_explains_how_to_get_one(client, tonight):
    response = client.get("/me")
    page = html(response)
    assert response.status_code == 200
    assert "doesn't hold a member card" in page and "check-in QR code" in page and "Move to a new phone" in page
    assert 'href="/me/claim"' in page
    assert 'href="/me"' not in page  # no "Me" link in the header without a member
    assert response.headers["Cache-Control"] == "private, no-store"
    assert "Cookie" in response.headers["Vary"]


def test_r_mem_1_the_header_links_to_me_once_the_phone_has_a_member(ann, client):
    assert 'href="/me"' in html(ann.get("/"))
    assert 'href="/me"' not in html(client.get("/"))


def test_me_tonight_shows_status_then_seat_and_bonus_chips(ann, client, tonight):
    page = html(ann.get("/me"))
    assert "Tonight: Rose &amp; Crown" in page and "waiting for the host to confirm you" in page
    assert f'href="/events/{tonight.id}"' in page  # the clock
    login(client, "host", "pw-host")
    entry = entries(tonight)["Ann Lee"]
    host_op(client, tonight, f"confirm:{entry.id}")
    host_op(client, tonight, "join", name="Bea", adult="yes")
    host_op(client, tonight, "draw")
    assert host_op(client, tonight, "bonus", bonus_entry=str(entry.id), kind="food").status_code == 200
    db.session.expire_all()
    entry = entries(tonight)["Ann Lee"]
    page = html(ann.get("/me"))
    assert f"Table {entry.table_no}, seat {entry.seat_no}" in page
    assert re.search(r"Bonus chips [\d,]+", page)  # R-CHIP-3: the food bonus she was given


def test_me_shows_points_rank_results_tickets_and_the_shootout(ann, app, tonight, league, organiser):
    today = tonight.date
    last_month = today.replace(day=1) - dt.timedelta(days=10)
    # Earlier tonight at the Anchor, five players (R-PTS-2: 250 225 200 175 150); last month Ann won
    # a three-player night (R-PTS-2: 200 175 150).
    seed_results(league, [(today.isoformat(), "The Anchor", p, n) for p, n in
                          enumerate(["Zed", "Yan", "Xia", "Wu", "Vi"], 1)]
                 + [(last_month.isoformat(), "The Anchor", p, n) for p, n in enumerate(["Ann Lee", "Zed", "Yan"], 1)])
    play_the_night(app.test_client(), tonight)
    # Tonight, four players (R-PTS-2): Ann 1st 225, Bea 200, Cy 175, Dot 150. The month (R-STD-1):
    # Zed 250; Ann and Yan 225 share 2nd; ... nine players.
    page = html(ann.get("/me"))
    month = re.search(r'<span class="stat-label">[^<]+</span>\s*<span class="stat-rank">(\w+)</span>\s*'
                      r'<span class="stat-of">of (\d+)</span>\s*<span class="stat-points">(\d+) points', page)
    assert month.groups() == ("2nd", "9", "225")
    same_year = last_month.year == today.year
    season = re.findall(r'<span class="stat-rank">(\w+)</span>\s*<span class="stat-of">of (\d+)</span>\s*'
                        r'<span class="stat-points">(\d+) points', page)[1]
    # The season adds last month's 200 when it was this year: Ann 425 shares 1st with Zed (250 + 175).
    assert season == (("1st", "9", "425") if same_year else ("2nd", "9", "225"))
    # R-QUAL-4: fewer than ten scorers: everyone qualifies
    assert "You're in: top 10 on points" in page
    # R-QUAL-1/2: tickets from tonight (1st) and last month (1st), newest first
    tickets = re.findall(r"Monthly Final ticket · (\w+ \d{4})</strong>\s*<span>From ([^,]+),", page)
    assert tickets == [(today.strftime("%b %Y"), "Rose &amp; Crown"), (last_month.strftime("%b %Y"), "The Anchor")]
    assert "No ticket yet" not in page
    # results, newest first, each linking to its night's results page
    anchor_last_month = db.session.scalar(db.select(Event.id).where(Event.date == last_month))
    results = re.findall(r'<a href="/events/(\d+)/results">', page.split('id="results"')[1])
    assert results == [str(tonight.id), str(anchor_last_month)]
    assert re.search(r'<td class="num">1st</td>\s*<td class="num">225', page)
    # the month's table links back to the member's row
    assert f'months/{today.strftime("%Y-%m")}#member-{member("Ann Lee").id}"' in page


def test_the_member_card_qr_on_me_opens_the_card_page(ann):
    ann_member = member("Ann Lee")
    page = html(ann.get("/me"))
    assert qr_path(page.split('id="card"')[1]) == qr_path(qr.svg(f"http://localhost/cards/{ann_member.card_code}"))
    assert 'role="img" aria-label="QR code of Ann Lee\'s member card"' in page


def test_a_member_never_sees_another_members_page(ann, app, tonight):
    bea = app.test_client()
    join(bea, tonight, "Bea Bloggs", contact="bea@example.com")
    page = html(bea.get("/me"))
    assert "Bea Bloggs" in page and "Ann Lee" not in page and "ann@example.com" not in page
    assert "bea@example.com" not in page  # not even her own contact is shown back


def test_a_forged_or_foreign_cookie_shows_nothing_private(ann, app, tonight):
    ann_member = member("Ann Lee")
    for cookie in ("forged.value",
                   URLSafeSerializer("another-secret-key", salt="member-cookie").dumps([ann_member.id,
                                                                                      ann_member.cookie_secret]),
                   URLSafeSerializer("test-secret", salt="member-cookie").dumps([ann_member.id, "guessed"])):
        stranger = app.test_client()
        stranger.set_cookie(COOKIE, cookie)
        page = html(stranger.get("/me"))
        assert "doesn't hold a member card" in page and "Ann Lee" not in page
        token = csrf_token(stranger, "/me/claim")
        assert stranger.post("/me/move", data={"csrf_token": token}).status_code == 403
        assert stranger.post("/me/sign-out-others", data={"csrf_token": token}).status_code == 403
    assert db.session.scalar(db.select(MemberCode)) is None


# ---- the member card ----

def test_r_mem_1_the_host_checks_a_member_in_from_their_card(ann, client, tonight, league):
    ann_member = member("Ann Lee")
    ann_member.under_21 = True
    db.session.commit()
    login(client, "host", "pw-host")
    card = client.get(f"/cards/{ann_member.card_code}")
    page = html(card)
    assert card.status_code == 200 and "Ann Lee" in page and "Under 21: check photo ID" in page
    assert ann_member.card_code not in page and "ann@example.com" not in page
    assert card.headers["Referrer-Policy"] == "no-referrer" and card.headers["Cache-Control"] == "private, no-store"
    entry = entries(tonight)["Ann Lee"]
    # she checked in on her phone: the card offers the host the confirmation with the ID check (R-MEM-1)
    assert f'action="/host/events/{tonight.id}/players"' in page
    assert f'value="confirm:{entry.id}:id"' in page and "ID checked · Confirm Ann" in page
    # a walk-in with a card: "Check in to <venue>" is the roster's own walk-in
    cy = Member.named(league.id, "Cy Young")
    db.session.add(cy)
    db.session.commit()
    page = html(client.get(f"/cards/{cy.card_code}"))
    assert f'value="walk_in:{cy.id}"' in page and "Check in to Rose &amp; Crown" in page
    done = client.post(f"/host/events/{tonight.id}/players",
                       data={"op": f"walk_in:{cy.id}", "csrf_token": csrf_token(client, f"/cards/{cy.card_code}")})
    assert done.status_code == 200 and "Checked in Cy Young" in html(done)
    assert entries(tonight)["Cy Young"].status == "playing"
    assert "In the game" in html(client.get(f"/cards/{cy.card_code}"))
    host_op(client, tonight, f"confirm:{entry.id}:id")
    assert entries(tonight)["Ann Lee"].status == "playing"
    assert "Under 21 · photo ID checked" in html(client.get(f"/cards/{ann_member.card_code}"))


def test_the_card_shows_only_a_first_name_to_anyone_else(ann, app, client, tonight, league):
    ann_member = member("Ann Lee")
    other_league = League(name="Other League", slug="other-league", kind="free", settings={})
    db.session.add(other_league)
    db.session.flush()
    stranger_host = User(username="elsewhere", display_name="E", role="host", league_id=other_league.id)
    stranger_host.set_password("pw-elsewhere")
    db.session.add(stranger_host)
    db.session.commit()
    bea = app.test_client()
    join(bea, tonight, "Bea Bloggs")
    elsewhere = app.test_client()
    login(elsewhere, "elsewhere", "pw-elsewhere")
    for viewer in (client, bea, elsewhere):
        response = viewer.get(f"/cards/{ann_member.card_code}")
        page = html(response)
        assert response.status_code == 200 and "This is Ann's ShuffleUp member card." in page
        for private in ("Ann Lee", "Lee", "ann@example.com", ann_member.card_code, "walk_in", "Under 21", "Check in to"):
            assert private not in page
        assert COOKIE not in response.headers.get("Set-Cookie", "")
    assert "That's you: open Me" in html(ann.get(f"/cards/{ann_member.card_code}"))
    assert client.get("/cards/not-a-card").status_code == 404


def test_the_card_code_appears_on_no_page_but_me(ann, client, tonight, league):
    code = member("Ann Lee").card_code
    login(client, "host", "pw-host")
    month = tonight.date.strftime("%Y-%m")
    for viewer, path in [
        (ann, "/"), (ann, f"/leagues/{league.slug}"), (ann, f"/leagues/{league.slug}/months/{month}"),
        (ann, f"/leagues/{league.slug}/seasons/{tonight.date.year}"), (ann, f"/events/{tonight.id}"),
        (ann, f"/events/{tonight.id}/me"), (ann, f"/check-in/{tonight.check_in_code}"), (ann, "/me/claim"),
        (client, f"/host/events/{tonight.id}/players"), (client, f"/host/events/{tonight.id}/members?q=ann"),
        (client, f"/cards/{code}"),
    ]:
        response = viewer.get(path)
        assert response.status_code == 200, path
        assert code not in html(response), path


# ---- moving the card to a new phone ----

def test_r_mem_1_a_one_time_code_moves_the_card_to_a_new_phone(ann, app):
    response = ann.post("/me/move", data={"csrf_token": csrf_token(ann, "/me")})
    page = html(response)
    assert response.status_code == 200 and "<html" in page and "Works once" in page
    assert response.headers["Cache-Control"] == "private, no-store" and "HX-Request" in response.headers["Vary"]
    code = "".join(CODE_RE.search(page).groups())
    stored = db.session.scalar(db.select(MemberCode))
    assert stored.code_hash != code and len(stored.code_hash) == 64 and code not in stored.code_hash
    assert stored.expires_at - utcnow() <= dt.timedelta(minutes=10) and stored.issued_by is None
    # the QR code is the claim link, which only fills the form in: opening it uses nothing up
    assert qr_path(page.split('data-code>')[1]) == qr_path(qr.svg(f"http://localhost/me/claim?code={code}"))
    new_phone = app.test_client()
    form = new_phone.get(f"/me/claim?code={code}")
    assert f'value="{code}"' in html(form) and db.session.scalar(db.select(MemberCode.used_at)) is None
    claimed = claim(new_phone, f"{code[:3]} {code[3:6]}-{code[6:]}")
    assert claimed.status_code == 303 and claimed.headers["Location"] == "/me"
    assert COOKIE in claimed.headers["Set-Cookie"] and "HttpOnly" in claimed.headers["Set-Cookie"]
    page = html(new_phone.get("/me"))
    assert "Ann Lee" in page and "Your member card is on this phone now" in page
    assert "Ann Lee" in html(ann.get("/me"))  # the old phone keeps it unless told otherwise
    # used once: a third phone can't take it again
    third = app.test_client()
    again = claim(third, code)
    assert again.status_code == 422 and "didn&#39;t work" in html(again)
    assert COOKIE not in again.headers.get("Set-Cookie", "") and "Ann Lee" not in html(third.get("/me"))


def test_the_move_code_is_an_htmx_fragment_too(ann):
    response = ann.post("/me/move", headers={"HX-Request": "true"}, data={"csrf_token": csrf_token(ann, "/me")})
    page = html(response)
    assert response.status_code == 200 and page.lstrip().startswith('<section class="move-code"')
    assert "<html" not in page and CODE_RE.search(page)
    assert "HX-Request" in response.headers["Vary"]
    assert 'hx-post="/me/move" hx-target="#move"' in html(ann.get("/me"))


def test_expired_wrong_and_replaced_codes_are_refused_and_change_nothing(ann, app):
    new_phone = app.test_client()
    code = new_code(ann)
    row = db.session.scalar(db.select(MemberCode))
    row.expires_at = utcnow() - dt.timedelta(seconds=1)  # ten minutes have passed
    db.session.commit()
    expired = claim(new_phone, code)
    assert expired.status_code == 422 and "older than ten minutes" in html(expired)
    assert COOKIE not in expired.headers.get("Set-Cookie", "")
    live = new_code(ann)
    refused = claim(new_phone, "0" * 10 if live != "0" * 10 else "1" * 10)
    assert refused.status_code == 422 and 'role="alert"' in html(refused) and 'aria-invalid="true"' in html(refused)
    assert claim(new_phone, "abc").status_code == 422 and claim(new_phone, "").status_code == 422
    # a new code replaces the last one
    first, second = new_code(ann), new_code(ann)
    if first != second:
        assert claim(new_phone, first).status_code == 422
    assert claim(new_phone, second).status_code == 303
    assert db.session.scalar(db.select(db.func.count()).select_from(MemberCode).where(
        MemberCode.used_at.is_(None), MemberCode.expires_at > utcnow())) == 0
    assert "doesn't hold" not in html(new_phone.get("/me"))


def test_claiming_can_sign_out_the_other_phones(ann, app):
    new_phone = app.test_client()
    assert claim(new_phone, new_code(ann), sign_out_others="yes").status_code == 303
    assert "Ann Lee" in html(new_phone.get("/me"))
    assert "doesn't hold a member card" in html(ann.get("/me"))  # the old (lost) phone forgot her


def test_sign_out_my_other_phones_keeps_this_one(ann, app):
    second = app.test_client()
    claim(second, new_code(ann))
    response = second.post("/me/sign-out-others", data={"csrf_token": csrf_token(second, "/me")})
    assert response.status_code == 303 and COOKIE in response.headers["Set-Cookie"]
    page = html(second.get("/me"))
    assert "Ann Lee" in page and "Your other phones are signed out" in page
    assert "doesn't hold a member card" in html(ann.get("/me"))


def test_the_claim_form_is_rate_limited(ann, app):
    code = new_code(ann)
    guesser = app.test_client()
    token = csrf_token(guesser, "/me/claim")
    wrong = "0" * 10 if code != "0" * 10 else "1" * 10
    codes = [guesser.post("/me/claim", data={"csrf_token": token, "code": wrong}).status_code for _ in range(11)]
    assert codes[:10] == [422] * 10 and codes[10] == 429
    limited = guesser.post("/me/claim", data={"csrf_token": token, "code": code})
    assert limited.status_code == 429 and "Too many tries" in html(limited)
    assert COOKIE not in limited.headers.get("Set-Cookie", "")
    assert db.session.scalar(db.select(MemberCode.used_at)) is None  # the real code is still good
    assert guesser.get("/me/claim").status_code == 200  # reading the form is not limited


def test_the_host_gives_a_member_a_one_time_code(ann, app, client, tonight, league):
    ann_member = member("Ann Lee")
    anonymous = app.test_client()
    assert anonymous.post("/member-codes", data={"member": ann_member.id,
                                                 "csrf_token": csrf_token(anonymous)}).status_code == 401
    login(client, "host", "pw-host")
    bo = Member.named(league.id, "Bo Bell")  # not in tonight's game: not the host's card to move
    db.session.add(bo)
    db.session.commit()
    assert 'form="move-card"' not in html(client.get(f"/host/events/{tonight.id}/members?q=bo"))
    search = html(client.get(f"/host/events/{tonight.id}/members?q=ann"))  # in tonight's game
    assert 'form="move-card"' in search and 'action="/member-codes"' in search
    assert f'<button type="submit" form="move-card" name="member" value="{ann_member.id}"' in search
    response = client.post("/member-codes", data={"member": str(ann_member.id), "event": str(tonight.id),
                                                  "csrf_token": csrf_token(client, "/")})
    page = html(response)
    assert response.status_code == 200 and "One-time code for Ann Lee" in page
    assert f'href="/host/events/{tonight.id}/players"' in page and ann_member.card_code not in page
    assert db.session.scalar(db.select(MemberCode.issued_by)) == db.session.scalar(
        db.select(User.id).where(User.username == "host"))
    lost_phone_replacement = app.test_client()
    code = "".join(CODE_RE.search(page).groups())
    assert claim(lost_phone_replacement, code, sign_out_others="yes").status_code == 303
    assert "Ann Lee" in html(lost_phone_replacement.get("/me"))
    assert "doesn't hold a member card" in html(ann.get("/me"))
    # the card page offers it too; a member of another league is not the host's to give
    assert 'action="/member-codes"' in html(client.get(f"/cards/{ann_member.card_code}"))
    other = League(name="Other League", slug="other-league", kind="free", settings={})
    db.session.add(other)
    db.session.flush()
    outsider = Member.named(other.id, "Out Sider")
    db.session.add(outsider)
    db.session.commit()
    assert client.post("/member-codes", data={"member": str(outsider.id),
                                              "csrf_token": csrf_token(client, "/")}).status_code == 404


# ---- "Jump to me" on the standings ----

def test_jump_to_me_on_the_month_and_season_tables(ann, app, tonight, league):
    play_the_night(app.test_client(), tonight)
    ann_id = member("Ann Lee").id
    month = f"/leagues/{league.slug}/months/{tonight.date.strftime('%Y-%m')}"
    season = f"/leagues/{league.slug}/seasons/{tonight.date.year}"
    for path in (month, season, f"/leagues/{league.slug}"):
        response = ann.get(path)
        page = html(response)
        assert f'<a class="button" href="#member-{ann_id}">Jump to me</a>' in page, path
        assert f'<tr id="member-{ann_id}" class="is-me">' in page and page.count('class="is-me"') == 1
        assert "Cookie" in response.headers["Vary"]
        anonymous = html(app.test_client().get(path))
        assert "Jump to me" not in anonymous and "is-me" not in anonymous
    # a member who is not in the table gets no jump
    other = Member.named(league.id, "Not Played")
    db.session.add(other)
    db.session.commit()
    absent = app.test_client()
    absent.set_cookie(COOKIE, URLSafeSerializer("test-secret", salt="member-cookie").dumps([other.id,
                                                                                          other.cookie_secret]))
    page = html(absent.get(month))
    assert 'href="/me"' in page and "Jump to me" not in page and "is-me" not in page
    # the name search keeps it (htmx swaps the table alone)
    found = ann.get(f"{month}?q=ann", headers={"HX-Request": "true", "HX-Target": "standings-table"})
    assert found.get_data(as_text=True).lstrip().startswith('<div id="standings-table"')
    assert "Jump to me" in html(found) and {"HX-Request", "HX-Target", "Cookie"} <= set(found.headers["Vary"].split(", "))
    assert "Jump to me" not in html(ann.get(f"{month}?q=bea"))
