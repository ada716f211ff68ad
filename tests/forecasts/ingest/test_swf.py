"""Tests for forecasts.accounting.parsers.swf (Standard Workload Format), pure core: no Django."""

from __future__ import annotations

import gzip
import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from forecasts.accounting.parsers import swf
from forecasts.accounting.parsers.compression import open_source
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, ParsedItem, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
SWF = SHARED_DATA / "swf"


def item_dict(item: ParsedItem) -> dict[str, object]:
    if isinstance(item, JobRecord):
        d = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in asdict(item).items()}
        d["kind"] = "job"
        return d
    if isinstance(item, Skipped):
        return {"kind": "skipped", "line": item.line, "reason": item.reason}
    return {"kind": "rejected", "line": item.line, "reason": item.reason}


def counts(items: list[ParsedItem]) -> ParseCounts:
    c = ParseCounts()
    for i in items:
        c.add(i)
    return c


def test_sample_matches_golden() -> None:
    items = list(swf.parse((SAMPLES / "swf_sample.swf").open("rb"), cluster=""))
    expected = json.loads((SAMPLES / "swf_sample.swf.expected.json").read_text(encoding="utf-8"))["items"]
    assert [item_dict(i) for i in items] == expected


def test_sample_semantics() -> None:
    header = swf.SwfHeader()
    items = list(swf.parse((SAMPLES / "swf_sample.swf").open("rb"), cluster="demo", header=header))
    assert header.tz == ZoneInfo("Europe/Stockholm") and header.queues == {0: "interactive", 1: "batch"}
    c = counts(items)
    assert c.read == 12 and c.jobs == 7 and c.rejected == 2
    assert c.skipped_reasons == {
        "run time unknown": 1,
        "partial execution (status 2)": 1,
        "partial execution (status 3)": 1,
    }
    by_id = {j.job_id: j for j in items if isinstance(j, JobRecord)}
    first = by_id["1"]
    assert first.submit == datetime(2024, 3, 30, 23, 0, tzinfo=UTC)  # UnixStartTime is an epoch
    assert first.submit.astimezone(header.tz).hour == 0  # midnight CET, as StartTime says
    assert (first.user, first.group, first.queue, first.name) == ("u3", "g1", "batch", "app4")
    assert first.cpu_time_s == pytest.approx(3500.5 * 16)
    assert first.used_mem_mb == 204800 * 16 / 1024 and first.req_mem_mb == 262144 * 16 / 1024
    assert first.nodes == 16  # MaxNodes == MaxProcs: one processor per node
    assert by_id["2"].start == by_id["2"].submit  # wait -1
    assert by_id["4"].state == "CANCELLED" and by_id["4"].wall_s == 0.5
    assert by_id["5"].cores == 32  # allocated -1 -> requested
    assert by_id["6"].wall_s == 14400  # the summary line, partial executions skipped
    unknown = by_id["7"]
    assert (unknown.state, unknown.cores, unknown.user, unknown.queue) == ("UNKNOWN", 0, "", "")
    assert by_id["10"].queue == "9"  # no Queue: header for 9
    reasons = [i.reason for i in items if isinstance(i, Rejected)]
    assert reasons == ["expected 18 whitespace-separated fields, got 5", "field 4 (run time): 'abc' is not a number"]


def test_start_time_header_used_without_unix_start() -> None:
    text = [
        b"; TimeZoneString: US/Pacific\n",
        b"; StartTime: Fri Oct 01 00:00:03 PDT 1993\n",
        b"1 0 -1 60 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
    ]
    [job] = swf.parse(text, cluster="c")
    assert isinstance(job, JobRecord) and job.submit == datetime.fromtimestamp(749458803, UTC)


@requires_shared
@pytest.mark.parametrize(
    ("name", "n_jobs", "tz", "first_submit"),
    [
        ("cloudsimplus_NASA-iPSC-1993-3.1-cln.swf.gz", 18239, "US/Pacific", datetime(1993, 10, 1, 7, 0, 3, tzinfo=UTC)),
        ("cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz", 28476, "Europe/Stockholm", None),
    ],
)
def test_archive_traces(name: str, n_jobs: int, tz: str, first_submit: datetime | None) -> None:
    header = swf.SwfHeader()
    with open_source(SWF / name) as handle:
        items = list(swf.parse(handle, cluster="pwa", header=header))
    with gzip.open(SWF / name, "rb") as raw:
        data_lines = sum(1 for line in raw if line.strip() and not line.lstrip().startswith(b";"))
    c = counts(items)
    assert c.read == data_lines == n_jobs
    assert c.read == c.jobs + c.skipped + c.rejected
    assert c.rejected == 0
    assert header.tz == ZoneInfo(tz)
    jobs = [i for i in items if isinstance(i, JobRecord)]
    assert all(j.end is not None and j.start is not None and j.end >= j.start for j in jobs)
    if first_submit is not None:
        assert jobs[0].submit == first_submit
        assert jobs[0].submit.astimezone(header.tz).strftime("%H:%M:%S") == "00:00:03"  # StartTime header
    assert sum(j.core_hours for j in jobs) > 0
