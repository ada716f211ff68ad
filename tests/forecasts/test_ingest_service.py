"""Accounting ingestion end to end on real PostgreSQL: counts add up, nothing twice, nothing lost."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import Sum

from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from forecasts.accounting.org import mappings_import_csv
from forecasts.accounting.parsers.synth import slurm_lines
from forecasts.models import Department, IngestRejection, IngestRun, Job, Project, UsageMonthly
from tests.helpers import database_url_of_test_db
from tests.shared import SHARED_DATA, requires_shared

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "fixtures" / "samples"
SAMPLE_FILES = {
    "slurm": "slurm_sample.txt", "slurm-json": "slurm_sample.json", "lsf": "lsf_sample.acct",
    "pbs": "pbs_sample.log", "sge": "sge_sample.accounting", "uge": "uge_sample.accounting",
    "swf": "swf_sample.swf",
}


def ingest(fmt: str, *paths: Path, cluster: str = "test") -> IngestRun:
    return ingest_run_execute(ingest_run_create(cluster_name=cluster, fmt=fmt, paths=list(paths)).pk)


def assert_adds_up(run: IngestRun) -> None:
    assert run.status == IngestRun.Status.COMPLETED
    assert run.records_read == run.jobs_ingested + run.duplicates + run.skipped + run.rejected
    assert run.rejected == IngestRejection.objects.filter(run=run).count()


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", sorted(SAMPLE_FILES))
def test_every_sample_format_loads_and_its_counts_add_up(fmt: str) -> None:
    run = ingest(fmt, SAMPLES / SAMPLE_FILES[fmt])
    assert_adds_up(run)
    assert run.jobs_ingested > 0
    assert Job.objects.filter(ingest_run=run).count() == run.jobs_ingested
    stored = Job.objects.filter(ingest_run=run).aggregate(s=Sum("core_hours"))["s"]
    assert stored == pytest.approx(run.core_hours)
    # the rollups hold exactly what the jobs hold
    rolled = UsageMonthly.objects.filter(cluster=run.cluster).aggregate(j=Sum("jobs"), c=Sum("core_hours"))
    assert rolled["j"] == run.jobs_ingested
    assert rolled["c"] == pytest.approx(run.core_hours)


@pytest.mark.django_db
@requires_shared
def test_phillips_reproduces_xdmods_figures_and_loading_it_again_adds_nothing() -> None:
    path = SHARED_DATA / "slurm" / "xdmod_referencedata_phillips.log"
    out = StringIO()
    call_command("ingest_accounting", "--format", "slurm", "--cluster", "phillips", str(path), stdout=out)
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["jobs_ingested"] == 4046
    assert summary["core_hours"] == pytest.approx(11767.9883, abs=1e-3)
    assert summary["records_read"] == summary["jobs_ingested"] + summary["duplicates"] + summary["skipped"] + \
        summary["rejected"]
    for key in ("records_read", "jobs_ingested", "duplicates", "skipped", "rejected", "core_hours",
                "first_start", "last_end", "seconds"):
        assert key in summary
    again = ingest("slurm", path, cluster="phillips")
    assert_adds_up(again)
    assert again.jobs_ingested == 0 and again.duplicates == 4046
    assert Job.objects.filter(cluster__name="phillips").count() == 4046
    totals = UsageMonthly.objects.filter(cluster__name="phillips").aggregate(c=Sum("core_hours"), j=Sum("jobs"))
    assert totals["j"] == 4046
    assert totals["c"] == pytest.approx(11767.9883, abs=1e-3)


@pytest.mark.django_db
def test_an_overlapping_file_adds_only_the_new_jobs(tmp_path: Path) -> None:
    lines = list(slurm_lines(3000, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 3, 1, tzinfo=UTC)))
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("".join(lines[:2000]))
    second.write_text("".join(lines[1000:]))
    a = ingest("slurm", first)
    b = ingest("slurm", second)
    assert_adds_up(a)
    assert_adds_up(b)
    assert (a.jobs_ingested, b.jobs_ingested, b.duplicates) == (2000, 1000, 1000)


@pytest.mark.django_db
def test_compressed_files_are_detected_from_their_content(tmp_path: Path) -> None:
    raw = (SAMPLES / "slurm_sample.txt").read_bytes()
    (tmp_path / "log.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "log.data").write_bytes(bz2.compress(raw))  # no telling suffix
    plain = ingest("slurm", SAMPLES / "slurm_sample.txt", cluster="plain")
    gz = ingest("slurm", tmp_path / "log.gz", cluster="gz")
    bz = ingest("slurm", tmp_path / "log.data", cluster="bz")
    assert plain.jobs_ingested == gz.jobs_ingested == bz.jobs_ingested > 0


@pytest.mark.django_db
def test_bad_lines_are_kept_with_file_line_and_reason_and_the_rest_loads(tmp_path: Path) -> None:
    good = list(slurm_lines(50, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 2, 1, tzinfo=UTC)))
    bad = good[:10] + ["this is not a sacct line at all\n", good[10].replace("2024-", "20x4-", 1)] + good[11:]
    path = tmp_path / "mixed.txt"
    path.write_text("".join(bad))
    run = ingest("slurm", path)
    assert_adds_up(run)
    assert run.jobs_ingested == 49 and run.rejected == 2
    rejections = list(IngestRejection.objects.filter(run=run).order_by("line"))
    assert [r.line for r in rejections] == [11, 12]
    assert rejections[0].file.name == "mixed.txt"
    assert "not a sacct line" in rejections[0].raw
    assert rejections[1].reason


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", sorted(SAMPLE_FILES))
def test_nul_bytes_and_broken_utf8_in_a_log_are_rejected_or_stored_and_the_rest_loads(fmt: str,
                                                                                     tmp_path: Path) -> None:
    """PostgreSQL text cannot hold NUL or lone surrogates: damaged lines never fail the run."""
    sample = (SAMPLES / SAMPLE_FILES[fmt]).read_bytes()
    clean = ingest(fmt, SAMPLES / SAMPLE_FILES[fmt], cluster=f"clean-{fmt}")
    damage = b"\x00\x00job\x00|\xff\xfe|\xed\xa0\x80|" + bytes(range(256)) + b"\n"
    path = tmp_path / f"damaged-{SAMPLE_FILES[fmt]}"
    # the damage on lines of its own: a sample without a final newline (pbs) would otherwise end its last job with
    # it, and that job is then damaged too (this test passed on that one only while the staging table kept the
    # clean run's rows, which the damaged run loaded again)
    ending = b"" if sample.endswith(b"\n") else b"\n"
    path.write_bytes(sample + ending + damage + b"\x00" * 30 + b"\n")
    run = ingest(fmt, path, cluster=f"damaged-{fmt}")
    assert run.status in (IngestRun.Status.COMPLETED, IngestRun.Status.NOTHING_LOADED), run.error
    assert_adds_up(run)
    assert run.jobs_ingested == clean.jobs_ingested  # every good job of the sample still loads
    for r in IngestRejection.objects.filter(run=run):
        assert "\x00" not in r.raw and "\x00" not in r.reason


@pytest.mark.django_db
def test_command_fails_with_a_one_line_reason() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unknown accounting format 'nope'"):
        call_command("ingest_accounting", "--format", "nope", "--cluster", "x", str(SAMPLES / "slurm_sample.txt"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("ingest_accounting", "--format", "slurm", "--cluster", "x", "/nonexistent/log")


@pytest.mark.django_db
def test_a_mapping_added_later_reattributes_usage_without_rereading_logs(tmp_path: Path) -> None:
    genomics = Department.objects.create(code="ggs", name="Genetics and Genomic Sciences")
    Project.objects.create(name="autism-wgs", department=genomics)
    path = tmp_path / "jobs.txt"
    path.write_text("".join(slurm_lines(400, start=datetime(2024, 1, 1, tzinfo=UTC),
                                        end=datetime(2024, 4, 1, tzinfo=UTC))))
    ingest("slurm", path)
    before = UsageMonthly.objects.filter(identity__account="autism-wgs").aggregate(c=Sum("core_hours"))["c"]
    assert before > 0
    assert not UsageMonthly.objects.filter(department=genomics).exists()  # all Unassigned so far
    result = mappings_import_csv("kind,name,department,project,valid_from,valid_to\n"
                                 "account,autism-wgs,,autism-wgs,,\n"
                                 "account,nobody,no-such-dept,,,\n")
    assert (result.created, result.rejected) == (1, 1)
    assert "line 3" in result.errors[0]
    moved = UsageMonthly.objects.filter(department=genomics).aggregate(c=Sum("core_hours"))["c"]
    assert moved == pytest.approx(before)
    assert Job.objects.count() == 400  # jobs untouched: only rollups were re-attributed


@pytest.mark.django_db
def test_dated_mappings_follow_people_who_move(tmp_path: Path) -> None:
    a = Department.objects.create(code="a", name="A")
    b = Department.objects.create(code="b", name="B")
    path = tmp_path / "jobs.txt"
    path.write_text("".join(slurm_lines(600, start=datetime(2024, 1, 1, tzinfo=UTC),
                                        end=datetime(2024, 7, 1, tzinfo=UTC))))
    ingest("slurm", path)
    user = UsageMonthly.objects.values_list("identity__user", flat=True).first()
    mappings_import_csv("kind,name,department,project,valid_from,valid_to\n"
                        f"user,{user},a,,2024-01-01,2024-03-31\nuser,{user},b,,2024-04-01,\n")
    months = dict(UsageMonthly.objects.filter(identity__user=user).values_list("month", "department__code")
                  .distinct())
    assert {code for month, code in months.items() if month.month <= 3} <= {"a"}
    assert {code for month, code in months.items() if month.month >= 4} <= {"b"}
    assert a and b


@pytest.mark.django_db(transaction=True)
def test_a_killed_ingest_leaves_no_half_batch_and_resumes_to_the_same_totals(tmp_path: Path) -> None:
    n = 160_000  # several batches of 50,000
    path = tmp_path / "big.txt"
    path.write_text("".join(slurm_lines(n, start=datetime(2023, 1, 1, tzinfo=UTC),
                                        end=datetime(2024, 1, 1, tzinfo=UTC))))
    run = ingest_run_create(cluster_name="killed", fmt="slurm", paths=[path])
    env = {**os.environ, "DATABASE_URL": database_url_of_test_db()}
    proc = subprocess.Popen([sys.executable, "manage.py", "ingest_accounting", "--format", "slurm",
                             "--cluster", "killed", "--resume", str(run.pk)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.records_read > 0:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # mid-run, as a worker killed by the OOM killer would be
    proc.wait()
    run.refresh_from_db()
    assert 0 < run.records_read < n, "the kill should land between batches"
    assert run.records_read % 50_000 == 0  # only whole batches were committed
    assert Job.objects.filter(cluster__name="killed").count() == run.jobs_ingested
    resumed = ingest_run_execute(run.pk)
    assert_adds_up(resumed)
    assert (resumed.records_read, resumed.jobs_ingested, resumed.duplicates) == (n, n, 0)
    assert Job.objects.filter(cluster__name="killed").count() == n
    assert UsageMonthly.objects.filter(cluster__name="killed").aggregate(j=Sum("jobs"))["j"] == n


@pytest.mark.worker
def test_a_real_worker_runs_an_ingest_task(live_worker: Any, planner_user: Any) -> None:
    from forecasts.tasks import ingest_accounting
    from planner.jobs.services import job_start
    from tests.helpers import wait_for_job

    run = ingest_run_create(cluster_name="viaworker", fmt="lsf", paths=[SAMPLES / "lsf_sample.acct"])
    job = job_start(kind="ingest", label="test", task=ingest_accounting.s(run_id=run.pk), user=planner_user)
    finished = wait_for_job(job.pk, timeout_s=60)
    assert finished.status == "succeeded", finished.message
    run.refresh_from_db()
    assert_adds_up(run)
    assert finished.result["jobs_ingested"] == run.jobs_ingested


@pytest.mark.django_db
def test_import_mappings_command_reports_bad_rows_and_loads_the_rest(tmp_path: Path) -> None:
    Department.objects.create(code="ggs", name="Genetics and Genomic Sciences")
    path = tmp_path / "map.csv"
    path.write_text("kind,name,department,project,valid_from,valid_to\nuser,alice,ggs,,,\nplanet,x,ggs,,,\n")
    out, err = StringIO(), StringIO()
    call_command("import_mappings", str(path), stdout=out, stderr=err)
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (summary["read"], summary["created"], summary["rejected"]) == (2, 1, 1)
    assert "map.csv, line 3" in err.getvalue()


def test_committed_ranges_merge_and_read_the_older_count_form() -> None:
    from forecasts.accounting.load import committed_ranges

    assert committed_ranges({"0": 100}, 0) == [(0, 100)]
    assert committed_ranges({"0": [[200, 300], [0, 100], [100, 150]]}, 0) == [(0, 150), (200, 300)]
    assert committed_ranges({}, 3) == []


@pytest.mark.django_db
def test_a_run_whose_batches_committed_out_of_order_resumes_exactly(tmp_path: Path, monkeypatch: Any) -> None:
    from forecasts.accounting import load as service

    monkeypatch.setattr(service, "BATCH_RECORDS", 1000)
    n = 3500
    path = tmp_path / "jobs.txt"
    lines = slurm_lines(n, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 3, 1, tzinfo=UTC))
    path.write_text("".join(lines))
    run = ingest_run_create(cluster_name="gaps", fmt="slurm", paths=[path])
    run = IngestRun.objects.select_related("cluster").get(pk=run.pk)
    batches = list(service._batches(run, list(run.files.all())))
    assert [(b.start_record, b.end_record) for b in batches] == [(0, 1000), (1000, 2000), (2000, 3000), (3000, 3500)]
    # the second loader got ahead: batches 2 and 4 committed, 1 and 3 were lost with the worker
    for batch in (batches[1], batches[3]):
        service._load_batch(run.pk, run.cluster_id, batch, service.unassigned_department().pk)
    resumed = ingest_run_execute(run.pk)
    assert_adds_up(resumed)
    assert (resumed.records_read, resumed.jobs_ingested, resumed.duplicates) == (n, n, 0)
    assert Job.objects.filter(cluster__name="gaps").count() == n


@pytest.mark.django_db
def test_a_batch_with_repeats_falls_back_to_the_checked_insert_and_the_next_clean_one_goes_plain(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The loader tries a plain INSERT first; a repeat (here inside one batch, and one already
    stored) is refused by the unique key, undone to a savepoint and redone with ON CONFLICT."""
    from forecasts.accounting import load as service

    monkeypatch.setattr(service, "BATCH_RECORDS", 1000)
    lines = list(slurm_lines(2500, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 3, 1, tzinfo=UTC)))
    ingest("slurm", _write(tmp_path / "first.txt", lines[:10]), cluster="opt")
    # batch 1: 990 new, 10 already stored, 1 repeated inside the batch; batch 2 and 3: all new
    path = _write(tmp_path / "jobs.txt", lines[:999] + [lines[500]] + lines[999:])
    run = IngestRun.objects.select_related("cluster").get(
        pk=ingest_run_create(cluster_name="opt", fmt="slurm", paths=[path]).pk)
    batches = list(service._batches(run, list(run.files.all())))
    assert len(batches) == 3
    mode = {"optimistic": True}
    unassigned = service.unassigned_department().pk
    service._load_batch(run.pk, run.cluster_id, batches[0], unassigned, mode)
    assert mode == {"optimistic": False}  # refused, redone checked; it found repeats, so stay checked
    service._load_batch(run.pk, run.cluster_id, batches[1], unassigned, mode)
    assert mode == {"optimistic": True}  # a clean checked batch: back to the plain insert
    service._load_batch(run.pk, run.cluster_id, batches[2], unassigned, mode)
    assert mode == {"optimistic": True}
    run = ingest_run_execute(run.pk)  # every batch is committed: completing it reads and adds nothing
    assert_adds_up(run)
    assert (run.records_read, run.jobs_ingested, run.duplicates) == (2501, 2490, 11)
    assert Job.objects.filter(cluster__name="opt").count() == 2500
    usage = UsageMonthly.objects.filter(cluster__name="opt").aggregate(n=Sum("jobs"))["n"]
    assert usage == 2500  # the refused attempt left nothing in the rollups either


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines))
    return path


