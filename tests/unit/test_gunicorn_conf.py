"""gunicorn.conf.py raises the soft limit on open files towards the hard one: a machine's default of
1,024 (256 on macOS) would refuse every phone past the thousandth of a worker's worker_connections."""
import resource
import runpy
import subprocess
import sys
from pathlib import Path

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def _with_soft_limit(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def test_a_low_soft_limit_is_raised_to_hold_every_phone_a_worker_takes():
    child = ("import resource, runpy, sys; conf = runpy.run_path(sys.argv[1]); "
             "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0], conf['worker_connections'])")
    out = subprocess.run([sys.executable, "-c", child, str(CONF)], capture_output=True, text=True, check=True,
                         preexec_fn=lambda: _with_soft_limit(256)).stdout.split()
    soft, connections = int(out[0]), int(out[1])
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    wanted = connections + 200 if hard == resource.RLIM_INFINITY else min(connections + 200, hard)
    assert soft == max(256, wanted)


def test_a_higher_soft_limit_is_left_as_it_is():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    runpy.run_path(str(CONF))
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= soft
