"""gunicorn.conf.py raises the soft limit on open files towards the hard one: a machine's default of
1,024 (256 on macOS) would refuse every phone past the thousandth of a worker's worker_connections."""
import resource
import runpy
import subprocess
import sys
import time
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


def test_the_set_up_link_printer_is_no_child_of_the_master_and_runs_from_its_directory(tmp_path):
    """when_ready starts the printer of the set-up link and returns with no child of its own (the
    master's children are its workers only), from the server's `chdir`, with or without `__file__`."""
    master = ("import os, sys, types; conf = {}; exec(open(sys.argv[1]).read(), conf); "
              "conf['setup_link_command'] = lambda listeners: "
              "[sys.executable, '-c', 'import os, time; time.sleep(0.3); open(\"printed\", \"w\").write(os.getcwd())']; "
              "conf['when_ready'](types.SimpleNamespace(LISTENERS=[], cfg=types.SimpleNamespace(chdir=sys.argv[2]))); "
              "print(open(f'/proc/{os.getpid()}/task/{os.getpid()}/children').read().split())")
    out = subprocess.run([sys.executable, "-c", master, str(CONF), str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
    for _ in range(100):
        if (tmp_path / "printed").exists() and (tmp_path / "printed").read_text():
            break
        time.sleep(0.05)
    assert (tmp_path / "printed").read_text() == str(tmp_path)