@pytest.mark.django_db(transaction=True)
def test_a_big_run_parses_in_its_own_process_with_the_same_result(tmp_path: Path, monkeypatch: Any) -> None:
    from forecasts.accounting import load as service

    monkeypatch.setattr(service, "PARSE_PROCESS_MIN_BYTES", 0)
    monkeypatch.setattr(service, "BATCH_RECORDS", 700)
    lines = list(slurm_lines(3000, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 3, 1, tzinfo=UTC)))
    lines.insert(1234, "this|is|not|a|job\n")
    path = _write(tmp_path / "jobs.txt", lines)
    seen: list[tuple[int, int | None]] = []
    run = ingest_run_execute(ingest_run_create(cluster_name="proc", fmt="slurm", paths=[path]).pk,
                             progress=lambda done, total: seen.append((done, total)))
    assert_adds_up(run)
    assert (run.records_read, run.jobs_ingested, run.rejected) == (3001, 3000, 1)
    assert IngestRejection.objects.get(run=run).line == 1235
    assert seen[-1][0] == 3001 and all(total for _, total in seen)
    again = ingest("slurm", path, cluster="proc")
    assert (again.jobs_ingested, again.duplicates) == (0, 3000)


@pytest.mark.django_db(transaction=True)
def test_a_parser_process_failure_fails_the_run_with_its_reason(tmp_path: Path, monkeypatch: Any) -> None:
    from forecasts.accounting import load as service

    monkeypatch.setattr(service, "PARSE_PROCESS_MIN_BYTES", 0)
    path = tmp_path / "jobs.txt.gz"
    path.write_bytes(gzip.compress("".join(slurm_lines(2000, start=datetime(2024, 1, 1, tzinfo=UTC),
                                                       end=datetime(2024, 2, 1, tzinfo=UTC))).encode())[:-4000])
    run = ingest_run_create(cluster_name="proc", fmt="slurm", paths=[path])
    with pytest.raises(Exception):  # noqa: B017 - whatever the decompressor raises, the run says it
        ingest_run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FAILED
    assert "gzip" in run.error.lower() or "compressed" in run.error.lower() or "eof" in run.error.lower(), run.error


