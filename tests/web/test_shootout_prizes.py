"""R-FIN: the Top-10 Shoot-out pays fixed prizes, 1st $1,000 and 2nd $500, whatever its field: the
prize list, the big screen's ladder, the host's settled screen and the results page show them.
The pooled finals (Monthly, High-roller) keep "$500 + entries"."""
from html import unescape

from league import payouts
from live.payload import clock_payload
from services.night_snapshot import read_night
from tests.conftest import login
from tests.fixtures.host import host_op
from tests.fixtures.months import final_night
from tests.fixtures.rows import entries
from wiring.extensions import db


def test_r_fin_the_shootout_and_a_free_monthly_final_have_fixed_prizes():
    assert payouts.fixed_prizes("top10_shootout") == payouts.fixed_prizes("top10_shootout", "free") == (1_000, 500)
    assert payouts.fixed_prizes("monthly_final", "free") == (300, 100)
    for other in ("nightly", "highroller", "monthly_final", "highroller_final"):
        assert payouts.fixed_prizes(other) == ()
    assert payouts.league_funded_prizes("monthly_final", "free") == 400
    assert payouts.league_funded_prizes("top10_shootout", "cash") == 0  # its guarantee funds it


def test_r_fin_shootout_prizes_are_fixed_from_the_list_to_the_results(client, league, november):
    shootout = final_night(league, november["venue"], "top10_shootout")
    assert read_night(shootout).prizes == [1_000, 500]  # before anyone sits down
    login(client, "host", "pw-host")
    for name in ("Ann", "Bob", "Cara"):
        page = unescape(host_op(client, shootout, f"walk_in:{november[name].id}").get_data(as_text=True))
    assert "Prizes $1,500:" in page and "1st $1,000" in page and "2nd $500" in page
    assert clock_payload(shootout)["prizes"] == [1_000, 500]  # the big screen's ladder
    host_op(client, shootout, f"bust:{entries(shootout)['Cara'].id}")
    host_op(client, shootout, f"bust:{entries(shootout)['Bob'].id}")
    settled = unescape(host_op(client, shootout, "settle").get_data(as_text=True))
    assert "Prizes paid $1,500:" in settled and "<strong>$1,000</strong>" in settled and "<strong>$500</strong>" in settled
    db.session.expire_all()
    assert {name: e.prize for name, e in entries(shootout).items()} == {"Ann": 1_000, "Bob": 500, "Cara": 0}
    assert {name: e.points for name, e in entries(shootout).items()} == {"Ann": 0, "Bob": 0, "Cara": 0}  # R-PTS-8
    results = unescape(client.get(f"/events/{shootout.id}/results").get_data(as_text=True))
    assert "1st $1,000" in results and "2nd $500" in results


def test_r_fin_a_pooled_final_keeps_its_pool(client, league, november):
    league.kind = "cash"  # a free league's Monthly Final pays fixed prizes ($300, a $100 prize)
    db.session.commit()
    final = final_night(league, november["venue"], "monthly_final", buy_in=30, pool_share=30, guarantee=500)
    assert read_night(final).prizes == []  # nobody seated: "$500 guaranteed + $30 from each entry"
    login(client, "host", "pw-host")
    page = unescape(client.get(f"/host/events/{final.id}/players").get_data(as_text=True))
    assert "$500 guaranteed + $30 from each $30 entry" in page
