"""Node mode makes node width show in waits; the summary and the future-year scaling (pure core)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.replay.engine import replay
from planner.replay.future import growth_factor, scale_arrivals
from planner.replay.summary import summarise, wait_cdf
from planner.replay.workload import Machine, NodeType, ReplayInputError, Workload


def test_jobs_that_fit_a_pool_can_wait_when_they_do_not_fit_one_node() -> None:
    # 8 processors either way; three jobs of 3, 3 and 2 fill the pool, but on two 4-core
    # nodes the 2-core job finds 1 core free on each node and waits for the first to end.
    w = Workload.of(submit_s=[0, 0, 0], run_s=[10, 20, 5], procs=[3, 3, 2])
    assert replay(w, Machine.pool(8)).start_s.tolist() == [0, 0, 0]
    assert replay(w, Machine.nodes(NodeType(2, 4))).start_s.tolist() == [0, 0, 10]


def test_a_job_wider_than_a_node_takes_whole_nodes_and_wastes_the_rest() -> None:
    # a 6-core job on 4-core nodes holds two whole nodes: the 2 cores left on its second node
    # cannot take the 2-core job, which waits for the third node's 4-core job to end
    w = Workload.of(submit_s=[0, 0, 0], run_s=[10, 10, 5], procs=[4, 6, 2])
    assert replay(w, Machine.nodes(NodeType(3, 4))).start_s.tolist() == [0, 0, 10]
    assert replay(w, Machine.pool(12)).start_s.tolist() == [0, 0, 0]


def test_a_one_node_job_takes_the_narrowest_node_type_that_fits() -> None:
    # the 4-core job goes on the 4-core node, so the 8-core job starts at once on the 8-core node
    w = Workload.of(submit_s=[0, 1], run_s=[10, 10], procs=[4, 8])
    machine = Machine.nodes(NodeType(1, 8, "wide"), NodeType(1, 4, "thin"))
    assert replay(w, machine).start_s.tolist() == [0, 1]


def test_a_job_wider_than_all_nodes_together_is_not_simulated() -> None:
    w = Workload.of(submit_s=[0, 0], run_s=[1, 1], procs=[9, 8])
    result = replay(w, Machine.nodes(NodeType(2, 4)))
    assert result.simulated.tolist() == [False, True]
    assert result.not_simulated == {"wider than the machine": 1}


@st.composite
def node_cases(draw: st.DrawFn) -> tuple[Workload, Machine]:
    types = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 6)), min_size=1, max_size=3))
    machine = Machine.nodes(*(NodeType(c, w) for c, w in types))
    n = draw(st.integers(1, 25))
    submit = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    run = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, machine.processors), min_size=n, max_size=n))
    req = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    return Workload.of(submit, run, procs, req), machine


@settings(max_examples=300, deadline=None)
@given(node_cases(), st.sampled_from(["easy", "fcfs"]))
def test_node_mode_never_starts_a_job_early_or_oversubscribes_the_cores(case: tuple[Workload, Machine],
                                                                         policy: str) -> None:
    w, machine = case
    result = replay(w, machine, policy)
    start = result.start_s
    assert np.all(start >= w.submit_s)  # every job fits the machine here, so every job ran
    for t in np.unique(start):
        running = (start <= t) & (start + w.run_s > t)
        assert int(w.procs[running].sum()) <= machine.processors
    if policy == "fcfs":  # FCFS starts jobs in (submit, position) order
        order = np.lexsort((np.arange(len(w)), w.submit_s))
        assert np.all(np.diff(start[order]) >= 0)


def test_the_summary_figures_follow_the_policy_definitions() -> None:
    w = Workload.of(submit_s=[0, 1, 2, 3], run_s=[10, 5, 5, 50], procs=[3, 4, 1, 1], req_s=[10, 5, 8, 50])
    s = summarise(replay(w, Machine.pool(4)), queue=np.array([0, 1, 1, 1]), queue_names={0: "short", 1: "long"},
                  department=np.array([5, 5, 6, 6]), department_names={5: "genomics"})
    waits = [0, 9, 0, 12]  # starts 0, 10, 2, 15
    assert s.jobs_simulated == 4 and s.jobs_not_simulated == 0
    assert s.mean_wait == np.mean(waits) and s.median_wait == 4.5 and s.max_wait == 12
    assert s.p95_wait == np.percentile(waits, 95)
    assert s.mean_bounded_slowdown == np.mean([1, (9 + 5) / 10, 1, (12 + 50) / 50])
    assert s.makespan == 65 and s.utilisation == (30 + 20 + 5 + 50) / (4 * 65)
    assert set(s.by_queue) == {"short", "long"} and s.by_queue["long"].jobs == 3
    assert set(s.by_department) == {"genomics", "6"} and s.by_department["6"].max_wait == 12
    assert {k: v.jobs for k, v in s.by_size.items()} == {"1": 2, "2-4": 2}


def test_a_summary_of_no_jobs_has_no_waits() -> None:
    s = summarise(replay(Workload.of([0], [1], [9]), Machine.pool(4)))
    assert s.jobs_simulated == 0 and s.jobs_not_simulated == 1 and s.mean_wait is None and s.utilisation is None


def test_the_wait_cdf_rises_from_the_shortest_to_the_longest_wait() -> None:
    hours, frac = wait_cdf(np.array([0, 3600, 7200, 36000]))
    assert hours[0] == 0 and hours[-1] == 10 and frac[0] == 0 and frac[-1] == 1
    assert hours == sorted(hours)


def test_scaling_arrivals_divides_every_gap_from_the_first_submit() -> None:
    s = np.array([100, 110, 130, 131], dtype=np.int64)
    assert scale_arrivals(s, 2.0).tolist() == [100, 105, 115, 115]
    assert scale_arrivals(s, 0.5).tolist() == [100, 120, 160, 162]
    with pytest.raises(ReplayInputError, match="must be a finite number > 0"):
        scale_arrivals(s, 0.0)


def test_a_replay_at_a_load_scale_is_the_replay_of_the_scaled_arrivals() -> None:
    rng = np.random.default_rng(3)
    n = 500
    w = Workload.of(np.sort(rng.integers(0, 50000, n)), rng.integers(0, 900, n), rng.integers(1, 17, n))
    scaled = replay(w, Machine.pool(32), load_scale=1.5)
    by_hand = replay(Workload.of(scale_arrivals(w.submit_s, 1.5), w.run_s, w.procs), Machine.pool(32))
    assert scaled.start_s.tolist() == by_hand.start_s.tolist()
    assert summarise(scaled).mean_wait >= summarise(replay(w, Machine.pool(32))).mean_wait  # type: ignore[operator]


def test_the_growth_factor_is_the_ratio_of_forecast_demand() -> None:
    assert growth_factor(100.0, 130.0) == pytest.approx(1.3)
    with pytest.raises(ReplayInputError):
        growth_factor(0.0, 1.0)
