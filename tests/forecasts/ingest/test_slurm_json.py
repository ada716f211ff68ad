"""Tests for forecasts.accounting.parsers.slurm_json (sacct --json), pure core: no Django."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forecasts.accounting.parsers import slurm_json
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, ParsedItem, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
SLURM = SHARED_DATA / "slurm"


def item_dict(item: ParsedItem) -> dict[str, object]:
    if isinstance(item, JobRecord):
        d = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in asdict(item).items()}
        d["kind"] = "job"
        return d
    if isinstance(item, Skipped):
        return {"kind": "skipped", "line": item.line, "reason": item.reason}
    return {"kind": "rejected", "line": item.line, "reason": item.reason}


def parse_bytes(data: bytes, cluster: str = "c") -> list[ParsedItem]:
    return list(slurm_json.parse(data.splitlines(keepends=True), cluster=cluster))


def test_sample_matches_golden() -> None:
    items = list(slurm_json.parse((SAMPLES / "slurm_sample.json").open("rb"), cluster=""))
    expected = json.loads((SAMPLES / "slurm_sample.json.expected.json").read_text(encoding="utf-8"))["items"]
    assert [item_dict(i) for i in items] == expected


def test_sample_values() -> None:
    items = list(slurm_json.parse((SAMPLES / "slurm_sample.json").open("rb"), cluster="x"))
    c = ParseCounts()
    for i in items:
        c.add(i)
    assert (c.read, c.jobs, c.skipped, c.rejected) == (9, 2, 6, 1)  # 7 jobs, one a 3-task pending range
    md, train = [i for i in items if isinstance(i, JobRecord)]
    assert md.cpu_time_s == pytest.approx(203500.5)  # job total is 0: summed from its steps
    assert md.used_mem_mb == 4096  # step max RSS in bytes
    assert md.req_walltime_s == 4 * 3600 and md.nodes == 2 and md.cores == 32
    assert (train.job_id, train.array_index) == ("930002", 3)
    assert train.gpus == 2  # generic gres/gpu, not doubled by the typed entry
    assert train.exit_status == 128 + 9
    assert train.cluster == "x"


def test_single_line_and_whole_document_chunks_agree() -> None:
    doc = (SAMPLES / "slurm_sample.json").read_bytes()
    compact = json.dumps(json.loads(doc)).encode()
    by_line = parse_bytes(doc)
    one_line = list(slurm_json.parse([compact], cluster="c"))
    by_byte_chunks = list(slurm_json.parse([compact[i : i + 7] for i in range(0, len(compact), 7)], cluster="c"))
    assert by_line == one_line == by_byte_chunks


def test_bare_array_and_empty_documents() -> None:
    job = {"job_id": 1, "state": {"current": "COMPLETED"}, "time": {"start": 10, "end": 70}, "nodes": "n1"}
    [rec] = parse_bytes(json.dumps([job]).encode())
    assert isinstance(rec, JobRecord) and rec.wall_s == 60
    assert parse_bytes(b'{"jobs": []}') == []
    assert parse_bytes(b"") == []


def test_malformed_documents_are_rejected_not_raised() -> None:
    [bad] = parse_bytes(b"not json")
    assert isinstance(bad, Rejected) and "expected one of '{'" in bad.reason
    cut = b'{"jobs": [{"job_id": 1, "state": "COMPLETED", "time": {"start": 1, "end": 2}, "nodes": "a"}, {"jo'
    items = parse_bytes(cut)
    assert isinstance(items[0], JobRecord) and isinstance(items[-1], Rejected)
    [neg] = parse_bytes(b'{"jobs": [{"job_id": 2, "state": "COMPLETED", "time": {"start": 9, "end": 2}}]}')
    assert isinstance(neg, Rejected) and "before time.start" in neg.reason


@requires_shared
@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("sarc_sacct_json_slurm_21_8_8.json", Skipped(1, "not ended: REQUEUED")),
        ("sarc_sacct_json_slurm_22_5_9.json", None),
        ("sarc_sacct_json_slurm_23_2_6.json", Skipped(1, "not ended: RUNNING")),
        ("sarc_sacct_json_slurm_23_11_5.json", Skipped(1, "not ended: RUNNING")),
    ],
)
def test_sarc_files_parse(name: str, outcome: Skipped | None) -> None:
    with (SLURM / name).open("rb") as handle:
        items = list(slurm_json.parse(handle, cluster=""))
    assert len(items) == 1
    if outcome is not None:
        assert items == [outcome]
    # whatever the state, the values read from every schema are sensible
    doc = json.loads((SLURM / name).read_text())
    [rec] = slurm_json.record_from_job(doc["jobs"][0], cluster="")
    assert rec.cluster in ("cedar", "narval", "mila")
    assert rec.cores > 0 and rec.nodes >= 1 and rec.gpus >= 1
    assert rec.req_mem_mb and rec.req_mem_mb >= 32768
    assert rec.req_walltime_s and rec.req_walltime_s >= 86400
    assert rec.submit is not None and rec.start is not None and rec.start >= rec.submit
    assert rec.user and rec.account and rec.queue and rec.qos == "normal"


@requires_shared
def test_sarc_22_05_array_element() -> None:
    with (SLURM / "sarc_sacct_json_slurm_22_5_9.json").open("rb") as handle:
        [rec] = list(slurm_json.parse(handle, cluster=""))
    assert isinstance(rec, JobRecord)
    assert (rec.job_id, rec.array_index, rec.state) == ("20247445", 100, "FAILED")
    assert (rec.cores, rec.nodes, rec.gpus, rec.req_mem_mb) == (96, 4, 16, 262144.0)
    assert rec.start == datetime.fromtimestamp(1693740641, UTC)
    assert rec.wall_s == 124403
    assert rec.req_walltime_s == 2880 * 60
