"""Replay a workload on a machine: which jobs can run, in what order, by which kernel (pure, no Django).

``replay(workload, machine, policy="easy")`` returns every job's start (-1 when it was not
simulated, with the reason counted). Processor-pool mode is REPLAY-POLICY.md exactly; node mode
places jobs on a design's node types (``kernel_nodes``). ``queue_priority`` lists queue ids from
the most to the least urgent: the queue is then kept in (priority, submit, id) order; without it
every job is in one FCFS queue, as the policy says.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from planner.replay import kernel_nodes, kernel_pool, kernel_pool_one, kernel_skip
from planner.replay.future import scale_arrivals
from planner.replay.workload import I64, Machine, NodeType, ReplayInputError, Workload

Policy = Literal["fcfs", "easy"]
POLICIES: tuple[str, ...] = ("fcfs", "easy")
WIDER = "wider than the machine"
NO_PROCS = "no processors requested"
NEG_RUN = "run time unknown (< 0)"
CHUNKS = 50  # progress reports per replay when a callback is given


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """Per-job outcome, in the workload's own order."""

    start_s: I64  # -1: not simulated
    simulated: npt.NDArray[np.bool_]
    not_simulated: dict[str, int]
    submit_s: I64  # after any load scaling: the submit times the replay used
    run_s: I64
    procs: I64
    machine: Machine
    policy: str
    mode: str
    kernel_seconds: float
    load_scale: float = 1.0
    extras: dict[str, float] = field(default_factory=dict)

    @property
    def wait_s(self) -> I64:
        return np.where(self.simulated, self.start_s - self.submit_s, -1)


def _reasons(workload: Workload, capacity: int) -> tuple[npt.NDArray[np.bool_], dict[str, int]]:
    p, r = workload.procs, workload.run_s
    no_procs = p <= 0
    neg_run = (r < 0) & ~no_procs
    wider = (p > capacity) & ~no_procs & ~neg_run
    reasons = {k: int(v.sum()) for k, v in ((WIDER, wider), (NO_PROCS, no_procs), (NEG_RUN, neg_run))}
    return ~(no_procs | neg_run | wider), {k: v for k, v in reasons.items() if v}


def _ranks(queue: I64 | None, priority: Sequence[int] | None, n: int) -> tuple[npt.NDArray[np.int32], int]:
    if not priority or queue is None:
        return np.zeros(n, dtype=np.int32), 1
    if len(priority) > 1000:
        raise ReplayInputError(f"queue priority: {len(priority)} queues listed, at most 1000")
    lookup = {int(q): i for i, q in enumerate(priority)}
    codes, inverse = np.unique(queue, return_inverse=True)
    per_code = np.array([lookup.get(int(c), len(priority)) for c in codes], dtype=np.int32)
    return per_code[inverse].astype(np.int32), len(priority) + 1


def replay(
    workload: Workload,
    machine: Machine,
    policy: str = "easy",
    *,
    queue_priority: Sequence[int] | None = None,
    load_scale: float = 1.0,
    progress: Callable[[int, int], None] | None = None,
    incremental: bool = True,
) -> ReplayResult:
    """Schedule ``workload`` on ``machine``; see the module docstring and docs/replay.md."""
    if policy not in POLICIES:
        raise ReplayInputError(f"policy {policy!r}: expected one of {', '.join(POLICIES)}")
    if machine.processors <= 0:
        raise ReplayInputError("the machine has no processors (no nodes, or nodes of 0 cores): nothing can run on it")
    if not load_scale > 0:
        raise ReplayInputError(f"load scale {load_scale}: must be > 0")
    n_all = len(workload)
    submit_all = scale_arrivals(workload.submit_s, load_scale) if load_scale != 1.0 else workload.submit_s
    ok, reasons = _reasons(workload, machine.processors)
    every = bool(ok.all())
    idx = None if every else np.flatnonzero(ok)  # no copies of 10 M-job columns when all can run

    def pick(column: I64) -> I64:
        return column if idx is None else column[idx]

    sub_ok = pick(submit_all)
    # one dtype for every array the kernel takes, so warm_up() compiles the only specialisation
    tie_ok = pick(workload.job_id) if workload.job_id is not None else np.flatnonzero(ok).astype(np.int64)
    if len(sub_ok) > 1 and not (bool(np.all(sub_ok[1:] >= sub_ok[:-1])) and _ties_sorted(sub_ok, tie_ok)):
        order = np.lexsort((tie_ok, sub_ok))
        idx = order if idx is None else idx[order]
        sub_ok, tie_ok = submit_all[idx], tie_ok[order]
    run = pick(workload.run_s)
    procs = pick(workload.procs)
    req = run if workload.req_s is None else pick(workload.req_s)
    if req is not run and not bool(np.all(req >= run)):
        req = np.maximum(req, run)
    rank, n_ranks = _ranks(None if workload.queue is None else pick(workload.queue), queue_priority, len(sub_ok))
    warm_up()
    t0 = time.perf_counter()
    if machine.node_mode:
        start_ok, extras = kernel_nodes.replay_nodes(sub_ok, run, procs, req, tie_ok, rank, n_ranks, machine,
                                                     policy == "easy", progress)
    else:
        start_ok = _run_pool(sub_ok, run, procs, req, tie_ok, rank, n_ranks, machine.processors,
                             policy == "easy", incremental, progress)
        extras = {}
    elapsed = time.perf_counter() - t0
    if idx is None:
        start = start_ok
    else:
        start = np.full(n_all, -1, dtype=np.int64)
        start[idx] = start_ok
    return ReplayResult(start_s=start, simulated=ok, not_simulated=reasons, submit_s=submit_all,
                        run_s=workload.run_s, procs=workload.procs, machine=machine, policy=policy,
                        mode="nodes" if machine.node_mode else "pool", kernel_seconds=elapsed,
                        load_scale=load_scale, extras=extras)


