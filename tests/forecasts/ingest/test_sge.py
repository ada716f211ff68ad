"""Tests for forecasts.accounting.parsers.sge (SGE and UGE; pure core: no Django)."""

from __future__ import annotations

import functools
import json
import math
from datetime import datetime
from pathlib import Path

import pytest

from forecasts.accounting.parsers import sge
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
SGE_DATA = SHARED_DATA / "sge"
UGE_DATA = SHARED_DATA / "uge"


def _parse(path: Path, **kwargs: object) -> list[JobRecord | Skipped | Rejected]:
    with path.open("rb") as handle:
        return list(sge.parse(handle, cluster="test", **kwargs))  # type: ignore[arg-type]


def _by_line(path: Path, **kwargs: object) -> dict[int, JobRecord | Skipped | Rejected]:
    return {item.line: item for item in _parse(path, **kwargs)}


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _job(item: JobRecord | Skipped | Rejected) -> JobRecord:
    assert isinstance(item, JobRecord), item
    return item


# --- helpers --------------------------------------------------------------------------------


COLON_LINE = (
    "all.q:n1:g:u:j:7:sge:0:1700000000:1700000100:1700003700:0:0:3600:1:1:0:0:0:0:0:0:0:0:0:0:0:0:0:"
    "0:0:NONE:defaultdepartment:mpi:8:0:10.5:1.0:0.1:-q all.q -l h_rt=24:00:00,h_vmem=1G -pe mpi 8:"
    "0.000000:NONE:1048576.000000:0:0"
)


def test_split_record_rejoins_category_with_colons() -> None:
    fields = sge.split_record(COLON_LINE)
    assert fields is not None and len(fields) == 45
    assert fields[39] == "-q all.q -l h_rt=24:00:00,h_vmem=1G -pe mpi 8"
    assert fields[40:43] == ["0.000000", "NONE", "1048576.000000"]
    job = _job(next(sge.parse([COLON_LINE.encode()], cluster="c")))
    assert (job.req_walltime_s, job.cores, job.nodes, job.req_mem_mb) == (86400, 8, 1, 8192.0)
    assert job.cpu_time_s == 10.5


def test_split_record_colon_at_end_of_category_and_in_middle() -> None:
    line = COLON_LINE.replace("-q all.q -l h_rt=24:00:00,h_vmem=1G -pe mpi 8", "-pe mpi 8 -l h_rt=1:2:3")
    job = _job(next(sge.parse([line.encode()], cluster="c")))
    assert job.req_walltime_s == 3723


def test_split_record_without_plausible_tail() -> None:
    assert sge.split_record(":".join(["x"] * 50)) is None
    (item,) = sge.parse([":".join(["x"] * 50).encode()], cluster="c")
    assert isinstance(item, Rejected) and "iow" in item.reason


@pytest.mark.parametrize(
    ("text", "mb"),
    [("1.000T", 1048576.0), ("1.024t", 1.024e12 / 1048576), ("1124M", 1124.0), ("2G", 2048.0),
     ("1g", 1e9 / 1048576), ("512K", 0.5), ("1048576", 1.0), ("INFINITY", None)],
)
def test_parse_sge_memory_mb(text: str, mb: float | None) -> None:
    result = sge.parse_sge_memory_mb(text)
    assert result == (pytest.approx(mb) if mb is not None else None)


def test_category_resources() -> None:
    assert sge.category_resources("-u a,b -q q -l gpu=1,m_mem_free=1.000G -pe threads 16") == {
        "gpu": "1", "m_mem_free": "1.000G",
    }


def test_pe_slots_per_node_option() -> None:
    (item,) = sge.parse([COLON_LINE.encode()], cluster="c", pe_slots_per_node={"mpi": 3})
    assert _job(item).nodes == math.ceil(8 / 3)


# --- hand-written samples -------------------------------------------------------------------


def test_sge_sample_counts() -> None:
    counts = ParseCounts()
    for item in _parse(SAMPLES / "sge_sample.accounting"):
        counts.add(item)
    assert (counts.read, counts.jobs, counts.skipped, counts.rejected) == (13, 9, 2, 2)


