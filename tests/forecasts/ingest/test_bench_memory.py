"""bench_ingest's memory figure: the parser process's own peak, not the one Linux carries into a child.

A child started by a large process reports (``RUSAGE_CHILDREN``) at least its parent's resident size at
the moment it exec'd; the benchmark reads the child's own high-water mark instead (docs/performance.md,
"Accounting ingestion")."""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import pytest

from forecasts.management.commands.bench_ingest import _ChildPeaks

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux only)")

CHILD = "import time; b = bytearray({mb} * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.5)"


def test_a_childs_peak_is_its_own_not_its_parents() -> None:
    ballast = bytearray(300 * 1024 * 1024)  # this process at least 300 MB resident when the child starts
    ballast[::4096] = b"y" * len(ballast[::4096])
    with _ChildPeaks(every=0.02) as peaks:
        subprocess.run([sys.executable, "-c", CHILD.format(mb=80)], check=True)
    del ballast
    assert 80 <= peaks.largest_mb < 150  # the child's 80 MB and an interpreter, not the parent's 300
    # what the benchmark used to add: the parent's size carried into the child at exec
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 > 300


def test_no_children_no_peak_and_children_started_before_are_not_counted() -> None:
    earlier = subprocess.Popen([sys.executable, "-c", CHILD.format(mb=80).replace("0.5", "3")])
    try:
        time.sleep(1.0)  # running, exec'd and 80 MB resident before the block starts
        with _ChildPeaks(every=0.01) as peaks:
            time.sleep(0.3)
        assert peaks.largest_mb == 0.0
    finally:
        earlier.kill()
        earlier.wait()