@pytest.mark.django_db
def test_a_batch_inside_a_callers_transaction_leaves_its_planner_settings_behind(tmp_path: Path) -> None:
    """SET LOCAL lasts to the end of the outermost transaction: the loader puts the caller's
    settings back, or every later query of that transaction would run without nested loops."""
    from django.db import connection

    def settings() -> tuple[str, ...]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('enable_nestloop'), current_setting('work_mem'),"
                           " current_setting('synchronous_commit')")
            return cursor.fetchone()

    before = settings()
    lines = slurm_lines(200, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 2, 1, tzinfo=UTC))
    run = ingest("slurm", _write(tmp_path / "jobs.txt", list(lines)), cluster="settings")
    assert run.jobs_ingested == 200
    assert settings() == before


@pytest.mark.django_db
def test_two_loads_inside_one_transaction_store_each_file_once_under_its_own_cluster(tmp_path: Path) -> None:
    """The staging table empties on commit; a caller's transaction around two loads (a test, a wrapping
    request) left the first file's rows there, and the second load stored them again under its cluster."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("".join(slurm_lines(50, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 2, 1,
                                                                                                   tzinfo=UTC))))
    second.write_text("".join(slurm_lines(30, start=datetime(2024, 3, 1, tzinfo=UTC), end=datetime(2024, 4, 1,
                                                                                                    tzinfo=UTC),
                                          seed=2, first_job_id=5_000_000)))
    ingest_run_execute(ingest_run_create(cluster_name="one", fmt="slurm", paths=[first]).pk)
    ingest_run_execute(ingest_run_create(cluster_name="two", fmt="slurm", paths=[second]).pk)
    assert Job.objects.filter(cluster__name="one").count() == 50
    assert Job.objects.filter(cluster__name="two").count() == 30
