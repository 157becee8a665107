"""Smoke test of tests/bench/scale_load.py at a tiny scale (R-CLOCK-3, DESIGN.md "Scale"): several
nights at once on two gunicorn gevent workers, PostgreSQL and Redis, each night's host tapping;
every phone hears every tap of its own night. No timing assertions: the figures live in
docs/scale.md, from full runs of the script."""
import pytest

from tests.bench import scale_load

pytestmark = pytest.mark.services


def test_every_phone_of_every_night_hears_its_hosts_taps():
    opts = scale_load.parse_args(["--nights", "3", "--phones", "12", "--minutes", "0.15", "--every", "0.5,1",
                                  "--timeout", "15"])
    results = scale_load.run(opts)

    assert results["taps"] >= 3 and results["errors"] == {}
    assert results["deliveries"] == results["taps"] * 4  # 12 phones over 3 nights: each tap reaches its 4
    assert results["left_behind"] == 0 and results["lost_streams"] == 0
    assert results["services"]["redis_publishes_per_s"] > 0  # the notices went through Redis
    assert "phones left behind: 0" in scale_load.report(results)
    assert "over the host's line" in scale_load.report(results)  # one WebSocket per night, the default


def test_slow_taps_are_told_in_bursts_by_when_they_were_sent():
    slow = scale_load.bursts([20.9, 0.1, 40.0, 0.5, 20.2])
    assert slow == {"count": 5, "bursts": [(0.1, 2), (20.2, 2), (40.0, 1)], "median_gap_s": 19.95}
    assert scale_load.bursts([]) == {"count": 0, "bursts": [], "median_gap_s": None}