_warm: set[str] = set()


def warm_up() -> float:
    """Compile (or load from numba's disk cache) both kernels once per process; returns seconds spent.

    Replays time only the kernel's work, so ``jobs_per_second`` does not include this one-off cost
    (the benchmark reports it separately, with and without a warm disk cache).
    """
    if "done" in _warm:
        return 0.0
    t0 = time.perf_counter()
    one = np.zeros(1, dtype=np.int64)
    ones = np.ones(1, dtype=np.int64)
    rank = np.zeros(1, dtype=np.int32)
    _run_pool(one, ones, ones, ones, one, rank, 1, 1, True, True, None)  # one queue
    _run_pool(one, ones, ones, ones, one, rank, 2, 1, True, True, None)  # queue priorities
    kernel_nodes.replay_nodes(one, ones, ones, ones, one, rank, 1, Machine.nodes(NodeType(1, 1)), True, None)
    _warm.add("done")
    return time.perf_counter() - t0


def _ties_sorted(submit: I64, tie: I64) -> bool:
    same = submit[1:] == submit[:-1]
    return bool(np.all(tie[1:][same] > tie[:-1][same]))


def _run_pool(
    submit: I64, run: I64, procs: I64, req: I64, tie: I64, rank: npt.NDArray[np.int32], n_ranks: int,
    processors: int, backfill: bool, incremental: bool, progress: Callable[[int, int], None] | None,
) -> I64:
    """One queue: ``kernel_pool_one`` (block index); several priorities: ``kernel_pool`` (linked lists)."""
    n = len(submit)
    start = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return start
    cap = min(n, processors) + 1
    small = np.int32 if n < 2**31 else np.int64
    end_heap = np.zeros(cap, dtype=small)
    exp_heap = np.zeros(cap, dtype=small)
    pos = np.full(n, -1, dtype=small)
    aux = np.zeros(cap, dtype=small)
    stops = [n] if progress is None else sorted({int(x) for x in np.linspace(0, n, CHUNKS + 1)[1:]})
    if n_ranks == 1:
        state = np.zeros(kernel_pool_one.STATE_SIZE, dtype=np.int64)
        state[kernel_pool_one.FREE] = processors
        p1, w1, p2, w2, p3, w3 = kernel_skip.new_index(n)
        for stop in stops:
            kernel_pool_one.run_pool_one(submit, run, procs, req, tie, processors, backfill, incremental, start,
                                         state, end_heap, exp_heap, pos, aux, p1, w1, p2, w2, p3, w3, stop)
            if progress is not None:
                progress(int(state[kernel_pool_one.NEXT_ARRIVAL]), n)
        assert state[kernel_pool_one.DONE] == 1, "replay kernel stopped before every job ended"
        return start
    state = np.zeros(kernel_pool.STATE_SIZE, dtype=np.int64)
    state[kernel_pool.FREE] = processors
    qhead = np.full(n_ranks, -1, dtype=np.int64)
    qtail = np.full(n_ranks, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=small)
    for stop in stops:
        kernel_pool.run_pool(submit, run, procs, req, tie, rank, n_ranks, processors, backfill, incremental,
                             start, state, qhead, qtail, nxt, end_heap, exp_heap, pos, aux, stop)
        if progress is not None:
            progress(int(state[kernel_pool.NEXT_ARRIVAL]), n)
    assert state[kernel_pool.DONE] == 1, "replay kernel stopped before every job ended"
    return start
