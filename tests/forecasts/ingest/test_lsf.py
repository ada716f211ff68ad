"""Tests for forecasts.accounting.parsers.lsf (pure core: no Django)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forecasts.accounting.parsers import lsf
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
LSF_DATA = SHARED_DATA / "lsf"


def _parse(path: Path) -> list[JobRecord | Skipped | Rejected]:
    with path.open("rb") as handle:
        return list(lsf.parse(handle, cluster="test"))


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _jobs(items: list[JobRecord | Skipped | Rejected]) -> list[JobRecord]:
    return [item for item in items if isinstance(item, JobRecord)]


# --- tokenizer ----------------------------------------------------------------------------


def test_tokenize_quotes_doubled_quotes_and_spaces() -> None:
    assert lsf.tokenize('"JOB_FINISH" "9.11" 12 "a ""b"" c" ""  "x"') == [
        "JOB_FINISH", "9.11", "12", 'a "b" c', "", "x",
    ]


def test_tokenize_splits_bare_token_glued_to_quote() -> None:
    # APEL's hand-edited 9.11 record has `0""` where `0 ""` is meant.
    assert lsf.tokenize('1 0"" 2') == ["1", "0", "", "2"]


def test_tokenize_unterminated_quote_raises() -> None:
    with pytest.raises(ValueError, match="unterminated"):
        lsf.tokenize('"JOB_FINISH" "abc')


def test_tokenize_quoted_only_quote() -> None:
    assert lsf.tokenize('""""') == ['"']


# --- hand-written sample ------------------------------------------------------------------


def test_sample_counts_and_kinds() -> None:
    items = _parse(SAMPLES / "lsf_sample.acct")
    counts = ParseCounts()
    for item in items:
        counts.add(item)
    assert (counts.read, counts.jobs, counts.skipped, counts.rejected) == (12, 7, 2, 3)
    assert [item.line for item in items] == [2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15]
    assert counts.read == counts.jobs + counts.skipped + counts.rejected


def test_sample_mpi_job_compressed_exec_hosts() -> None:
    job = _jobs(_parse(SAMPLES / "lsf_sample.acct"))[0]
    assert job.job_id == "5001" and job.array_index == -1
    assert (job.cores, job.nodes, job.node_list) == (32, 2, "cn101,cn102")
    assert job.start == _utc("2023-11-14T22:15:00Z") and job.end == _utc("2023-11-14T23:13:20Z")
    assert job.submit == _utc("2023-11-14T22:13:20Z")
    assert job.wall_s == 3500
    assert job.cpu_time_s == pytest.approx(36120.0)
    assert job.used_mem_mb == pytest.approx(4096.0)
    assert job.req_walltime_s == 43200  # run limit after a submitEXT with 2 pairs and 2 hostRusage entries
    assert (job.state, job.exit_status, job.account, job.queue, job.user) == (
        "DONE", 0, "climate", "normal", "alice",
    )
    assert job.core_hours == pytest.approx(32 * 3500 / 3600)


def test_sample_array_element_one_entry_per_slot() -> None:
    job = _jobs(_parse(SAMPLES / "lsf_sample.acct"))[1]
    assert (job.job_id, job.array_index) == ("5002", 7)
    assert (job.cores, job.nodes, job.node_list) == (4, 2, "cn201,cn202")
    assert (job.state, job.exit_status) == ("EXIT", 1)  # wait status 256 -> exit code 1
    assert job.req_walltime_s is None  # runLimit -1
    assert job.name == "sweep[1-20]"


def test_sample_short_versions() -> None:
    jobs = _jobs(_parse(SAMPLES / "lsf_sample.acct"))
    v51 = jobs[2]
    assert (v51.job_id, v51.user, v51.queue, v51.cores, v51.nodes) == ("5003", "bob", "short", 1, 1)
    assert v51.used_mem_mb == pytest.approx(310424 / 1024)
    assert v51.req_walltime_s is None
    v706 = jobs[3]
    assert (v706.job_id, v706.cores, v706.nodes, v706.account) == ("5004", 8, 1, "chem")


def test_sample_skips_and_rejections_have_readable_reasons() -> None:
    items = {item.line: item for item in _parse(SAMPLES / "lsf_sample.acct")}
    assert isinstance(items[7], Skipped) and "never started" in items[7].reason
    assert isinstance(items[8], Skipped)
    assert items[8].reason == "LSF EVENT_ADRSV_FINISH record, only JOB_FINISH records are jobs"
    assert isinstance(items[9], Rejected)
    assert items[9].reason == "field 11 (startTime): 'x1700' is not an epoch time"
    assert items[9].raw.startswith('"JOB_FINISH"')
    assert isinstance(items[10], Rejected) and "record ends after 29 fields" in items[10].reason
    assert isinstance(items[11], Rejected) and "unterminated" in items[11].reason