def test_sge_sample_values() -> None:
    items = _by_line(SAMPLES / "sge_sample.accounting")
    serial = _job(items[4])
    assert (serial.job_id, serial.array_index, serial.cores, serial.nodes) == ("2001", -1, 1, 1)
    assert (serial.req_walltime_s, serial.req_mem_mb, serial.used_mem_mb) == (3600, 2048.0, 200.0)
    assert serial.start == _utc("2023-11-14T22:15:00Z") and serial.wall_s == 3600
    assert (serial.account, serial.state) == ("sge", "COMPLETED")
    mpi = _job(items[5])
    assert (mpi.cores, mpi.nodes, mpi.req_walltime_s, mpi.req_mem_mb) == (16, 1, 86400, 16 * 2048.0)
    assert mpi.account == "astro"  # project beats the default "sge" account
    assert _job(items[6]).array_index == 5 and _job(items[6]).req_walltime_s == 1800
    assert _job(items[7]).array_index == -1  # task_number "undefined"
    killed = _job(items[8])
    assert (killed.state, killed.exit_status, killed.req_walltime_s) == ("FAILED", 137, 60)
    assert isinstance(items[9], Skipped) and "never started" in items[9].reason
    assert isinstance(items[11], Skipped) and "pe_taskid" in items[11].reason
    old = _job(items[12])  # SGE 6.0, 43 fields, ru_maxrss 0 -> maxvmem
    assert old.used_mem_mb == pytest.approx(30171136 / 1048576)
    assert _job(items[13]).user == "bob"  # 46 fields
    assert isinstance(items[14], Rejected) and "9 colon-separated fields" in items[14].reason
    assert isinstance(items[15], Rejected)
    assert items[15].reason == "field 10 (start_time): 'abc' is not an epoch time"
    tail = _job(items[16])
    assert (tail.req_walltime_s, tail.gpus, tail.cores) == (5400, 2, 4)
    assert _job(items[17]).user == "d\ufffdn"
    assert set(items) == {4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17}


def test_uge_sample_values() -> None:
    items = _by_line(SAMPLES / "uge_sample.accounting")
    counts = ParseCounts()
    for item in items.values():
        counts.add(item)
    assert (counts.read, counts.jobs, counts.skipped, counts.rejected) == (9, 6, 2, 1)
    first = _job(items[2])
    assert first.start == _utc("2023-11-14T22:13:25.141Z") and first.end == _utc("2023-11-14T22:17:05.629Z")
    assert first.wall_s == pytest.approx(220.488)
    assert first.used_mem_mb == pytest.approx(124411904 / 1048576)  # UGE maxrss column (bytes)
    gpu = _job(items[3])  # 74-field layout
    assert (gpu.cores, gpu.gpus, gpu.req_mem_mb, gpu.queue) == (16, 1, 16 * 1024.0, "gpu.q")
    colons = _job(items[4])  # colons in category and in submit_cmd
    assert (colons.req_walltime_s, colons.req_mem_mb, colons.used_mem_mb) == (7200, 8192.0, 2048.0)
    assert _job(items[5]).array_index == 12
    assert isinstance(items[6], Skipped)
    failed = _job(items[7])
    assert (failed.state, failed.exit_status, failed.wall_s) == ("FAILED", 137, 3600)
    seconds = _job(items[8])  # a seconds line mixed in: auto-detected per line
    assert seconds.start == _utc("2023-11-14T22:15:00Z")
    assert isinstance(items[9], Skipped) and isinstance(items[10], Rejected)


def test_uge_registry_partial_millis() -> None:
    parse_uge = functools.partial(sge.parse, millis=True)
    line = COLON_LINE.replace("1700000000:1700000100:1700003700", "1700000000000:1700000100500:1700003700000")
    job = _job(next(parse_uge([line.encode()], cluster="c")))
    assert job.start == _utc("2023-11-14T22:15:00.500Z")
    # millis=True on a small value still reads milliseconds (as asked)
    early = COLON_LINE.replace("1700000000:1700000100:1700003700", "1000:2000:5000")
    job = _job(next(parse_uge([early.encode()], cluster="c")))
    assert job.wall_s == 3.0


# --- real logs ------------------------------------------------------------------------------


def _check_xdmod(items: list[JobRecord | Skipped | Rejected], expected: list[dict[str, object]]) -> None:
    jobs = [item for item in items if isinstance(item, JobRecord)]
    assert len(jobs) == len(items) == len(expected)
    for job, exp in zip(jobs, expected, strict=True):
        assert job.job_id == exp["job_number"]
        assert (job.queue, job.user, job.group, job.node_list) == (
            exp["qname"], exp["owner"], exp["groupname"], exp["hostname"],
        )
        for attr, key in (("submit", "submission_time"), ("start", "start_time"), ("end", "end_time")):
            value = getattr(job, attr)
            assert math.floor(value.timestamp()) == int(str(exp[key])), key  # XDMoD floors ms
        assert job.cores == int(str(exp["slots"])) == int(str(exp["resource_list_slots"]))
        assert job.cpu_time_s == pytest.approx(float(str(exp["cpu"])))
        assert job.exit_status == int(str(exp["exit_status"]))
        assert job.used_mem_mb is not None
        if "resource_list_h_rt" in exp:
            assert job.req_walltime_s == int(str(exp["resource_list_h_rt"]))
        if "resource_list_gpu" in exp:
            assert job.gpus == int(str(exp["resource_list_gpu"]))
        if "resource_list_mem_free" in exp:
            # XDMoD reports -l values in KiB: 1.000T = 2**30 KiB; we report MB x slots
            assert job.req_mem_mb == pytest.approx(int(str(exp["resource_list_mem_free"])) / 1024)


