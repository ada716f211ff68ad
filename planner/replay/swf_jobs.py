"""Jobs of a Standard Workload Format trace, read the way REPLAY-POLICY.md says (pure, no Django).

The project's SWF parser (forecasts' accounting parsers) turns records into accounting jobs: it
skips partial executions and jobs whose run time is unknown. The replay policy reads every data
line instead (jobs_read counts them all; a run time < 0 makes a job "not simulated"), so the
golden figures need this small reader of its own:

* p = allocated processors (field 5) if > 0, else requested processors (field 8);
* r = run time (field 4); w = requested time (field 9) if > 0, else r; then w = max(w, r);
* submit = field 2; queue = field 15 (-1 when unknown); user = field 12; group = field 13;
* the machine size is the header's MaxProcs, else MaxNodes.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from planner.replay.workload import Workload

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class SwfTrace:
    """A trace's jobs as replay input, and what its header says about the machine."""

    workload: Workload
    max_procs: int | None
    jobs_read: int
    user: I64
    group: I64


class SwfTraceError(ValueError):
    """A line the reader cannot use: the message names the file, the line and the reason."""


def _lines(path: Path) -> Iterable[bytes]:
    with path.open("rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as f:  # type: ignore[operator]
        yield from f


def read_swf(path: str | Path) -> SwfTrace:
    """Read a (possibly gzipped) SWF file into replay arrays; a bad line raises ``SwfTraceError``."""
    path = Path(path)
    max_procs: int | None = None
    max_nodes: int | None = None
    rows: list[tuple[int, ...]] = []
    for lineno, raw in enumerate(_lines(path), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b";"):
            key, _, value = line[1:].partition(b":")
            key = key.strip().lower()
            if key in (b"maxprocs", b"maxnodes"):
                try:
                    number = int(float(value.split()[0]))
                except (ValueError, IndexError):
                    continue  # a header we cannot read is not a reason to stop
                if key == b"maxprocs":
                    max_procs = number
                else:
                    max_nodes = number
            continue
        fields = line.split()
        if len(fields) < 18:
            raise SwfTraceError(f"{path.name}:{lineno}: {len(fields)} fields, SWF has 18")
        try:
            f = [int(float(x)) for x in fields[:18]]
        except ValueError:
            raise SwfTraceError(f"{path.name}:{lineno}: a field is not a number") from None
        run = f[3]
        procs = f[4] if f[4] > 0 else f[7]
        req = f[8] if f[8] > 0 else run
        rows.append((f[0], f[1], run, procs, max(req, run), f[14], f[11], f[12]))
    arr = np.array(rows, dtype=np.int64).reshape(-1, 8)
    workload = Workload(
        submit_s=arr[:, 1].copy(),
        run_s=arr[:, 2].copy(),
        procs=arr[:, 3].copy(),
        req_s=arr[:, 4].copy(),
        job_id=arr[:, 0].copy(),
        queue=arr[:, 5].copy(),
    )
    size = max_procs if max_procs is not None and max_procs > 0 else max_nodes
    return SwfTrace(workload=workload, max_procs=size, jobs_read=len(rows), user=arr[:, 6].copy(),
                    group=arr[:, 7].copy())
