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

    assert results["taps"] >= 3 and results["errors"] == {} and results["errors_seen"] == []
    assert results["server_errors"] == []  # the server logged no error either
    assert results["deliveries"] == results["taps"] * 4  # 12 phones over 3 nights: each tap reaches its 4
    assert results["left_behind"] == 0 and results["lost_streams"] == 0
    assert results["services"]["redis_publishes_per_s"] > 0  # the notices went through Redis
    assert "phones left behind: 0" in scale_load.report(results)
    assert "over the host's line" in scale_load.report(results)  # one WebSocket per night, the default


def test_slow_taps_are_told_in_bursts_by_when_they_were_sent():
    slow = scale_load.bursts([20.9, 0.1, 40.0, 0.5, 20.2])
    assert slow == {"count": 5, "bursts": [(0.1, 2, 0.5), (20.2, 2, 20.9), (40.0, 1, 40.0)], "median_gap_s": 19.95}
    assert scale_load.bursts([]) == {"count": 0, "bursts": [], "median_gap_s": None}


def test_the_servers_errors_are_kept_word_for_word(tmp_path):
    log = tmp_path / "gunicorn.log"
    log.write_text("[INFO] Booting worker with pid: 7\nTraceback (most recent call last):\n  File \"x\"\n"
                   "RuntimeError: the line closed\n[2026-12-02] [WARNING] live.notices: stream write failed\n")
    assert scale_load.server_errors(log) == ["Traceback (most recent call last):", "RuntimeError: the line closed",
                                             "[2026-12-02] [WARNING] live.notices: stream write failed"]
    assert scale_load.server_errors(tmp_path / "none.log") == []


def test_what_the_machine_did_during_a_burst_comes_from_the_samples_around_it():
    #          user nice sys idle iowait irq softirq steal
    samples = [(0.0, [0, 0, 0, 0, 0, 0, 0, 0]),
               (1.0, [10, 0, 0, 90, 0, 0, 0, 0]),     # second 1: 10 % busy
               (2.0, [20, 0, 0, 120, 10, 0, 0, 50]),  # second 2: half of it stolen, 10 % on the disk
               (3.0, [30, 0, 0, 210, 10, 0, 0, 50])]
    assert scale_load.during(samples, 1.5, 1.8) == {"steal_pct": 50.0, "iowait_pct": 10.0, "busy_pct": 60.0}
    assert scale_load.during(samples, 0, 3) == {"steal_pct": round(100 * 50 / 300, 1),
                                                "iowait_pct": round(100 * 10 / 300, 1), "busy_pct": round(100 * 80 / 300, 1)}
    assert scale_load.during(samples[:1], 0, 3)["steal_pct"] is None
