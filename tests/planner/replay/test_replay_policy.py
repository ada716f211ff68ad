"""The compiled pool kernel schedules every job exactly as a slow, obviously-correct reading of the policy.

Pure core: no Django, no database.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from planner.replay.engine import NEG_RUN, NO_PROCS, WIDER, replay
from planner.replay.workload import Machine, NodeType, ReplayInputError, Workload
from tests.planner.replay.reference import reference_replay

JobTuple = tuple[int, int, int, int, int]


@st.composite
def workloads(draw: st.DrawFn) -> tuple[list[JobTuple], int]:
    processors = draw(st.integers(1, 8))
    n = draw(st.integers(0, 30))
    ids = draw(st.permutations(list(range(1, n + 1))))  # ids not in submit order: ties must use them
    jobs = []
    for i in range(n):
        submit = draw(st.integers(0, 40))
        run = draw(st.integers(0, 25))
        procs = draw(st.integers(1, processors + 1))  # a few wider than the machine
        req = draw(st.one_of(st.just(-1), st.integers(0, 40)))  # -1 or below run: the run time
        jobs.append((ids[i], submit, run, procs, req))
    return jobs, processors


def as_workload(jobs: list[JobTuple], queue: list[int] | None = None) -> Workload:
    if not jobs:
        return Workload.of([], [], [], [], [], queue)
    ids, submit, run, procs, req = (list(c) for c in zip(*jobs, strict=True))
    return Workload.of(submit, run, procs, req, ids, queue)


def starts(jobs: list[JobTuple], result_start: np.ndarray) -> dict[int, int]:
    return {job[0]: int(s) for job, s in zip(jobs, result_start, strict=True) if s >= 0}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(["easy", "fcfs"]), st.booleans())
def test_every_start_time_matches_the_reference(case: tuple[list[JobTuple], int], policy: str,
                                                incremental: bool) -> None:
    jobs, processors = case
    result = replay(as_workload(jobs), Machine.pool(processors), policy, incremental=incremental)
    ref_jobs = [(i, s, r, p, max(w, r)) for (i, s, r, p, w) in jobs]
    assert starts(jobs, result.start_s) == reference_replay(ref_jobs, processors, backfill=policy == "easy")


@settings(max_examples=200, deadline=None)
@given(workloads(), st.lists(st.integers(0, 2), min_size=30, max_size=30), st.sampled_from(["easy", "fcfs"]))
def test_queue_priority_orders_the_queue_by_priority_then_submit(case: tuple[list[JobTuple], int],
                                                                 queues: list[int], policy: str) -> None:
    jobs, processors = case
    queue = queues[: len(jobs)]
    priority = [2, 0]  # queue 2 first, then 0, then every other queue (1)
    result = replay(as_workload(jobs, queue), Machine.pool(processors), policy, queue_priority=priority)
    rank = {job[0]: {2: 0, 0: 1}.get(q, 2) for job, q in zip(jobs, queue, strict=True)}
    ref_jobs = [(i, s, r, p, max(w, r)) for (i, s, r, p, w) in jobs]
    assert starts(jobs, result.start_s) == reference_replay(ref_jobs, processors, backfill=policy == "easy",
                                                            rank=rank)


@settings(max_examples=300, deadline=None)
@given(workloads(), st.sampled_from(["easy", "fcfs"]))
def test_node_mode_with_one_core_nodes_is_the_pool_policy(case: tuple[list[JobTuple], int], policy: str) -> None:
    jobs, processors = case
    w = as_workload(jobs)
    pool = replay(w, Machine.pool(processors), policy)
    nodes = replay(w, Machine.nodes(NodeType(processors, 1)), policy)
    assert nodes.start_s.tolist() == pool.start_s.tolist()


def test_a_blocked_head_lets_a_short_job_backfill_but_not_a_long_one() -> None:
    # 4 processors; job 1 holds 3 until t=10; job 2 (4 procs) waits for it; job 3 (1 proc) ends
    # by the shadow time 10 and starts at once; job 4 (1 proc, long) would delay job 2: it waits.
    w = Workload.of(submit_s=[0, 1, 2, 3], run_s=[10, 5, 5, 50], procs=[3, 4, 1, 1], req_s=[10, 5, 8, 50])
    fcfs = replay(w, Machine.pool(4), "fcfs")
    easy = replay(w, Machine.pool(4), "easy")
    assert fcfs.start_s.tolist() == [0, 10, 15, 15]
    assert easy.start_s.tolist() == [0, 10, 2, 15]


def test_a_job_wider_than_the_machine_is_counted_as_not_simulated_with_its_reason() -> None:
    w = Workload.of(submit_s=[0, 0, 0, 0], run_s=[5, 5, -1, 5], procs=[2, 9, 1, 0])
    result = replay(w, Machine.pool(8))
    assert result.simulated.tolist() == [True, False, False, False]
    assert result.not_simulated == {WIDER: 1, NEG_RUN: 1, NO_PROCS: 1}
    assert result.start_s.tolist() == [0, -1, -1, -1]


def test_an_empty_period_replays_to_nothing() -> None:
    result = replay(Workload.of([], [], []), Machine.pool(8))
    assert len(result.start_s) == 0 and result.not_simulated == {}


@pytest.mark.parametrize("machine", [Machine.pool(0), Machine.nodes(NodeType(0, 32)), Machine.nodes()])
def test_a_machine_without_processors_is_refused_with_a_clear_message(machine: Machine) -> None:
    with pytest.raises(ReplayInputError, match="the machine has no"):
        replay(Workload.of([0], [1], [1]), machine)


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ReplayInputError, match="policy 'sjf'"):
        replay(Workload.of([0], [1], [1]), Machine.pool(1), "sjf")


def test_workload_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ReplayInputError, match="run_s: 1 values for 2 jobs"):
        Workload.of([0, 1], [1], [1, 1])


def test_progress_is_reported_in_chunks_and_the_chunked_replay_is_the_same() -> None:
    rng = np.random.default_rng(7)
    n = 2000
    w = Workload.of(np.sort(rng.integers(0, 20000, n)), rng.integers(0, 500, n), rng.integers(1, 9, n))
    seen: list[tuple[int, int]] = []
    chunked = replay(w, Machine.pool(16), progress=lambda done, total: seen.append((done, total)))
    whole = replay(w, Machine.pool(16))
    assert chunked.start_s.tolist() == whole.start_s.tolist()
    assert len(seen) > 10 and seen[-1] == (n, n)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(workloads(), st.lists(st.integers(0, 2), min_size=30, max_size=30), st.sampled_from(["easy", "fcfs"]))
# found by hypothesis in CI: a zero-length job backfilled on the extra cores (job 10) was charged to the
# cores free now in node mode, so job 13 could not backfill beside it as it does in the pool
@example(case=([(1, 0, 0, 1, -1), (2, 1, 0, 3, -1), (3, 0, 0, 1, -1), (4, 0, 0, 1, -1), (5, 0, 3, 6, -1),
                (6, 0, 0, 1, -1), (7, 0, 0, 1, -1), (8, 0, 2, 1, -1), (9, 0, 0, 1, -1), (10, 1, 0, 2, 2),
                (11, 0, 0, 1, -1), (12, 0, 0, 1, -1), (13, 0, 2, 2, -1)], 8),
         queues=[0, 1, 0, 0, 0, 0, 0, 0, 0, 1] + [0] * 20, policy="easy")
def test_node_mode_with_one_core_nodes_keeps_queue_priorities_as_the_pool_does(
        case: tuple[list[JobTuple], int], queues: list[int], policy: str) -> None:
    jobs, processors = case
    w = as_workload(jobs, queues[: len(jobs)])
    pool = replay(w, Machine.pool(processors), policy, queue_priority=[1, 2])
    nodes = replay(w, Machine.nodes(NodeType(processors, 1)), policy, queue_priority=[1, 2])
    assert nodes.start_s.tolist() == pool.start_s.tolist()


@settings(max_examples=200, deadline=None)
@given(workloads(), st.integers(1, 4), st.sampled_from(["easy", "fcfs"]))
def test_the_one_queue_block_index_and_the_priority_lists_schedule_alike(
        case: tuple[list[JobTuple], int], width: int, policy: str) -> None:
    # every job in queue 0 and queue 0 listed first: the list kernels run, with the same order
    jobs, processors = case
    w = as_workload(jobs, [0] * len(jobs))
    for machine in (Machine.pool(processors), Machine.nodes(NodeType(processors, width), NodeType(1, width + 2))):
        one_queue = replay(w, machine, policy)
        lists = replay(w, machine, policy, queue_priority=[0])
        assert one_queue.start_s.tolist() == lists.start_s.tolist()


def saturated_workload(seed: int, n: int, processors: int) -> Workload:
    """A long queue: jobs arrive faster than ``processors`` can run them, spanning many index blocks."""
    rng = np.random.default_rng(seed)
    procs = np.minimum(rng.geometric(0.3, n), processors + 1)
    run = rng.integers(0, 400, n)
    req = run + rng.integers(0, 300, n)
    submit = np.sort(rng.integers(0, n * 40 // processors, n))
    return Workload.of(submit, run, procs, req, rng.permutation(n), np.zeros(n))  # one queue, 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_long_queues_across_many_index_blocks_match_the_reference(seed: int) -> None:
    w = saturated_workload(seed, 700, 8)
    jobs = list(zip(*(c.tolist() for c in (w.job_id, w.submit_s, w.run_s, w.procs, w.req_s)), strict=True))
    result = replay(w, Machine.pool(8))
    assert starts(jobs, result.start_s) == reference_replay(jobs, 8)


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_long_queues_schedule_alike_with_the_block_index_and_with_lists(seed: int) -> None:
    w = saturated_workload(seed, 20_000, 16)
    assert w.queue is not None and set(w.queue.tolist()) == {0}  # so queue_priority=[0] takes the list kernels
    for machine in (Machine.pool(16), Machine.nodes(NodeType(3, 4), NodeType(1, 8))):
        for policy in ("easy", "fcfs"):
            one_queue = replay(w, machine, policy)
            lists = replay(w, machine, policy, queue_priority=[0])
            assert one_queue.start_s.tolist() == lists.start_s.tolist(), (machine, policy)
