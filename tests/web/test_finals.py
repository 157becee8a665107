"""Finals' check-in and stacks (R-QUAL-3..5, R-FIN, R-CHIP-3, R-PTS-8): every way into a final
admits only the qualifiers of its month, the host may override with a ruling, a Monthly Final
ticket admits once, and each entrant starts on their own R-FIN stack."""
import datetime as dt

import pytest

from services import field, settling
from services.models import Member, Ruling, Ticket
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op
from tests.fixtures.months import NO_TICKET, final_night
from tests.fixtures.pages import text
from tests.fixtures.phones import join, phone_of, prereg
from tests.fixtures.rows import entries
from wiring.extensions import db


def ticket_of(member):
    return db.session.scalar(db.select(Ticket).where(Ticket.member_id == member.id))


@pytest.fixture
def monthly(league, november):
    return final_night(league, november["venue"], "monthly_final")


def test_r_qual_3_host_checks_in_a_ticket_holder_and_the_ticket_is_used(client, monthly, november):
    login(client, "host", "pw-host")
    assert host_op(client, monthly, f"walk_in:{november['Ann'].id}").status_code == 200
    assert entries(monthly)["Ann"].status == "playing"
    ticket = ticket_of(november["Ann"])
    assert ticket.presented_at is not None and ticket.presented_event_id == monthly.id


def test_r_qual_3_non_holder_refused_with_the_reason_then_host_override_is_a_ruling(client, monthly, november):
    login(client, "host", "pw-host")
    refused = host_op(client, monthly, f"walk_in:{november['Bob'].id}")
    assert refused.status_code == 422 and NO_TICKET in text(refused)
    assert entries(monthly) == {}
    allowed = host_op(client, monthly, f"walk_in:{november['Bob'].id}", reason="Ticket lost, organiser vouched")
    assert allowed.status_code == 200 and entries(monthly)["Bob"].status == "playing"
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "final_entry_override"))
    assert ruling.rule_id == "R-QUAL-3" and ruling.reason == "Ticket lost, organiser vouched"
    assert ruling.event_id == monthly.id and ruling.detail["member"] == "Bob"


def test_r_qual_3_a_used_ticket_cannot_admit_twice(client, league, monthly, november):
    login(client, "host", "pw-host")
    assert host_op(client, monthly, f"walk_in:{november['Ann'].id}").status_code == 200
    second = final_night(league, november["venue"], "monthly_final", date=dt.date(2026, 12, 6))
    refused = host_op(client, second, f"walk_in:{november['Ann'].id}")
    assert refused.status_code == 422 and "already been presented" in text(refused)
    assert entries(second) == {}


def test_r_qual_3_turning_an_arrival_away_gives_the_ticket_back(app, client, monthly, november):
    phone = phone_of(app, november["Ann"])
    assert phone.post(f"/check-in/{monthly.check_in_code}",
                      data={"csrf_token": csrf_token(phone)}).status_code == 303
    assert ticket_of(november["Ann"]).presented_at is not None
    login(client, "host", "pw-host")
    assert host_op(client, monthly, f"reject:{entries(monthly)['Ann'].id}").status_code == 200
    assert ticket_of(november["Ann"]).presented_at is None


def test_r_qual_3_phone_check_in_of_holder_and_non_holder(app, monthly, november):
    ann, bob = phone_of(app, november["Ann"]), phone_of(app, november["Bob"])
    assert ann.post(f"/check-in/{monthly.check_in_code}", data={"csrf_token": csrf_token(ann)}).status_code == 303
    assert entries(monthly)["Ann"].status == "pending" and ticket_of(november["Ann"]).presented_at is not None
    refused = bob.post(f"/check-in/{monthly.check_in_code}", data={"csrf_token": csrf_token(bob)})
    assert refused.status_code == 422 and NO_TICKET in text(refused)
    assert set(entries(monthly)) == {"Ann"}


def test_r_qual_5_a_new_member_joining_by_phone_is_refused(phone, client, monthly):
    refused = join(phone, monthly, "Newcomer Nell")
    assert refused.status_code == 422 and "New members can't enter the Monthly Final" in text(refused)
    assert entries(monthly) == {} and db.session.scalar(db.select(Member).where(Member.name == "Newcomer Nell")) is None
    login(client, "host", "pw-host")
    assert host_op(client, monthly, "join", name="Newcomer Nell", adult="yes").status_code == 422
    assert entries(monthly) == {}


