"""R-QUAL-1..5: the night form sets the month a final is for (Event.final_month): shown for finals,
blank for the month before the date, editable until play starts, a bad month refused."""
import pytest

from services import finals
from tests.conftest import csrf_token, login
from tests.fixtures.host import DAY, the_night
from wiring.extensions import db


def create(client, rose, event_type, final_month=None):
    data = {"csrf_token": csrf_token(client, "/host/"), "venue": str(rose.id), "date": DAY, "start_time": "19:00",
            "event_type": event_type, "template": "thpa_nightly"}
    if final_month is not None:
        data["final_month"] = final_month
    return client.post("/host/nights", data=data)


def test_the_form_offers_final_for_month(client, rose):
    login(client, "host", "pw-host")
    page = client.get("/host/").get_data(as_text=True)
    assert 'class="final-month"' in page and 'type="month"' in page and "Final for month" in page


@pytest.mark.parametrize(("typed", "stored", "month"), [("2026-10", "2026-10", "2026-10"), ("", None, "2026-11")])
def test_r_qual_3_a_monthly_final_for_a_month(client, rose, typed, stored, month):
    login(client, "host", "pw-host")
    assert create(client, rose, "monthly_final", typed).status_code == 303
    night = the_night()
    assert night.final_month == stored and finals.final_month(night) == month


def test_a_nightly_game_has_no_final_month_whatever_is_posted(client, rose):
    login(client, "host", "pw-host")
    assert create(client, rose, "nightly", "2026-10").status_code == 303
    assert the_night().final_month is None


@pytest.mark.parametrize(("typed", "said"), [("2026-13", "is not a month"), ("2027-01", "not played yet"),
                                             ("soon", "is not a month")])
def test_a_bad_month_is_refused_and_nothing_is_created(client, rose, typed, said):
    login(client, "host", "pw-host")
    response = create(client, rose, "top10_shootout", typed)
    assert response.status_code == 422 and said in response.get_data(as_text=True)
    assert the_night() is None


def test_the_edit_form_shows_the_month_and_changes_it_until_play_starts(client, rose):
    login(client, "host", "pw-host")
    create(client, rose, "highroller_final")
    night = the_night()
    page = client.get(f"/host/events/{night.id}/edit").get_data(as_text=True)
    assert 'name="final_month"' in page and 'value="2026-11"' in page and "now November 2026" in page
    data = {"csrf_token": csrf_token(client, "/host/"), "venue": str(rose.id), "date": DAY, "start_time": "19:00",
            "event_type": "highroller_final", "final_month": "2026-09"}
    assert client.post(f"/host/events/{night.id}/edit", data=data).status_code == 303
    assert the_night().final_month == "2026-09"
    night = the_night()
    night.clock_started, night.status = True, "running"
    db.session.commit()
    data["final_month"] = "2026-10"
    assert client.post(f"/host/events/{night.id}/edit", data=data).status_code == 409
    assert the_night().final_month == "2026-09"


def test_the_organiser_sets_a_finals_month_too(client, rose, league):
    login(client, "organiser", "pw-organiser")
    from services.models import User
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    data = {"csrf_token": csrf_token(client, f"/organiser/{league.slug}/nights"), "venue": str(rose.id),
            "date": DAY, "start_time": "19:00", "event_type": "monthly_final", "template": "thpa_nightly",
            "host": str(host.id), "final_month": "2026-08"}
    assert client.post(f"/organiser/{league.slug}/nights", data=data).status_code == 200
    assert the_night().final_month == "2026-08"
    data["final_month"], data["anyway"] = "2026-8", "y"
    bad = client.post(f"/organiser/{league.slug}/nights", data=data)
    assert bad.status_code == 422 and "is not a month" in bad.get_data(as_text=True)
