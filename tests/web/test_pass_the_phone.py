"""Pass the phone (R-PAY-2): a player without a phone votes on the deal on the host's phone, in
private: only Yes or No for them, nobody's votes shown, then "your vote is in" and back to the host.
The same anonymous, unanimous ballot as on the players' own phones."""
import re

from services.models import Action, Entry
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op, put_to_vote
from tests.fixtures.pages import html
from tests.fixtures.phones import vote
from tests.fixtures.rows import entries
from wiring.extensions import db


def ballot_url(night, entry):
    return f"/host/events/{night.id}/ballot/{entry.id}"


def hand_vote(client, night, entry, yes):
    return client.post(ballot_url(night, entry), data={"csrf_token": csrf_token(client, "/"),
                                                       "vote": "yes" if yes else "no"})


def test_r_pay_2_the_roster_offers_the_phone_to_each_player_without_one_still_to_vote(
        client, night, final_three_two_without_phones):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert re.findall(r">Hand the phone to (\w+)</a>", roster) == ["Bob", "Cat"]  # Ann has her own
    vote(final_three_two_without_phones["Ann"], night, True)  # Ann votes on her own phone
    assert hand_vote(client, night, entries(night)["Bob"], True).status_code == 303
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert re.findall(r">Hand the phone to (\w+)</a>", roster) == ["Cat"]


def test_r_pay_2_a_private_ballot_on_the_hosts_phone_then_back_to_the_host(
        client, night, final_three_two_without_phones):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    cat = entries(night)["Cat"]
    vote(final_three_two_without_phones["Ann"], night, True)
    page = html(client.get(ballot_url(night, cat)))
    # only her Yes/No and the split; no menu, no count of votes, nobody's vote
    assert "Cat’s vote" in page and "Yes, deal" in page and "No, play on" in page and "$100" in page
    assert "have voted" not in page and "Log out" not in page and 'href="/host/"' not in page
    response = hand_vote(client, night, cat, True)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"{ballot_url(night, cat)}?cast=1")
    done = html(client.get(response.headers["Location"]))
    assert "Your vote is in" in done and "Hand the phone back to the host" in done
    assert "Yes, deal" not in done and "agreed" not in done.lower()  # which way she voted: not said
    assert f'href="/host/events/{night.id}/players"' in done
    db.session.expire_all()
    assert db.session.get(Entry, cat.id).deal_vote is True
    assert db.session.get(Entry, cat.id).deal_vote_handed is True  # recorded as cast on the host's phone
    # open again: she has voted, no second ballot
    assert "Cat has voted" in html(client.get(ballot_url(night, cat)))
    twice = hand_vote(client, night, cat, False)
    assert twice.status_code == 422 and "You have already voted." in html(twice)
    assert "2 of 3 have voted" in html(client.get(f"/host/events/{night.id}/players"))


def test_r_pay_2_the_last_yes_on_the_hosts_phone_agrees_the_deal_and_undo_reopens_it(
        client, night, final_three_two_without_phones):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    vote(final_three_two_without_phones["Ann"], night, True)
    assert hand_vote(client, night, entries(night)["Bob"], True).status_code == 303
    actions = db.session.scalar(db.select(db.func.count()).select_from(Action))
    assert hand_vote(client, night, entries(night)["Cat"], True).status_code == 303
    after = entries(night)
    assert [after[n].prize for n in ("Ann", "Bob", "Cat")] == [250, 150, 100]
    db.session.refresh(night)
    assert night.deal_status == "agreed"
    assert db.session.scalar(db.select(db.func.count()).select_from(Action)) == actions + 1
    last = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert last.kind == "deal_agreed" and host_op(client, night, f"undo:{last.id}").status_code == 200
    db.session.refresh(night)
    assert night.deal_status == "open"


