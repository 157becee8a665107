"""One tap, one action (blueprints/once.py): a repeat of a request with the same idempotency key
applies once and answers as the first did."""
from services.models import BonusClaim, RequestKey
from tests.conftest import csrf_token
from tests.fixtures.host import seat_players
from wiring.extensions import db

KEY = "k" * 32


def test_a_double_tap_on_a_bonus_applies_once(client, night):
    roster = seat_players(client, night, ["Ann", "Bob"])
    data = {"op": f"bonus:{roster['Ann'].id}", "kind": "food", "csrf_token": csrf_token(client, "/")}
    first = client.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true", "Idempotency-Key": KEY},
                        data=data)
    second = client.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true", "Idempotency-Key": KEY},
                         data=data)
    assert first.status_code == 200, first.get_data(as_text=True)[:500]
    assert second.status_code == 200 and second.headers["Idempotency-Replayed"] == "true"
    assert second.get_data() == first.get_data()
    assert db.session.scalar(db.select(db.func.count()).select_from(BonusClaim)) == 1
    assert db.session.scalar(db.select(RequestKey.applied)) is True