def test_sample_glued_token_utf8_begin_time_and_bad_utf8() -> None:
    items = {item.line: item for item in _parse(SAMPLES / "lsf_sample.acct")}
    glued = items[12]
    assert isinstance(glued, JobRecord)
    assert glued.name == "schön_job" and glued.req_walltime_s == 1800
    begun = items[13]
    assert isinstance(begun, JobRecord)
    assert begun.eligible == _utc("2023-11-14T22:14:10Z")
    assert begun.used_mem_mb is None and begun.cpu_time_s == 0.0
    assert (begun.cores, begun.nodes) == (2, 1)
    bad = items[15]
    assert isinstance(bad, JobRecord) and bad.user == "car\ufffdol"


def test_non_lsf_line_is_rejected_and_other_event_skipped() -> None:
    items = list(lsf.parse([b"garbage here", b'"JOB_NEW" "10.1" 1', b"", b"# c"], cluster="c"))
    assert isinstance(items[0], Rejected) and items[0].line == 1
    assert isinstance(items[1], Skipped) and items[1].line == 2
    assert len(items) == 2


# --- real logs (README §2, §3.4) ------------------------------------------------------------


@requires_shared
def test_xdmod_accounting_logs() -> None:
    items = _parse(LSF_DATA / "xdmod_input_accounting-logs.log")
    expected = json.loads((LSF_DATA / "xdmod_output_accounting-logs.json").read_text())
    jobs = _jobs(items)
    assert len(jobs) == len(items) == len(expected) == 2
    for job, exp in zip(jobs, expected, strict=True):
        assert job.job_id == exp["job_id"]
        assert job.submit == datetime.fromtimestamp(int(exp["submit_time"]), UTC)
        assert job.start == datetime.fromtimestamp(int(exp["start_time"]), UTC)
        assert job.end == datetime.fromtimestamp(int(exp["event_time"]), UTC)
        assert job.cores == int(exp["num_processors"]) == int(exp["max_num_processors"])
        assert job.node_list == exp["node_list"]
        assert job.nodes == len(exp["node_list"].split(","))
        assert job.used_mem_mb == pytest.approx(int(exp["max_rmem"]) / 1024)
        assert job.queue == exp["queue"] and job.user == exp["user_name"]
        assert job.account == exp["project_name"]
        # XDMoD's "walltime" is really ru_utime + ru_stime (README §2): that is our cpu_time_s.
        assert job.cpu_time_s == pytest.approx(exp["walltime"])
        # runTime (XDMoD's unknown57) = event_time - start_time
        assert job.wall_s == int(exp["unknown57"]) == 40368
        # XDMoD's unknown44 = 43200 = "#BSUB -W 12:00": the run limit (README §3.4)
        assert job.req_walltime_s == int(exp["unknown44"]) == 43200
        assert job.state == "DONE" and job.exit_status == 0
    assert (jobs[0].nodes, jobs[1].nodes) == (8, 4)


@requires_shared
def test_xdmod_utf8_multibyte() -> None:
    items = _parse(LSF_DATA / "xdmod_input_utf8-multibyte-chars.log")
    assert len(items) == 1 and isinstance(items[0], JobRecord)
    raw = (LSF_DATA / "xdmod_input_utf8-multibyte-chars.log").read_bytes().decode("utf-8")
    expected = json.loads((LSF_DATA / "xdmod_output_utf8-multibyte-chars.json").read_text())
    assert expected[0]["command"] in lsf.tokenize(raw.strip())


@requires_shared
def test_apel_records() -> None:
    items = _parse(LSF_DATA / "apel_test_lsf_records.acct")
    expected = json.loads((LSF_DATA / "apel_test_lsf_expected.json").read_text())["records"]
    jobs = _jobs(items)
    assert len(jobs) == len(items) == len(expected) == 3
    for job, rec in zip(jobs, expected, strict=True):
        exp = rec["expected"]
        assert job.job_id == exp["JobName"]
        assert job.user == exp["LocalUserID"]
        assert job.start == _utc(exp["StartTime"]) and job.end == _utc(exp["StopTime"])
        assert job.wall_s == exp["WallDuration"]
        assert round(job.cpu_time_s or 0) == exp["CpuDuration"]
        assert job.used_mem_mb == pytest.approx(exp["MemoryReal"] / 1024)  # maxRMem KB
        assert job.cores == exp["Processors"]
        assert job.nodes == exp["NodeCount"]
    # versions 5.1 / 7.06 / 9.11; 7.06 is element 23 of the array imb_sr[1-90]
    assert [job.array_index for job in jobs] == [-1, 23, -1]
    assert [job.state for job in jobs] == ["DONE", "EXIT", "DONE"]
    assert jobs[1].exit_status == 255  # exitStatus 65280 = exit(255)
    # 9.11 record: "-1 0 441780" after the (empty) hostRusage list: no run limit
    assert jobs[2].req_walltime_s is None