def test_r_pay_2_a_no_on_the_hosts_phone_voids_the_deal_and_writes_no_action(
        client, night, final_three_two_without_phones):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000})
    actions = db.session.scalar(db.select(db.func.count()).select_from(Action))
    assert hand_vote(client, night, entries(night)["Bob"], False).status_code == 303
    db.session.refresh(night)
    assert night.deal_status == "void"
    assert db.session.scalar(db.select(db.func.count()).select_from(Action)) == actions  # nothing says who
    gone = html(client.get(ballot_url(night, entries(night)["Ann"])))
    assert "There is no deal for this player to vote on." in gone and "Yes, deal" not in gone


def test_r_pay_2_only_a_remaining_player_of_the_hosts_own_night_gets_a_ballot(app, client, night, final_three):  # noqa: F811
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000})
    out = entries(night)["Early 0"]
    before = sorted((e.id, e.deal_vote) for e in entries(night).values())
    refused = hand_vote(client, night, out, True)
    assert refused.status_code == 422 and "There is no deal for this player to vote on." in html(refused)
    assert client.get(f"/host/events/{night.id}/ballot/999999").status_code == 200  # says so, no 500
    assert hand_vote(client, night, Entry(id=999999), True).status_code == 422
    no_token = client.post(ballot_url(night, entries(night)["Ann"]), data={"vote": "yes"})
    assert no_token.status_code == 400
    db.session.expire_all()
    assert sorted((e.id, e.deal_vote) for e in entries(night).values()) == before
    # nobody logged in never gets the ballot
    stranger = app.test_client()
    assert stranger.get(ballot_url(night, entries(night)["Ann"])).status_code in (302, 401)


def test_r_pay_2_no_deal_no_ballot(client, night):
    login(client, "host", "pw-host")
    host_op(client, night, "join", name="Ann", adult="yes")
    page = html(client.get(ballot_url(night, entries(night)["Ann"])))
    assert "There is no deal for this player to vote on." in page and "Yes, deal" not in page


def test_r_pay_2_the_host_cannot_cast_the_vote_of_a_player_with_a_phone_of_their_own(client, night, final_three):
    """The host "handing the phone" to every player agreed a deal alone: a player who checked in on
    their own phone votes on it; the host's ballot for them is refused and writes nothing."""
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert "Hand the phone to" not in roster  # all three have their own
    for name in ("Ann", "Bob", "Cat"):
        page = html(client.get(ballot_url(night, entries(night)[name])))
        assert f"{name} has a phone of their own in tonight" in page and "Yes, deal" not in page
        refused = hand_vote(client, night, entries(night)[name], True)
        assert refused.status_code == 422 and "a phone of their own" in html(refused)
    db.session.expire_all()
    assert [e.deal_vote for e in entries(night).values() if e.status == "playing"] == [None, None, None]
    db.session.refresh(night)
    assert night.deal_status == "open"


def test_r_pay_2_a_players_own_no_stands_against_the_hosts_yeses(client, night, final_three_two_without_phones):
    """Bob and Cat (no phones) say yes on the host's; Ann's own "no" on her phone is taken and voids
    the deal (it was refused once the host had voted for her)."""
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    assert hand_vote(client, night, entries(night)["Ann"], True).status_code == 422
    for name in ("Bob", "Cat"):
        assert hand_vote(client, night, entries(night)[name], True).status_code == 303
    own = vote(final_three_two_without_phones["Ann"], night, False)
    assert own.status_code in (200, 303), own.get_data(as_text=True)[:300]
    db.session.refresh(night)
    assert night.deal_status == "void"
    ann = entries(night)["Ann"]
    assert ann.deal_vote is False and ann.deal_vote_handed is False and ann.own_phone is True


def test_r_pay_2_a_vote_on_their_own_phone_marks_a_player_as_having_one(client, night, final_three_two_without_phones):
    """A player the host checked in who then votes on a phone of their own has one: the host's phone
    is no longer offered for them (at the next deal)."""
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    bob = entries(night)["Bob"]
    assert bob.own_phone is False
    from tests.fixtures.phones import phone_of
    assert vote(phone_of(client.application, bob.member), night, True).status_code in (200, 303)
    db.session.expire_all()
    assert entries(night)["Bob"].own_phone is True and entries(night)["Bob"].deal_vote_handed is False
