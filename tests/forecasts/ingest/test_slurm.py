"""Tests for forecasts.accounting.parsers.slurm (sacct --parsable2), pure core: no Django."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from forecasts.accounting.parsers import slurm
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, ParsedItem, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
SLURM = SHARED_DATA / "slurm"
STOCKHOLM = ZoneInfo("Europe/Stockholm")


def item_dict(item: ParsedItem) -> dict[str, object]:
    """The golden-file form of one parsed item."""
    if isinstance(item, JobRecord):
        d = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in asdict(item).items()}
        d["kind"] = "job"
        return d
    if isinstance(item, Skipped):
        return {"kind": "skipped", "line": item.line, "reason": item.reason}
    return {"kind": "rejected", "line": item.line, "reason": item.reason}


def parse_file(path: Path, **kwargs: object) -> list[ParsedItem]:
    with path.open("rb") as handle:
        return list(slurm.parse(handle, cluster=str(kwargs.pop("cluster", "test")), **kwargs))  # type: ignore[arg-type]


def jobs(items: list[ParsedItem]) -> list[JobRecord]:
    return [i for i in items if isinstance(i, JobRecord)]


def counts(items: list[ParsedItem]) -> ParseCounts:
    c = ParseCounts()
    for item in items:
        c.add(item)
    return c


def lines(*rows: str) -> list[bytes]:
    return [r.encode() + b"\n" for r in rows]


XDMOD_ROW = (
    "4107219|4107219|ub-hpc|general-compute|qos|anonacct|anongroup|456123|anonuser|10101010|"
    "2015-06-26T20:22:22|2015-06-26T20:22:22|2015-06-30T12:04:04|2015-07-01T02:04:53|14:00:49|0:0|"
    "COMPLETED|4|48|48|3000Mc|cpu=48,mem=144000M,node=4|billing=48,cpu=48,mem=144000M,node=4|"
    "14:20:00|k07n07s01,k08n02s01,k08n05s01,k08n13s01|anonjobname"
)


def row_with(**changes: str) -> str:
    parts = XDMOD_ROW.split("|")
    for name, value in changes.items():
        parts[slurm.XDMOD_FIELDS.index(name)] = value
    return "|".join(parts)


# --- golden: project samples (always run) ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("slurm_sample.txt", {}), ("slurm_header_sample.txt", {"tz": STOCKHOLM})],
)
def test_samples_match_golden(name: str, kwargs: dict[str, object]) -> None:
    items = parse_file(SAMPLES / name, cluster="", **kwargs)
    expected = json.loads((SAMPLES / f"{name}.expected.json").read_text(encoding="utf-8"))["items"]
    assert [item_dict(i) for i in items] == expected


def test_sample_counts_add_up() -> None:
    items = parse_file(SAMPLES / "slurm_sample.txt")
    c = counts(items)
    assert c.read == c.jobs + c.skipped + c.rejected
    # 13 non-blank lines, one of them a 4-element array range: 12 + 4 items
    assert c.read == 16 - 1  # 910004_[6-8,10] -> 4 items, the blank line -> none
    assert c.jobs == 5
    assert c.skipped_reasons == {
        "job step": 1,
        "not ended: PENDING": 4,
        "not ended: RUNNING": 1,
        "never ran (no nodes assigned)": 1,
        "unknown state: BAR": 1,
    }
    assert c.rejected == 2


def test_sample_edge_values() -> None:
    by_id = {(j.job_id, j.array_index): j for j in jobs(parse_file(SAMPLES / "slurm_sample.txt", cluster=""))}
    gpu = by_id[("910002", -1)]
    assert gpu.name == "train|model|v2"  # JobName may contain '|'
    assert gpu.gpus == 2 and gpu.exit_status == 128 + 15 and gpu.req_walltime_s == 86400
    assert gpu.cluster == "demo"  # the file's Cluster column, because the argument is empty
    cancelled = by_id[("910003", -1)]
    assert cancelled.state == "CANCELLED" and cancelled.name == "façade-schön"
    assert cancelled.req_mem_mb == 4 * 3000  # 2147486648Mn = 3000 MB per CPU with the flag bit leaked
    assert cancelled.req_walltime_s is None  # UNLIMITED
    element = by_id[("910004", 5)]
    assert element.req_walltime_s is None  # Partition_Limit
    assert by_id[("910010", -1)].req_mem_mb is None  # 0n = "all the node's memory"


def test_header_sample_units_and_zone() -> None:
    items = parse_file(SAMPLES / "slurm_header_sample.txt", tz=STOCKHOLM)
    by_id = {j.job_id: j for j in jobs(items)}
    dst = by_id["920001"]
    # 00:45 CET -> 03:15 CEST across the spring change: 1.5 h, not 2.5 h
    assert dst.wall_s == 90 * 60
    assert dst.start == datetime(2024, 3, 30, 23, 45, tzinfo=UTC)
    assert dst.req_mem_mb == 180 * 1024 and dst.used_mem_mb == pytest.approx(1.40 * 1024)
    assert dst.cpu_time_s == 2 * 86400
    post = by_id["920002"]
    assert post.cpu_time_s == pytest.approx(65.753)  # MM:SS.mmm
    assert post.used_mem_mb == pytest.approx(438.5)
    assert post.req_mem_mb == 4 * 4000
    fall = by_id["920005"]
    assert fall.wall_s == 2 * 3600  # 02:30 (first, CEST) -> 03:30 CET
    assert fall.used_mem_mb == pytest.approx(1567524 / 1024)
    reasons = [i.reason for i in items if isinstance(i, Rejected)]
    assert "field 16 (MaxRSS): '20H' is not a memory size" in reasons
    assert any(r.startswith("field 9 (End):") and "before Start" in r for r in reasons)
    # the repeated header line (concatenated exports) is not a record
    assert counts(items).read == 7


# --- unit behaviour ---------------------------------------------------------------------------


def test_reason_names_the_field() -> None:
    [item] = slurm.parse(lines(row_with(End="abc")), cluster="c")
    assert isinstance(item, Rejected)
    assert item.reason == "field 13 (End): 'abc' is not a time"
    [item] = slurm.parse(lines(row_with(NCPUS="x")), cluster="c")
    assert isinstance(item, Rejected) and item.reason == "field 18 (NCPUS): 'x' is not an integer"
    [item] = slurm.parse(lines(row_with(ReqMem="12Q")), cluster="c")
    assert isinstance(item, Rejected) and item.reason.startswith("field 20 (ReqMem):")


@pytest.mark.parametrize(
    ("jid", "expected"),
    [
        ("123_[1-3,7]", [1, 2, 3, 7]),
        ("123_[9-11,13,16-20]", [9, 10, 11, 13, 16, 17, 18, 19, 20]),
        ("123_[1-5%2]", [1, 2, 3, 4, 5]),
        ("123_5", [5]),
    ],
)
def test_array_expansion(jid: str, expected: list[int]) -> None:
    items = list(slurm.parse(lines(row_with(JobID=jid)), cluster="c"))
    assert [i.array_index for i in items if isinstance(i, JobRecord)] == expected
    assert {i.job_id for i in items if isinstance(i, JobRecord)} == {"123"}


@pytest.mark.parametrize("jid", ["123.batch", "123.0", "123.extern", "123_4.batch", "123+1.0"])
def test_steps_are_skipped(jid: str) -> None:
    assert list(slurm.parse(lines(row_with(JobID=jid)), cluster="c")) == [Skipped(1, "job step")]


@pytest.mark.parametrize("state", ["RUNNING", "PENDING", "REQUEUED", "RESIZING", "SUSPENDED"])
def test_non_ended_states(state: str) -> None:
    assert list(slurm.parse(lines(row_with(State=state)), cluster="c")) == [Skipped(1, f"not ended: {state}")]


def test_end_unknown_is_not_ended() -> None:
    [item] = slurm.parse(lines(row_with(End="Unknown")), cluster="c")
    assert item == Skipped(1, "not ended: COMPLETED")


def test_unknown_times_are_none() -> None:
    [item] = slurm.parse(lines(row_with(Eligible="Unknown", Submit="None")), cluster="c")
    assert isinstance(item, JobRecord) and item.eligible is None and item.submit is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("14:20:00", 51600), ("3-00:00:00", 259200), ("125-00:00:00", 125 * 86400), ("UNLIMITED", None),
     ("Partition_Limit", None), ("01:05.753", 65.753), ("2-12", 2 * 86400 + 12 * 3600), ("", None)],
)  # fmt: skip
def test_parse_duration(text: str, seconds: float | None) -> None:
    assert slurm.parse_duration(text) == pytest.approx(seconds) if seconds else slurm.parse_duration(text) is None


@pytest.mark.parametrize("text", ["abc", "1:2:3:4", "-5", "12:-1:00", "nan"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(slurm.FieldError):
        slurm.parse_duration(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("48000Mn", (48000.0, "n")), ("3000Mc", (3000.0, "c")), ("0n", (0.0, "n")), ("62.50G", (64000.0, "")),
     ("2147486648Mn", (3000.0, "c")), ("1567524K", (1567524 / 1024, "")), ("", None)],
)  # fmt: skip
def test_parse_memory(text: str, expected: tuple[float, str] | None) -> None:
    assert slurm.parse_memory(text) == expected


def test_memory_scope_times_nodes_or_cpus() -> None:
    [per_node] = slurm.parse(lines(row_with(ReqMem="48000Mn")), cluster="c")
    [per_cpu] = slurm.parse(lines(row_with(ReqMem="3000Mc")), cluster="c")
    assert isinstance(per_node, JobRecord) and per_node.req_mem_mb == 4 * 48000
    assert isinstance(per_cpu, JobRecord) and per_cpu.req_mem_mb == 48 * 3000


def test_count_hosts() -> None:
    assert slurm.count_hosts("cpn-f13-03-[01-02],cpn-f13-04-[01-02],d13n[03,05,07-08,16]") == 9
    assert slurm.count_hosts("None assigned") == 0
    assert slurm.count_hosts("node001") == 1


def test_local_time_zone_conversion() -> None:
    [item] = slurm.parse(lines(row_with()), cluster="c", tz=ZoneInfo("America/New_York"))
    assert isinstance(item, JobRecord)
    assert item.start == datetime(2015, 6, 30, 16, 4, 4, tzinfo=UTC)  # EDT = UTC-4


def test_cluster_argument_wins() -> None:
    [item] = slurm.parse(lines(row_with()), cluster="mine")
    assert isinstance(item, JobRecord) and item.cluster == "mine"


def test_crlf_blank_and_invalid_utf8() -> None:
    latin1 = row_with(JobName="a\xe0b").encode("latin-1")
    raw = [XDMOD_ROW.encode() + b"\r\n", b"\n", b"   \n", b"\xff\xfe|garbage\n", latin1]
    items = list(slurm.parse(raw, cluster="c"))
    assert [type(i) for i in items] == [JobRecord, Rejected, JobRecord]
    assert isinstance(items[2], JobRecord) and items[2].name == "a\ufffdb"
    assert isinstance(items[0], JobRecord) and items[0].name == "anonjobname"


def test_fast_and_careful_paths_agree() -> None:
    """The inline fast path and the careful row function give identical records."""
    text = [row_with(JobID=str(100 + n), Start=f"2015-06-30T12:04:{n:02d}") for n in range(30)]
    fast = list(slurm.parse(lines(*text), cluster="c"))
    careful = list(slurm.parse(lines(*text), cluster="c", fields=list(slurm.XDMOD_FIELDS) + ["MaxRSS"]))
    # the second layout has an extra (missing) column and so goes through the careful path
    assert all(isinstance(i, Rejected) for i in careful)  # 26 fields but 27 expected
    header = "|".join(slurm.XDMOD_FIELDS[:-1] + ("MaxRSS", "JobName"))
    with_rss = [t.rsplit("|", 1)[0] + "||" + t.rsplit("|", 1)[1] for t in text]
    careful = list(slurm.parse(lines(header, *with_rss), cluster="c"))
    assert [asdict(a) | {"line": 0} for a in fast] == [asdict(b) | {"line": 0} for b in careful]


def test_reheader_changes_layout() -> None:
    header1 = "JobID|State|Start|End|NCPUS"
    header2 = "JobID|End|Start|State|NCPUS|NNodes"
    items = list(
        slurm.parse(
            lines(header1, "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|4", header2,
                  "2|2024-01-01T03:00:00|2024-01-01T01:00:00|FAILED|8|2"),
            cluster="c",
        )
    )  # fmt: skip
    assert [(j.job_id, j.cores, j.nodes, j.wall_s) for j in jobs(items)] == [("1", 4, 0, 3600.0), ("2", 8, 2, 7200.0)]


def test_header_without_jobid_rejects_rows() -> None:
    items = list(slurm.parse(lines("User|State", "alice|COMPLETED"), cluster="c"))
    assert items == [Rejected(2, "the header has no JobID column", "alice|COMPLETED")]


def test_huge_array_range_is_rejected_not_expanded() -> None:
    [item] = slurm.parse(lines(row_with(JobID="5_[0-999999999999]")), cluster="c")
    assert isinstance(item, Rejected) and "more than" in item.reason


# --- golden: XDMoD and APEL files in ../shared ------------------------------------------------


def _xdmod_epoch(dt: datetime | None) -> int | None:
    return None if dt is None else int(dt.timestamp())


@requires_shared
def test_xdmod_accounting_logs_match_expected_output() -> None:
    items = parse_file(SLURM / "xdmod_input_accounting-logs.log")
    expected = json.loads((SLURM / "xdmod_output_accounting-logs.json").read_text())
    got = jobs(items)
    assert len(got) == len(expected) == len(items)
    for job, exp in zip(got, expected, strict=True):
        assert job.job_id == exp["job_id"]
        assert job.array_index == exp["job_array_index"]
        assert (job.user, job.group, job.account) == (exp["user_name"], exp["group_name"], exp["account_name"])
        assert (job.queue, job.qos) == (exp["partition_name"], exp["qos_name"])
        assert _xdmod_epoch(job.submit) == exp["submit_time"]
        assert _xdmod_epoch(job.eligible) == exp["eligible_time"]
        assert _xdmod_epoch(job.start) == exp["start_time"]
        assert _xdmod_epoch(job.end) == exp["end_time"]
        assert job.wall_s == exp["elapsed"]
        assert job.nodes == int(exp["nnodes"]) and job.cores == int(exp["ncpus"])
        assert job.gpus == exp["ngpus"]
        assert job.req_walltime_s == exp["timelimit"]
        assert job.node_list == exp["node_list"] and job.name == exp["job_name"]
        assert job.state == exp["state"].split()[0]


@requires_shared
def test_xdmod_job_arrays_expand_as_expected() -> None:
    items = parse_file(SLURM / "xdmod_input_accounting-logs-with-job-arrays.log")
    expected = json.loads((SLURM / "xdmod_output_accounting-logs-with-job-arrays.json").read_text())
    by_line: dict[int, list[int]] = {}
    for job in jobs(items):
        assert job.job_id == "4103947"
        by_line.setdefault(job.line, []).append(job.array_index)
    assert [by_line[n] for n in sorted(by_line)] == expected
    assert counts(items).read == sum(len(e) for e in expected)


@requires_shared
def test_xdmod_non_ended_and_unknown_states_are_skipped() -> None:
    non_ended = parse_file(SLURM / "xdmod_input_non-ended-job-state.log")
    assert non_ended == [Skipped(1, "not ended: RUNNING"), Skipped(2, "not ended: PENDING")]
    unknown = parse_file(SLURM / "xdmod_input_unknown-job-state.log")
    assert unknown == [Skipped(1, "unknown state: FOO"), Skipped(2, "unknown state: BAR")]


@requires_shared
def test_xdmod_utf8_names() -> None:
    [job] = jobs(parse_file(SLURM / "xdmod_input_utf8-multibyte-chars.log"))
    assert job.name == json.loads((SLURM / "xdmod_output_utf8-multibyte-chars.json").read_text())[0]["job_name"]
    [mortorq] = jobs(parse_file(SLURM / "xdmod_post_mortorq.log"))
    # the file spells "schón" with a combining accent (NFD); the parser keeps the text as written
    assert (mortorq.user, unicodedata.normalize("NFC", mortorq.name)) == ("façade", "schón Straße")
    assert mortorq.req_mem_mb == 16 * 4000  # 2147487648Mn; ReqTRES says mem=62.50G = 64000M


@requires_shared
def test_xdmod_alloc_tres_gpu_counts() -> None:
    for tres, gpus in json.loads((SLURM / "xdmod_expected_alloc-tres-gpu-count.json").read_text()):
        assert slurm.gpus_from_tres(tres) == gpus, tres


@requires_shared
def test_phillips_reproduces_xdmod_reference_figures() -> None:
    """XDMoD's aggregate figures for phillips.log (README §1).

    Window rule: a job counts when its End lies in [2016-12-22T00:00Z, 2017-01-02T00:00Z),
    i.e. the end *date* (UTC) is within 2016-12-22..2017-01-01 inclusive.  Every record
    in the file ends inside that window, so the 4,046 comes entirely from what is not
    a job: the 239 ``CANCELLED by 330719`` rows with NodeList ``None assigned`` (they
    carry Start == End ~10 h after submit: counting them would add ~2,400 wait hours).
    Core-hours use allocated CPUs (NCPUS) x (End - Start); no clipping to the window is
    needed because all jobs start after the window opens.
    """
    items = parse_file(SLURM / "xdmod_referencedata_phillips.log")
    c = counts(items)
    assert c.read == 4285 and c.rejected == 0
    assert c.skipped_reasons == {"never ran (no nodes assigned)": 239}
    lo = datetime(2016, 12, 22, tzinfo=UTC)
    hi = datetime(2017, 1, 1, tzinfo=UTC) + timedelta(days=1)
    ended = [j for j in jobs(items) if j.end is not None and lo <= j.end < hi]
    reference = json.loads((SLURM / "xdmod_referencedata_phillips.expected.json").read_text())
    expected = {k: v["value"] for k, v in reference.items()}
    assert len(ended) == expected["job_count"] == 4046
    assert sum(j.core_hours for j in ended) == pytest.approx(expected["total_cpu_hours"], abs=5e-4)
    assert sum(j.wall_s for j in ended) / 3600 == pytest.approx(expected["total_wallduration_hours"], abs=5e-4)
    wait = sum((j.start - j.submit).total_seconds() for j in ended if j.start and j.submit) / 3600
    assert wait == pytest.approx(expected["total_waitduration_hours"], abs=5e-4)
    assert sum(j.nodes * j.wall_s for j in ended) / 3600 == pytest.approx(expected["total_node_hours"], abs=5e-4)
    assert sum(j.gpus * j.wall_s for j in ended) / 3600 == pytest.approx(expected["total_gpu_hours"], abs=5e-4)
    assert len({j.user for j in ended}) == expected["active_person_count"] == 4
    assert max(j.cores for j in ended) == expected["max_processors"]
    assert min(j.cores for j in ended) == expected["min_processors"]


APEL_HEADER = "|".join(slurm.APEL_FIELDS)


@requires_shared
@pytest.mark.parametrize("with_header", [True, False])
def test_apel_layout_valid_records(with_header: bool) -> None:
    raw = (SLURM / "apel_test_slurm_records.txt").read_bytes().splitlines(keepends=True)
    if with_header:
        raw = [APEL_HEADER.encode() + b"\n", *raw]
    london = ZoneInfo("Europe/London")
    items = list(slurm.parse(raw, cluster="apel", tz=london))
    assert len(items) == 8
    expected = json.loads((SLURM / "apel_test_slurm_expected.json").read_text())["records"]
    offset = 1 if with_header else 0
    for exp, item in zip(expected, items, strict=True):
        e = exp["expected"]
        if "." in e["JobName"]:
            # a batch step: the job it belongs to carries the allocation, so it is not a job
            assert item == Skipped(exp["record_index"] + 1 + offset, "job step")
            continue
        assert isinstance(item, JobRecord)
        assert item.job_id == e["JobName"]  # APEL's "JobName" is the sacct JobID
        assert (item.user, item.group, item.queue) == (e["LocalUserID"], e["LocalUserGroup"], e["Queue"])
        assert item.wall_s == e["WallDuration"]
        start = datetime.fromisoformat(e["StartTime"]["local_naive"]).replace(tzinfo=london)
        stop = datetime.fromisoformat(e["StopTime"]["local_naive"]).replace(tzinfo=london)
        assert (item.start, item.end) == (start, stop)
        assert (item.cores, item.nodes) == (e["Processors"], e["NodeCount"])
        if item.cpu_time_s is not None:  # TotalCPU in the CPUTimeRAW column
            assert round(item.cpu_time_s) == e["CpuDuration"]
        else:  # a true CPUTimeRAW is allocated time: cores x wall, which is what APEL reports
            assert item.cores * item.wall_s == e["CpuDuration"]


@requires_shared
def test_apel_invalid_records_never_crash() -> None:
    raw = (SLURM / "apel_test_slurm_invalid_records.txt").read_bytes().splitlines(keepends=True)
    items = list(slurm.parse(raw, cluster="apel"))
    assert items == [Skipped(n, "job step") for n in range(1, 6)]
    # read as jobs (step suffix removed) the malformed ones are rejected with a reason
    as_jobs = [line.replace(b".batch", b"") for line in raw]
    items = list(slurm.parse(as_jobs, cluster="apel"))
    assert [type(i).__name__ for i in items] == ["JobRecord", "JobRecord", "Rejected", "Rejected", "Rejected"]
    reasons = [i.reason for i in items if isinstance(i, Rejected)]
    assert reasons[0] == "field 12 (MaxRSS): '20H' is not a memory size"
    assert "before Start" in reasons[1]
    assert reasons[2] == "field 7 (CPUTimeRAW): '-16' is negative"


@requires_shared
def test_all_shared_slurm_logs_count_up() -> None:
    for path in sorted(SLURM.glob("*.log")) + sorted(SLURM.glob("apel_*.txt")):
        c = counts(parse_file(path))
        assert c.read == c.jobs + c.skipped + c.rejected, path.name
        assert c.rejected == 0 or path.name.startswith("apel"), path.name
