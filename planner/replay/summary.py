"""The figures a planner reads from a replay (pure, no Django).

Definitions are REPLAY-POLICY.md's: wait = start - submit; percentiles are numpy's linear ones;
bounded slowdown = max(1, (wait + r) / max(r, tau)) with tau = 10 s; utilisation = sum(p * r) /
(processors * makespan); makespan = last end - first submit, over the simulated jobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.replay.engine import ReplayResult

TAU_S = 10
# job-size classes (processors), upper bounds inclusive
SIZE_BOUNDS = (1, 4, 16, 64, 256, 1024)
CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class WaitStats:
    """Waits (seconds) of one group of jobs."""

    jobs: int
    mean_wait: float
    median_wait: float
    p95_wait: float
    max_wait: int


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """Summary of one replay; waits and makespan in seconds. Waits are None when no job ran."""

    policy: str
    mode: str
    processors: int
    machine: str
    load_scale: float
    jobs_simulated: int
    jobs_not_simulated: int
    not_simulated_reasons: dict[str, int]
    mean_wait: float | None
    median_wait: float | None
    p95_wait: float | None
    max_wait: int | None
    mean_bounded_slowdown: float | None
    utilisation: float | None
    makespan: int | None
    jobs_per_second: float | None
    kernel_seconds: float
    by_queue: dict[str, WaitStats] = field(default_factory=dict)
    by_department: dict[str, WaitStats] = field(default_factory=dict)
    by_size: dict[str, WaitStats] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def wait_stats(wait: npt.NDArray[np.int64]) -> WaitStats:
    median, p95 = np.percentile(wait, [50, 95])
    return WaitStats(jobs=int(len(wait)), mean_wait=float(wait.mean()), median_wait=float(median),
                     p95_wait=float(p95), max_wait=int(wait.max()))


def size_label(lo: int, hi: int | None) -> str:
    if hi is None:
        return f">{lo - 1}"
    return str(hi) if lo == hi else f"{lo}-{hi}"


def _grouped(wait: npt.NDArray[np.int64], codes: npt.NDArray[np.int64],
             names: Mapping[int, str]) -> dict[str, WaitStats]:
    out: dict[str, WaitStats] = {}
    if len(wait) == 0:
        return out
    uniq = np.unique(codes)
    if len(uniq) <= 64:  # a mask per group: no job-sized sort
        for code in uniq.tolist():
            out[names.get(code, str(code))] = wait_stats(wait[codes == code])
        return out
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    uniq, first = np.unique(sorted_codes, return_index=True)
    bounds = list(first[1:]) + [len(order)]
    for code, lo, hi in zip(uniq.tolist(), first.tolist(), bounds, strict=True):
        out[names.get(code, str(code))] = wait_stats(wait[order[lo:hi]])
    return out


def size_classes(procs: npt.NDArray[np.int64], bounds: Sequence[int] = SIZE_BOUNDS) -> tuple[
        npt.NDArray[np.int64], dict[int, str]]:
    codes = np.searchsorted(np.asarray(bounds), procs, side="left").astype(np.int64)
    names: dict[int, str] = {}
    lo = 1
    for i, hi in enumerate(bounds):
        names[i] = size_label(lo, hi)
        lo = hi + 1
    names[len(bounds)] = size_label(lo, None)
    return codes, names


def summarise(
    result: ReplayResult,
    *,
    queue: npt.NDArray[np.int64] | None = None,
    queue_names: Mapping[int, str] | None = None,
    department: npt.NDArray[np.int64] | None = None,
    department_names: Mapping[int, str] | None = None,
) -> ReplaySummary:
    """Reduce a replay to its summary; group codes (queue, department) are per job, workload order."""
    sim = result.simulated
    n_sim = int(sim.sum())
    n_not = int(len(sim) - n_sim)
    base: dict[str, Any] = dict(policy=result.policy, mode=result.mode, processors=result.machine.processors,
                                machine=result.machine.describe(), load_scale=result.load_scale,
                                jobs_simulated=n_sim, jobs_not_simulated=n_not,
                                not_simulated_reasons=dict(result.not_simulated),
                                kernel_seconds=result.kernel_seconds)
    if n_sim == 0:
        return ReplaySummary(**base, mean_wait=None, median_wait=None, p95_wait=None, max_wait=None,
                             mean_bounded_slowdown=None, utilisation=None, makespan=None, jobs_per_second=None)
    every = n_not == 0  # then no copies of the columns (10 M jobs stay within memory)

    def pick(column: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return column if every else column[sim]

    submit, start, run, procs = pick(result.submit_s), pick(result.start_s), pick(result.run_s), pick(result.procs)
    wait = start - submit
    first_submit = int(submit.min())
    makespan = 0
    bsld_sum = 0.0
    work = 0.0
    for lo in range(0, n_sim, CHUNK):  # in chunks: no job-sized temporaries
        hi = min(lo + CHUNK, n_sim)
        r = run[lo:hi]
        makespan = max(makespan, int((start[lo:hi] + r).max()) - first_submit)
        bsld_sum += float(np.maximum(1.0, (wait[lo:hi] + r) / np.maximum(r, TAU_S)).sum())
        work += float((procs[lo:hi] * r).sum(dtype=np.float64))
    util = work / (result.machine.processors * makespan) if makespan > 0 else None
    jps = n_sim / result.kernel_seconds if result.kernel_seconds > 0 else None
    stats = wait_stats(wait)
    size_codes, size_names = size_classes(procs)
    return ReplaySummary(
        **base,
        mean_wait=stats.mean_wait,
        median_wait=stats.median_wait,
        p95_wait=stats.p95_wait,
        max_wait=stats.max_wait,
        mean_bounded_slowdown=bsld_sum / n_sim,
        utilisation=util,
        makespan=makespan,
        jobs_per_second=jps,
        by_queue={} if queue is None else _grouped(wait, queue[sim], queue_names or {}),
        by_department={} if department is None else _grouped(wait, department[sim], department_names or {}),
        by_size=_grouped(wait, size_codes, size_names),
    )


def wait_cdf(wait_s: npt.NDArray[np.int64], points: int = 200) -> tuple[list[float], list[float]]:
    """(wait hours, fraction of jobs waiting at most that long) at up to ``points`` quantiles."""
    if len(wait_s) == 0:
        return [], []
    qs = np.linspace(0.0, 1.0, min(points, len(wait_s)))
    hours = np.quantile(wait_s, qs) / 3600.0
    return [round(float(h), 4) for h in hours], [round(float(q), 4) for q in qs]
