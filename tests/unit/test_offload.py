"""wiring.offload.apart: outside gevent a plain call; under gevent's monkey-patching the work runs on a
real thread while the loop goes on (a greenlet keeps running during it), and its result or its
exception comes back to the caller. The gevent case runs in a child process, patched from its start."""
import subprocess
import sys
import textwrap

import pytest

from wiring.offload import apart

CHILD = textwrap.dedent("""
    from gevent import monkey
    monkey.patch_all()
    import gevent
    from wiring.offload import apart

    def busy(n):  # pure Python, holds the interpreter as WeasyPrint's layout does
        total = 0
        for i in range(n):
            total += i % 7
        return total

    ticks = []
    def ticker():
        while True:
            ticks.append(1)
            gevent.sleep(0.001)
    gevent.spawn(ticker)
    gevent.sleep(0.01)

    before = len(ticks)
    busy(3_000_000)  # on the loop: nothing else runs
    on_loop = len(ticks) - before

    before = len(ticks)
    result = apart(busy, 3_000_000)
    meanwhile = len(ticks) - before
    try:
        apart(int, "not a number")
        raised = False
    except ValueError:
        raised = True
    print(on_loop, meanwhile, result == busy(3_000_000), raised)
""")


def test_outside_gevent_it_is_a_plain_call():
    assert apart(sum, [1, 2, 3]) == 6
    with pytest.raises(ValueError):
        apart(int, "x")


def test_under_gevent_the_loop_goes_on_while_the_work_runs_and_its_answer_comes_back():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, timeout=120)
    on_loop, meanwhile, right, raised = out.stdout.split()
    assert on_loop == "0"  # the same work on the loop starves every other greenlet
    assert int(meanwhile) > 0  # apart: the ticker kept running
    assert right == "True" and raised == "True"
