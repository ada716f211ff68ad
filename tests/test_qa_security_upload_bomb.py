"""A decompression bomb in the accounting upload: a gzip of a few hundred kilobytes whose first lines are
real sacct records and whose rest is one line of hundreds of megabytes without a line break (a few
gigabytes in an attack; the upload limit counts the compressed bytes).  The parser read it as one line,
holding all of it in memory (3 GB from a 14 MB upload, measured), so a worker could be killed by a
single upload and killed again at each retry.  Lines are now read with a bound: the run stops at the
over-long line, saying so with the file and line, keeps the records before it, and is not retried."""

from __future__ import annotations

import gzip
import resource
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from forecasts.accounting.parsers.compression import MAX_LINE_BYTES, LineTooLong
from forecasts.accounting.parsers.producer import FileSpec, batches
from forecasts.accounting.parsers.synth import slurm_lines
from tests.helpers import login, wait_for_job

RECORDS = 40
BOMB_LINE_BYTES = 8 * MAX_LINE_BYTES  # 128 MB decompressed, about 130 KB compressed


def _bomb(tmp: Path) -> Path:
    head = "".join(slurm_lines(RECORDS, start=datetime(2023, 1, 1, tzinfo=UTC), end=datetime(2023, 2, 1, tzinfo=UTC)))
    path = tmp / "sacct-2023-01.txt.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(head.encode())
        block = b"x" * (1 << 20)
        for _ in range(BOMB_LINE_BYTES // len(block)):
            out.write(block)
    assert path.stat().st_size < 1024**2
    return path


def test_the_parser_stops_at_the_over_long_line_without_holding_it(tmp_path: Path) -> None:
    path = _bomb(tmp_path)
    before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    got: list[Any] = []
    with pytest.raises(LineTooLong) as caught:
        for batch in batches("slurm", "c", "UTC", 1, [FileSpec(1, 0, str(path))], 50_000):
            got.append(batch)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_kb) / 1024
    assert grown_mb < BOMB_LINE_BYTES / 1024**2 / 2, f"the peak memory grew by {grown_mb:.0f} MB"
    assert sum(b.jobs for b in got) == RECORDS  # the records before the line are batched for loading
    assert str(caught.value).startswith(f"sacct-2023-01.txt.gz: line {RECORDS + 1:,} is longer than 16 MB")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_uploaded_bomb_fails_its_run_in_words_and_keeps_the_records_before_it(
        client: Any, planner_user: Any, live_worker: Any, tmp_path: Path, settings: Any) -> None:
    from forecasts.models import IngestRun, Job
    from planner.models import BackgroundJob

    settings.UPLOAD_DIR = tmp_path / "uploads"
    login(client, planner_user)
    form = {"format": "detect", "cluster": "__new__", "new_cluster": "minerva", "timezone": ""}
    bomb = _bomb(tmp_path)
    response = client.post(reverse("ingest-new"), {**form, "file": SimpleUploadedFile(bomb.name, bomb.read_bytes())})
    assert response.status_code == 302, response.content.decode()[:2000]
    job = wait_for_job(BackgroundJob.objects.get().pk, timeout_s=120)
    assert job.status == BackgroundJob.Status.FAILED
    assert f"line {RECORDS + 1:,} is longer than 16 MB" in job.message and "Traceback" not in job.message
    run = IngestRun.objects.get()
    assert run.status == IngestRun.Status.FAILED and "is longer than 16 MB" in run.error
    assert Job.objects.count() == RECORDS
    page = client.get(reverse("ingest-run", args=[run.pk])).content.decode()
    assert "is longer than 16 MB" in page and reverse("ingest-resume", args=[run.pk]) not in page


# Storage scans: the block reader carried an unterminated line forward, re-copying it on every 1 MB
# read, so the same bomb held the whole line in memory and took time quadratic in its length.

SCAN_HEAD = (Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "scan_find.tsv").read_bytes()


def _scan_bomb(tmp: Path, megabytes: int) -> Path:
    path = tmp / "scan-2013-09.tsv.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(SCAN_HEAD)
        block = b"/sc/orga/projects" * (1 << 16)
        for _ in range(megabytes):
            out.write(block[: 1 << 20])
    return path


def test_the_scan_reader_stops_at_an_over_long_line(tmp_path: Path) -> None:
    from forecasts.storage.scan.lines import MAX_LINE_BYTES as SCAN_MAX
    from forecasts.storage.scan.lines import ScanLineTooLong, iter_blocks

    lines_before = SCAN_HEAD.count(b"\n")
    with gzip.open(_scan_bomb(tmp_path, 2 * SCAN_MAX // (1 << 20) + 1), "rb") as stream, \
            pytest.raises(ScanLineTooLong) as caught:
        for _ in iter_blocks(stream):  # type: ignore[arg-type]
            pass
    assert str(caught.value).startswith(f"line {lines_before + 1:,} is longer than")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_uploaded_scan_bomb_fails_its_job_in_words(
        client: Any, planner_user: Any, live_worker: Any, tmp_path: Path, settings: Any) -> None:
    from forecasts.models import StorageSnapshot
    from planner.models import BackgroundJob

    settings.UPLOAD_DIR = tmp_path / "uploads"
    login(client, planner_user)
    bomb = _scan_bomb(tmp_path, 64)
    form = {"format": "tsv", "filesystem": "__new__", "new_filesystem": "gpfs-projects", "taken_on": "2013-09-01"}
    upload = SimpleUploadedFile(bomb.name, bomb.read_bytes())
    response = client.post(reverse("storage-upload"), {**form, "file": upload})
    assert response.status_code == 302, response.content.decode()[:2000]
    job = wait_for_job(BackgroundJob.objects.get().pk, timeout_s=120)
    assert job.status == BackgroundJob.Status.FAILED
    line = SCAN_HEAD.count(b"\n") + 1
    assert f"scan-2013-09.tsv.gz: line {line:,} is longer than 1 MB" in job.message, job.message
    assert StorageSnapshot.objects.get().status == StorageSnapshot.Status.FAILED


def test_a_sacct_json_value_that_never_ends_is_refused_not_held(tmp_path: Path) -> None:
    """sacct --json is read in pieces; one value (here a job name) that runs on for 80 MB was decoded
    by growing one string and retrying (400 MB of memory and 24 s for 200 MB, measured; quadratic)."""
    from forecasts.accounting.parsers.slurm_json import MAX_VALUE_CHARS

    path = tmp_path / "sacct.json.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(b'{"meta": {}, "jobs": [{"name": "')
        block = b"x" * (1 << 20)
        for _ in range(MAX_VALUE_CHARS // len(block) + 16):
            out.write(block)
    got = list(batches("slurm-json", "c", "UTC", 1, [FileSpec(1, 0, str(path))], 1000))
    assert sum(b.rejected for b in got) == 1
    assert "is longer than 64 MB without ending; the rest of the document is not read" in "".join(
        b.rejections for b in got)