def test_r_qual_pre_registration_admits_only_qualifiers(app, client, league, november):
    final = final_night(league, november["venue"], "monthly_final", date=dt.date.today() + dt.timedelta(days=3),
                       status="scheduled", final_month="2026-11")
    refused = prereg(phone_of(app, november["Bob"]), final)
    assert refused.status_code == 422 and NO_TICKET in text(refused)
    assert prereg(phone_of(app, november["Ann"]), final).status_code == 200
    assert entries(final)["Ann"].status == "registered"
    assert ticket_of(november["Ann"]).presented_at is None  # presented when they arrive
    login(client, "host", "pw-host")
    assert host_op(client, final, f"prereg:{november['Bob'].id}").status_code == 422
    assert host_op(client, final, f"walk_in:{november['Ann'].id}").status_code == 200
    assert entries(final)["Ann"].status == "playing" and ticket_of(november["Ann"]).presented_at is not None


def test_r_qual_4_shootout_admits_the_months_top_10(client, league, november):
    shootout = final_night(league, november["venue"], "top10_shootout")
    newcomer = Member.named(league.id, "Dan")
    db.session.add(newcomer)
    db.session.commit()
    login(client, "host", "pw-host")
    for name in ("Ann", "Bob", "Cara"):  # everyone who scored in November: fewer than ten
        assert host_op(client, shootout, f"walk_in:{november[name].id}").status_code == 200
    refused = host_op(client, shootout, f"walk_in:{newcomer.id}")
    assert refused.status_code == 422 and "New members" in text(refused)
    assert field.starting_stack(shootout) == 40_000 and read_night(shootout).chip_count()[0] == 3 * 40_000


def test_r_fin_free_monthly_final_starts_at_6000(client, league, monthly, november):
    assert league.kind == "free" and field.starting_stack(monthly) == 6_000
    login(client, "host", "pw-host")
    host_op(client, monthly, f"walk_in:{november['Ann'].id}")
    assert read_night(monthly).chip_count() == (6_000, 6_000)


def test_r_fin_high_roller_final_stacks_by_player_and_chips_in_play_sum_them(client, league, november):
    final = final_night(league, november["venue"], "highroller_final", date=dt.date.today() + dt.timedelta(days=3),
                       status="scheduled", final_month="2026-11")
    login(client, "host", "pw-host")
    assert host_op(client, final, f"walk_in:{november['Ann'].id}").status_code == 200  # 2 events
    assert host_op(client, final, f"walk_in:{november['Bob'].id}").status_code == 200  # 1 event
    assert host_op(client, final, f"prereg:{november['Cara'].id}").status_code == 200  # 1 event, 3 days ahead
    stacks = {name: entry.starting_stack for name, entry in entries(final).items()}
    assert stacks == {"Ann": 25_000, "Bob": 20_000, "Cara": 22_000}
    assert read_night(final).chip_count() == (67_000, 22_333)
    newcomer = Member.named(league.id, "Dan")
    db.session.add(newcomer)
    db.session.commit()
    refused = host_op(client, final, f"walk_in:{newcomer.id}")
    assert refused.status_code == 422 and "New members" in text(refused)


def test_r_fin_high_roller_final_registered_less_than_24_hours_ahead_gets_no_bonus(client, league, november):
    final = final_night(league, november["venue"], "highroller_final", date=dt.date.today(), status="scheduled",
                       final_month="2026-11")
    final.start_time = dt.time(23, 59)
    db.session.commit()
    login(client, "host", "pw-host")
    assert host_op(client, final, f"prereg:{november['Ann'].id}").status_code == 200
    assert entries(final)["Ann"].starting_stack == 25_000


def test_r_pts_8_settling_a_final_awards_no_points(client, monthly, november):
    login(client, "host", "pw-host")
    host_op(client, monthly, f"walk_in:{november['Ann'].id}")
    host_op(client, monthly, f"walk_in:{november['Bob'].id}", reason="Organiser's guest")
    for entry, position in ((entries(monthly)["Ann"], 1), (entries(monthly)["Bob"], 2)):
        entry.status, entry.position = "played", position
    settling.award_event_points(monthly)
    db.session.commit()
    assert {name: entry.points for name, entry in entries(monthly).items()} == {"Ann": 0, "Bob": 0}
