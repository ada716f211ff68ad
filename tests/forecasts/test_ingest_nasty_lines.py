"""Every accounting parser fed one file of good records mixed with the nastiest bad ones (QA, session 27): a byte-order
mark, CRLF line ends, a NUL byte, 1e309 / NaN / -0, a year-9999 end, times before 1970, an end before the start,
numbers too large for their column, and a last record cut mid-field with no line break. Every good record is stored,
every bad one rejected with its line and reason, and read = stored + duplicates + skipped + rejected.

Found by this file and fixed: a byte-order mark hid the Slurm header (every record rejected); 99999999999999999999
nodes failed the whole run with PostgreSQL's "integer out of range" (a traceback); an end in year 9999 was stored as
a job of 3 billion core-hours and 1969 times as jobs; LSF and PBS stored a job that ended before it started; an SGE
record with one time in seconds and another in milliseconds was read all in milliseconds (a job of 1970 that ran 8
years); a JSON 1e309 said Python's "cannot convert float infinity to integer"."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from forecasts.accounting.models import IngestRun, Job
from tests.helpers import login, wait_for_job

pytestmark = pytest.mark.django_db
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"
BOM = "\ufeff"


def _ingest(tmp_path: Path, fmt: str, text: str, name: str) -> IngestRun:
    path = tmp_path / name
    path.write_bytes(text.encode())
    out = io.StringIO()
    call_command("ingest_accounting", "--format", fmt, "--cluster", "nasty", str(path), stdout=out,
                 stderr=io.StringIO())
    summary = json.loads(out.getvalue().splitlines()[-1])
    assert summary["status"] == "completed", summary
    run = IngestRun.objects.get(pk=summary["run"])
    assert run.records_read == run.jobs_ingested + run.duplicates + run.skipped + run.rejected
    return run


def _check(run: IngestRun, stored: set[str], rejected: dict[int, str]) -> None:
    assert set(Job.objects.filter(ingest_run=run).values_list("job_id", flat=True)) == stored
    reasons = dict(run.rejections.values_list("line", "reason"))
    assert set(reasons) == set(rejected), reasons
    for line, expected in rejected.items():
        assert expected in reasons[line], (line, reasons[line])
    for job in Job.objects.filter(ingest_run=run):  # nothing absurd stored
        assert job.wall_s >= 0 and job.core_hours < 1e6 and job.end.year < 2100 and job.start.year >= 1970


SLURM_HEAD = ("JobID|State|User|Group|Account|Partition|QOS|Submit|Start|End|NCPUS|NNodes|ReqMem|AllocTRES|Timelimit|"
              "NodeList|MaxRSS|TotalCPU|ExitCode|JobName")


def _slurm(jid: int, submit: str = "2024-03-31T00:30:00", start: str = "2024-03-31T00:45:00",
           end: str = "2024-03-31T03:15:00", ncpus: str = "48", nnodes: str = "1", reqmem: str = "180G",
           name: str = "sim") -> str:
    return (f"{jid}|COMPLETED|dave|astro|astro|compute|normal|{submit}|{start}|{end}|{ncpus}|{nnodes}|{reqmem}|"
            f"billing=48,cpu=48,mem=180G,node=1|1-00:00:00|node[001]|1.40G|2-00:00:00|0:0|{name}")


def test_slurm(tmp_path: Path, departments: Any) -> None:
    rows = [_slurm(1001), _slurm(1002) + "\r", _slurm(1003, name="a\x00b"), _slurm(1004, ncpus="1e309"),
            _slurm(1005, ncpus="NaN"), _slurm(1006, ncpus="-0"), _slurm(1007, end="9999-12-31T23:59:59"),
            _slurm(1008, submit="1969-01-01T00:00:00", start="1969-01-01T00:00:00", end="1969-01-01T03:00:00"),
            _slurm(1009, start="2024-03-31T05:00:00"), _slurm(1010, reqmem="1e309G"),
            _slurm(1011, nnodes="99999999999999999999"), _slurm(1012), _slurm(1013)[:60]]
    run = _ingest(tmp_path, "slurm", BOM + SLURM_HEAD + "\r\n" + "\n".join(rows), "sacct.txt")
    _check(run, {"1001", "1002", "1003", "1006", "1012"}, {
        5: "'1e309' is not an integer", 6: "'NaN' is not an integer", 8: "is in the future",
        9: "before 1970", 10: "is before Start", 11: "req_mem_mb is not a finite number",
        12: "nodes 99999999999999999999 is out of range", 14: "fields as in the header, got 8"})
    assert Job.objects.get(job_id="1003").name == "ab"  # a NUL no database text can hold is dropped
    assert Job.objects.get(job_id="1006").cores == 0  # -0 cores: a job of unknown width


def test_lsf(tmp_path: Path, departments: Any) -> None:
    text = (SAMPLES / "lsf_sample.acct").read_text(errors="replace")
    base = next(ln for ln in text.splitlines() if ln.startswith('"JOB_FINISH" "10.1"'))
    tokens = re.findall(r'"[^"]*"|\S+', base)

    def row(jid: int, **at: str) -> str:
        t = list(tokens)
        t[3] = str(jid)
        for key, value in at.items():
            t[int(key[1:])] = value
        return " ".join(t)

    rows = [row(6001), row(6002) + "\r", row(6003, i2="1e309"), row(6004, i2="NaN"), row(6005, i6="-0"),
            row(6006, i6="99999999999999"), row(6007, i2="253402300799"),
            row(6008, i7="-100000", i10="-50000", i2="-1000"), row(6009, i10="1700009999"), row(6010),
            row(6011)[:120]]
    run = _ingest(tmp_path, "lsf", BOM + "\n".join(rows), "lsb.acct")
    _check(run, {"6001", "6002", "6005", "6010"}, {
        3: "'1e309' is not an epoch time", 4: "'NaN' is not an epoch time", 6: "cores 99999999999999 is out of range",
        7: "is in the future", 8: "'-50000' is not an epoch time", 9: "is before start",
        11: "unterminated quoted string"})


def test_pbs(tmp_path: Path, departments: Any) -> None:
    text = (SAMPLES / "pbs_sample.log").read_text(errors="replace")
    base = next(ln for ln in text.splitlines() if ";E;1001" in ln)

    def row(jid: int) -> str:
        return base.replace("1001.pbs01", f"{jid}.pbs01")

    end, ncpus = "end=1709290805", "Resource_List.ncpus=64 "
    rows = [row(7001), row(7002) + "\r", base.replace("1001.pbs01", "7003.pbs01").replace(end, "end=1e309"),
            base.replace("1001.pbs01", "7004.pbs01").replace(end, "end=NaN"),
            base.replace("1001.pbs01", "7005.pbs01").replace(ncpus, "Resource_List.ncpus=99999999999999 ")
            .replace("resources_used.ncpus=64", "resources_used.ncpus=99999999999999"),
            base.replace("1001.pbs01", "7006.pbs01").replace(end, "end=253402300799"),
            base.replace("1001.pbs01", "7007.pbs01").replace("start=1709283605", "start=1709299999"),
            row(7008)]
    run = _ingest(tmp_path, "pbs", BOM + "\n".join(rows) + "\n", "pbs_acct")  # PBS ends every line with a break
    _check(run, {"7001", "7002", "7008"}, {
        3: "'1e309' is not an epoch time", 4: "'NaN' is not an epoch time", 5: "cores 99999999999999 is out of range",
        6: "is in the future", 7: "is before start"})


def test_sge(tmp_path: Path, departments: Any) -> None:
    text = (SAMPLES / "sge_sample.accounting").read_text(errors="replace")
    fields = next(ln for ln in text.splitlines() if ":2001:" in ln).split(":")

    def row(jid: int, **at: str) -> str:
        f = list(fields)
        f[5] = str(jid)
        for key, value in at.items():
            f[int(key[1:])] = value
        return ":".join(f)

    rows = [row(8001), row(8002) + "\r", row(8003, i10="1e309"), row(8004, i10="NaN"), row(8005, i34="-0"),
            row(8006, i34="99999999999999"), row(8007, i10="253402300799"),
            row(8008, i8="-9000", i9="-5000", i10="-10"), row(8009, i9="1700009999"), row(8010), row(8011)[:90]]
    run = _ingest(tmp_path, "sge", BOM + "\n".join(rows), "accounting")
    _check(run, {"8001", "8002", "8005", "8010"}, {
        3: "'1e309' is not an epoch time", 4: "'NaN' is not an epoch time", 6: "cores 99999999999999 is out of range",
        7: "1700000000 is in seconds while another time of the record is in milliseconds",
        8: "'-9000' is not an epoch time", 9: "is before start", 11: "an SGE accounting record has at least 43"})


def test_swf(tmp_path: Path, departments: Any) -> None:
    def row(j: int, submit: str = "0", run: str = "3600", alloc: str = "4", req_time: str = "7200") -> str:
        return f"{j} {submit} 10 {run} {alloc} -1 -1 {alloc} {req_time} -1 1 3 1 -1 1 -1 -1 -1"

    rows = [row(1), row(2) + "\r", row(3, run="1e309"), row(4, run="NaN"), row(5, alloc="-0"),
            row(6, alloc="99999999999999"), row(7, submit="1e300"), row(8, req_time="1e30"), row(9), row(10)[:12],
            row(11, run="1e12")]
    head = "; UnixStartTime: 843480031\n; MaxNodes: 100\n; MaxProcs: 100\n"
    run = _ingest(tmp_path, "swf", BOM + head + "\n".join(rows), "trace.swf")
    _check(run, {"1", "2", "5", "9"}, {
        6: "'1e309' is not a number", 7: "'NaN' is not a number", 9: "cores 99999999999999 is out of range",
        10: "field 2 (submit time): '1e300' takes the job's times past the year 9999",
        11: "req_walltime_s 1000000000000000019884624838656 is out of range",
        13: "expected 18 whitespace-separated fields, got 4",
        14: "field 4 (run time): '1e12' takes the job's times past the year 9999"})


def test_slurm_json(tmp_path: Path, departments: Any) -> None:
    doc = json.loads((SAMPLES / "slurm_sample.json").read_text())
    base = doc["jobs"][0]

    def job(jid: int, **time: float) -> dict[str, Any]:
        j = copy.deepcopy(base)
        j["job_id"] = jid
        j["time"].update(time)
        return j

    doc["jobs"] = [job(9001), job(9002, end=float("inf")), job(9003, end=float("nan")), job(9004, end=253402300799),
                   job(9005, start=-5000, submission=-9000, eligible=-9000, end=-10), job(9006, start=1709290000),
                   job(9007)]
    run = _ingest(tmp_path, "slurm-json", BOM + json.dumps(doc), "sacct.json")  # Python writes Infinity and NaN
    _check(run, {"9001", "9007"}, {  # the record number, for JSON
        2: "time.end: inf is not a number", 3: "time.end: nan is not a number", 4: "is in the future",
        5: "before 1970", 6: "time.end 1709287500 is before time.start 1709290000"})


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_upload_page_detects_a_slurm_log_behind_a_byte_order_mark_and_rejects_its_bad_lines_alone(
        client: Any, planner_user: Any, live_worker: Any, settings: Any, tmp_path: Path, departments: Any) -> None:
    """The upload form's "detect" read the mark as part of the header and could not tell the format."""
    settings.UPLOAD_DIR = tmp_path / "uploads"
    rows = [_slurm(1001), _slurm(1002, end="9999-12-31T23:59:59"), _slurm(1003, nnodes="99999999999999999999"),
            _slurm(1004)]
    data = (BOM + SLURM_HEAD + "\r\n" + "\r\n".join(rows) + "\r\n").encode()
    login(client, planner_user)
    form = {"format": "detect", "cluster": "__new__", "new_cluster": "nasty", "timezone": ""}
    response = client.post(reverse("ingest-new"), {**form, "file": SimpleUploadedFile("sacct.txt", data)})
    assert response.status_code == 302
    run = IngestRun.objects.get()
    assert run.format == "slurm"
    job = wait_for_job(run.background_job_id)
    assert job.status == "succeeded", job.message
    run.refresh_from_db()
    _check(run, {"1001", "1004"}, {3: "is in the future", 4: "nodes 99999999999999999999 is out of range"})
    text = client.get(reverse("ingest-run", args=[run.pk])).content.decode()
    assert "4 read =" in text and "2 stored" in text and "2 rejected" in text and "adds up" in text
