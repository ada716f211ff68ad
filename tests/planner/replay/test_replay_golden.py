"""The replay reproduces, figure for figure, the golden results of an independent implementation
of REPLAY-POLICY.md on the two archive traces at their own size, 0.8x and 1.25x (pure core)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner.replay.engine import replay
from planner.replay.summary import summarise
from planner.replay.swf_jobs import SwfTraceError, read_swf
from planner.replay.workload import Machine
from tests.shared import SHARED_DATA, requires_shared

EXPECTED = SHARED_DATA / "replay" / "replay-expected.json"


def golden_cases() -> list[tuple[str, str, dict[str, Any]]]:
    if not EXPECTED.is_file():
        return []
    traces = json.loads(EXPECTED.read_text(encoding="utf-8"))["traces"]
    return [(name, size, fig) for name, trace in traces.items() for size, fig in trace["by_P"].items()]


@requires_shared
@pytest.mark.parametrize(("trace", "size", "expected"), golden_cases())
@pytest.mark.parametrize("incremental", [True, False], ids=["incremental", "full-passes"])
def test_every_golden_figure_is_matched_exactly(trace: str, size: str, expected: dict[str, Any],
                                               incremental: bool) -> None:
    jobs = read_swf(SHARED_DATA / "swf" / trace)
    s = summarise(replay(jobs.workload, Machine.pool(int(size)), "easy", incremental=incremental))
    got = {
        "P": s.processors, "jobs_read": jobs.jobs_read, "jobs_simulated": s.jobs_simulated,
        "not_simulated": s.jobs_not_simulated, "mean_wait": s.mean_wait, "median_wait": s.median_wait,
        "p95_wait": s.p95_wait, "max_wait": s.max_wait, "mean_bounded_slowdown": s.mean_bounded_slowdown,
        "utilisation": s.utilisation, "makespan": s.makespan,
    }
    assert got == expected  # exact: the same floating-point figures, not approximately


@requires_shared
def test_the_golden_sizes_are_the_traces_own_size_and_floor_of_080_and_125_times_it() -> None:
    for trace, size, _ in golden_cases():
        own = read_swf(SHARED_DATA / "swf" / trace).max_procs
        assert own is not None and int(size) in (own, int(own * 0.8), int(own * 1.25))


@requires_shared
def test_jobs_wider_than_a_shrunk_machine_are_the_not_simulated_ones() -> None:
    jobs = read_swf(SHARED_DATA / "swf" / "cloudsimplus_NASA-iPSC-1993-3.1-cln.swf.gz")
    result = replay(jobs.workload, Machine.pool(102))
    assert result.not_simulated == {"wider than the machine": 420}
    assert int((jobs.workload.procs > 102).sum()) == 420


def test_a_bad_swf_line_is_reported_with_file_line_and_reason(tmp_path: Any) -> None:
    path = tmp_path / "bad.swf"
    path.write_text("; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 10 x\n")
    with pytest.raises(SwfTraceError, match=r"^bad.swf:3: 5 fields, SWF has 18$"):
        read_swf(path)


def test_swf_reading_follows_the_policy_field_rules(tmp_path: Any) -> None:
    path = tmp_path / "ok.swf"
    path.write_text(
        "; MaxNodes: 16\n"
        "1 0 0 10 -1 -1 -1 4 -1 -1 1 1 1 -1 2 -1 -1 -1\n"  # no allocated procs: requested; no request: run
        "2 5 0 30 8 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"  # allocated 8 beats requested; w < r: w = r
    )
    jobs = read_swf(path)
    w = jobs.workload
    assert jobs.max_procs == 16 and jobs.jobs_read == 2
    assert w.procs.tolist() == [4, 8] and w.req_s is not None and w.req_s.tolist() == [10, 30]
    assert w.queue is not None and w.queue.tolist() == [2, -1]
