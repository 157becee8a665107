"""R-QUAL-3..5, R-MEM-2: the host pre-registering a final's non-qualifier is refused with the reason
and offered the override; with a reason the ruling is recorded and the player is in, not asked
again on arrival. Without a reason nothing is written."""
from html import unescape

from services.models import Entry, Ruling
from tests.conftest import login
from tests.fixtures.host import host_op
from tests.fixtures.months import NO_TICKET, final_night
from tests.fixtures.rows import count, entries
from wiring.extensions import db


def test_r_qual_3_prereg_of_a_ticketless_player_is_refused_with_the_override(client, league, november):
    final = final_night(league, november["venue"], "monthly_final", status="scheduled")
    login(client, "host", "pw-host")
    refused = host_op(client, final, f"prereg:{november['Bob'].id}")
    page = unescape(refused.get_data(as_text=True))
    assert refused.status_code == 422 and NO_TICKET in page
    assert "Pre-register anyway" in page and 'name="op" value="prereg:' in page
    assert count(Entry) == 4 and count(Ruling) == 0  # November's four results, nothing new
    overridden = host_op(client, final, f"prereg:{november['Bob'].id}", reason="Ticket lost in the post")
    assert overridden.status_code == 200, overridden.get_data(as_text=True)
    assert entries(final)["Bob"].status == "registered"
    ruling = db.session.scalar(db.select(Ruling))
    assert (ruling.kind, ruling.rule_id, ruling.reason) == ("final_entry_override", "R-QUAL-3",
                                                            "Ticket lost in the post")
    assert ruling.detail["member"] == "Bob" and NO_TICKET in ruling.detail["refused"]
    arrived = host_op(client, final, f"walk_in:{november['Bob'].id}")
    assert arrived.status_code == 200 and entries(final)["Bob"].status == "playing"
    assert count(Ruling) == 1  # let in once by the ruling: not asked again


def test_a_ticket_holder_is_pre_registered_without_a_ruling(client, league, november):
    final = final_night(league, november["venue"], "monthly_final", status="scheduled")
    login(client, "host", "pw-host")
    assert host_op(client, final, f"prereg:{november['Ann'].id}").status_code == 200
    assert entries(final)["Ann"].status == "registered" and count(Ruling) == 0


def test_an_override_reason_with_control_characters_is_refused(client, league, november):
    final = final_night(league, november["venue"], "monthly_final", status="scheduled")
    login(client, "host", "pw-host")
    refused = host_op(client, final, f"prereg:{november['Bob'].id}", reason="bad\x07reason")
    assert refused.status_code == 422 and count(Ruling) == 0 and "Bob" not in entries(final)
