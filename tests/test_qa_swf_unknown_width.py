"""A job whose Standard Workload Format line gives no processor count (-1 allocated and -1 requested, as one job of
the KTH SP2 trace does) was stored with 0 cores and counted in the workload characterisation's 1-core bucket
and in the one-core and one-node shares. It is now a job of unknown width: stored (it ran; nothing is lost), with
0 core-hours in usage (its cores are unknown), and counted apart by the workload report, its command and its page.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from forecasts.accounting.models import Job
from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

pytestmark = pytest.mark.django_db

KTH = SHARED_DATA / "swf" / "cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz"

HEADER = "; UnixStartTime: 843480031\n; MaxNodes: 100\n; MaxProcs: 100\n"
# job, submit, wait, run, alloc, cpu, mem, req procs, req time, req mem, status, user, group, app, queue, partition,
# preceding job, think time
LINES = [
    "1 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1",     # 1 core, 1 h
    "2 100 10 3600 4 -1 -1 4 7200 -1 1 3 1 -1 1 -1 -1 -1",   # 4 cores, 1 h
    "3 200 10 480 -1 -1 -1 -1 600 -1 1 3 1 -1 1 -1 -1 -1",   # no processor count: unknown width
]


def _ingest(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    call_command("ingest_accounting", "--format", "swf", "--cluster", "sp2", str(path), stdout=out,
                 stderr=io.StringIO())
    return json.loads(out.getvalue().splitlines()[-1])


def _report() -> dict[str, Any]:
    out = io.StringIO()
    call_command("workload_report", "--cluster", "sp2", "--json", stdout=out)
    return json.loads(out.getvalue().splitlines()[-1])


def test_a_job_without_a_processor_count_is_stored_and_counted_apart(
        tmp_path: Path, departments: Any, client: Any, planner_user: Any) -> None:
    path = tmp_path / "small.swf"
    path.write_text(HEADER + "\n".join(LINES) + "\n")
    run = _ingest(path)
    assert run["records_read"] == run["jobs_ingested"] == 3 and run["rejected"] == run["skipped"] == 0
    assert run["core_hours"] == pytest.approx(5.0)  # 1 + 4 core-hours; the unknown one holds none
    assert Job.objects.get(job_id="3").cores == 0

    report = _report()
    assert report["table1"]["jobs"] == 3
    sizes = {r["label"]: r["jobs"] for r in report["job_size"] if r["jobs"]}
    assert sizes == {"1": 1, "3-4": 1}  # was {"1": 2, "3-4": 1}
    assert report["shape"]["single_core"]["jobs"] == 1
    assert report["shape"]["single_node"]["jobs"] == 1
    assert report["shape"]["unknown_width"] == {"jobs": 1, "jobs_share": pytest.approx(1 / 3, abs=1e-4),
                                                "core_hours": 0.0, "core_hours_share": 0.0}

    login(client, planner_user)
    page = client.get("/usage/workload/?cluster=sp2").content.decode()
    assert "1 job of unknown width: the log gives no core count" in page


@requires_shared
def test_the_kth_job_without_a_processor_count_is_not_a_one_core_job(tmp_path: Path, departments: Any) -> None:
    with gzip.open(KTH, "rt") as text:
        lines = text.read().splitlines()
    header = [ln for ln in lines if ln.startswith(";")]
    jobs = [ln for ln in lines if ln.strip() and not ln.startswith(";")]
    unknown = [ln for ln in jobs if int(ln.split()[4]) < 0 and int(ln.split()[7]) < 0]
    assert len(unknown) == 1  # the trace's one job of unknown width (job 27313, 480 s)
    at = jobs.index(unknown[0])
    sample = jobs[at - 20:at + 20]
    one_core = sum(1 for ln in sample if int(ln.split()[4]) == 1)
    path = tmp_path / "kth.swf"
    path.write_text("\n".join(header + sample) + "\n")
    run = _ingest(path)
    assert run["jobs_ingested"] == len(sample)
    report = _report()
    assert report["shape"]["unknown_width"]["jobs"] == 1
    assert report["shape"]["single_core"]["jobs"] == one_core
    assert sum(r["jobs"] for r in report["job_size"]) == len(sample) - 1


def test_a_trace_with_more_processors_than_nodes_gives_no_node_count_and_no_one_node_share(
        tmp_path: Path, departments: Any, client: Any, planner_user: Any) -> None:
    """SWF counts processors; with MaxNodes below MaxProcs a job's nodes are unknown (stored as 0). Such jobs were
    counted as one-node jobs, so a trace of 64-processor jobs showed every job 'on one node'."""
    path = tmp_path / "smp.swf"
    path.write_text(HEADER.replace("MaxNodes: 100", "MaxNodes: 25") + "\n".join(LINES) + "\n")
    _ingest(path)
    assert set(Job.objects.values_list("nodes", flat=True)) == {0}
    report = _report()
    assert report["shape"]["single_node"]["jobs"] == 0  # was 2: the 1-core and the 4-core job
    assert report["shape"]["unknown_nodes"]["jobs"] == 2  # the job of unknown width is counted apart already
    assert report["shape"]["unknown_width"]["jobs"] == 1
    login(client, planner_user)
    page = client.get("/usage/workload/?cluster=sp2").content.decode()
    assert "2 jobs (67%, 100% of core-hours) with no node count in the log" in page
    assert "of jobs on one node: the log gives no node count" in page
    assert "– (no node count in the log)" in page  # the shape table's row, not "0%"
    assert "<td class=\"num\">2 / – / 0</td>" in page  # wall / node / wait hours: node hours unknown, not 0
    out = io.StringIO()
    call_command("workload_report", "--cluster", "sp2", stdout=io.StringIO(), stderr=out)
    assert "unknown node count (not in the log): 2 jobs" in out.getvalue()
