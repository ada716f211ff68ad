"""Workload characterisation of the real NASA iPSC/860 trace, recomputed from the raw SWF file.

The trace has no wait times ("the given submit times are actually start times": field 3 is -1 on every
line), so every job waited 0 s.  The report gave a mean wait of 0 h but a median of 0.0015 h (5.5 s, the
log-middle of the first bucket, 1-30 s) and drew it as the only bar of "Queue wait by queue": a median above
the maximum.  A bucket whose values sum to zero holds only zeros, and its quantiles are now 0.

The independent reading follows the Standard Workload Format's definition (fields 3-5) and shares no code
with the product.
"""

from __future__ import annotations

import gzip
import io
import statistics
from typing import Any

import pytest

from tests.shared import SHARED_DATA, requires_shared

NASA = SHARED_DATA / "swf" / "cloudsimplus_NASA-iPSC-1993-3.1-cln.swf.gz"

pytestmark = [pytest.mark.django_db, requires_shared]


def independent_jobs() -> list[tuple[float, float, int]]:
    """(wait s, run s, processors) per job, -1 (unknown) read as 0."""
    with gzip.open(NASA, "rt") as text:
        lines = [ln.split() for ln in text if not ln.startswith(";") and ln.strip()]
    return [(max(float(f[2]), 0), max(float(f[3]), 0), max(int(f[4]), 0)) for f in lines]


@pytest.fixture
def report(departments: Any) -> dict[str, Any]:
    from django.core.management import call_command

    from forecasts.workload.selectors import workload_report

    call_command("ingest_accounting", "--format", "swf", "--cluster", "nasa", str(NASA), stdout=io.StringIO(),
                 stderr=io.StringIO())
    return workload_report(cluster="nasa")


def test_table1_and_the_size_histogram_match_the_raw_trace(report: dict[str, Any]) -> None:
    jobs = independent_jobs()
    table1 = report["table1"]
    assert table1["jobs"] == len(jobs) == 18239
    assert table1["core_hours"] == pytest.approx(sum(p * r for _, r, p in jobs) / 3600, abs=1e-4)
    assert table1["wall_hours"] == pytest.approx(sum(r for _, r, _ in jobs) / 3600, abs=1e-4)
    assert table1["run_time_hours"]["max"] == pytest.approx(max(r for _, r, _ in jobs) / 3600, abs=1e-4)
    sizes = {row["label"]: row["jobs"] for row in report["job_size"] if row["jobs"]}
    assert sizes == {str(p) if p < 3 else f"{p // 2 + 1}-{p}": sum(1 for *_, q in jobs if q == p)
                     for p in sorted({p for *_, p in jobs})}  # powers of two: 1, 2, 3-4, 5-8, ...
    # interpolated within its bucket, the median run time stays inside the bucket of the exact one (60-120 s)
    exact = statistics.median(r for _, r, _ in jobs)
    assert exact == 86 and 60 <= table1["run_time_hours"]["median"] * 3600 < 120


def test_when_every_job_waited_zero_the_median_wait_is_zero_not_the_middle_of_a_bucket(
        report: dict[str, Any]) -> None:
    assert all(w == 0 for w, _, _ in independent_jobs())
    wait = report["queue_wait"]
    assert wait["mean_wait_hours"] == 0
    assert wait["median_wait_hours"] == 0
    assert [q["median_wait_hours"] for q in wait["by_queue"]] == [0]


def test_the_page_says_waits_are_not_recorded_instead_of_showing_zero_hours(report: dict[str, Any],
                                                                            planner_user: Any) -> None:
    """Every NASA job's wait reads 0 s (SWF's -1, "unknown"): the page, the chart and the grant report's facts
    say the log does not record waits, instead of quoting a measured-looking "Mean queue wait 0.00 h"."""
    from django.test import Client

    from forecasts.workload.charts import figures
    from planner.reports.workload_adapter import workload_facts

    assert report["queue_wait"]["all_zero"] is True
    client = Client()
    client.force_login(planner_user)
    html = client.get("/usage/workload/?cluster=nasa").content.decode()
    assert 'id="waits-not-recorded"' in html and "Mean queue wait" not in html
    assert "not recorded" in figures(report)["wait"]["layout"]["title"]["text"]
    facts = workload_facts(report=report, refs=[])
    assert facts is not None
    row = next(r for r in facts["rows"] if r["label"] == "Mean queue wait (hours)")
    assert row["value"].startswith("not recorded")


def test_a_log_with_waits_keeps_its_wait_figures(departments: Any) -> None:
    from django.core.management import call_command

    from forecasts.workload.selectors import workload_report

    call_command("ingest_accounting", "--format", "slurm", "--cluster", "phillips",
                 str(SHARED_DATA / "slurm" / "xdmod_referencedata_phillips.log"), stdout=io.StringIO(),
                 stderr=io.StringIO())
    wait = workload_report(cluster="phillips")["queue_wait"]
    assert wait["all_zero"] is False and wait["mean_wait_hours"] > 1