@requires_shared
def test_xdmod_sge() -> None:
    items = _parse(SGE_DATA / "xdmod_input_accounting-logs.log")
    expected = json.loads((SGE_DATA / "xdmod_output_accounting-logs.json").read_text())
    _check_xdmod(items, expected)
    first = _job(items[0])
    assert first.used_mem_mb == pytest.approx(104188 / 1024)  # ru_maxrss KB
    assert first.wall_s == 60


@requires_shared
def test_xdmod_uge_millis_auto_and_explicit() -> None:
    expected = json.loads((UGE_DATA / "xdmod_output_accounting-logs.json").read_text())
    auto = _parse(UGE_DATA / "xdmod_input_accounting-logs.log")
    explicit = _parse(UGE_DATA / "xdmod_input_accounting-logs.log", millis=True)
    _check_xdmod(auto, expected)
    assert auto == explicit
    gpu = _job(auto[1])
    assert (gpu.cores, gpu.gpus, gpu.nodes) == (16, 1, 1)
    assert gpu.used_mem_mb == pytest.approx(668106752 / 1048576)  # UGE maxrss column
    assert gpu.req_mem_mb == pytest.approx(16 * 1024.0)  # m_mem_free=1.000G per slot x 16


def _check_apel(items: list[JobRecord | Skipped | Rejected], expected: list[dict[str, object]]) -> None:
    jobs = [item for item in items if isinstance(item, JobRecord)]
    assert len(jobs) == len(items) == len(expected)
    for job, rec in zip(jobs, expected, strict=True):
        exp = rec["expected"]
        assert isinstance(exp, dict)
        assert job.job_id == exp["JobName"]
        assert (job.user, job.group) == (exp["LocalUserID"], exp["LocalUserGroup"])
        # APEL rounds millisecond times to the nearest second
        assert round(job.start.timestamp()) == _utc(exp["StartTime"]).timestamp()  # type: ignore[union-attr]
        assert round(job.end.timestamp()) == _utc(exp["StopTime"]).timestamp()  # type: ignore[union-attr]
        assert round(job.cpu_time_s or 0) == exp["CpuDuration"]
        assert job.cores == exp["Processors"]


@requires_shared
def test_apel_sge() -> None:
    items = _parse(SGE_DATA / "apel_test_sge_records.accounting")
    expected = json.loads((SGE_DATA / "apel_test_sge_expected.json").read_text())["records"]
    _check_apel(items, expected)
    jobs = [_job(item) for item in items]
    # WallDuration: APEL uses ru_wallclock; equal to end - start except in record 2 (hand-edited:
    # ru_wallclock 20365.78 vs end - start 20572).
    assert [job.wall_s for job in jobs] == [1, 180001, 20572, 359]
    assert [rec["expected"]["WallDuration"] for rec in expected] == [1, 180001, 20366, 359]
    # MemoryVirtual = maxvmem bytes; we fall back to it only where ru_maxrss is 0 (record 0).
    assert jobs[0].used_mem_mb == pytest.approx(expected[0]["expected"]["MemoryVirtual"] / 1048576)
    assert jobs[1].req_walltime_s == 180300 and jobs[1].req_mem_mb == 9 * 1124.0
    assert [job.state for job in jobs] == ["COMPLETED", "FAILED", "FAILED", "COMPLETED"]


@requires_shared
def test_apel_uge_millis() -> None:
    items = _parse(UGE_DATA / "apel_test_univa_ms_timestamps.accounting")
    expected = json.loads((UGE_DATA / "apel_test_univa_expected.json").read_text())["records"]
    _check_apel(items, expected)
    job = _job(items[0])
    assert int(job.wall_s) == expected[0]["expected"]["WallDuration"] == 220
    assert job.used_mem_mb == pytest.approx(124411904 / 1048576)
