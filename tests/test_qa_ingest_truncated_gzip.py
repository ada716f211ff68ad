"""A gzip-compressed log cut short (a copy interrupted) lost every record of the batch in progress, named the
problem 'EOFError: Compressed file ended before the end-of-stream marker was reached' on the run and job pages,
and offered a Resume that stops at the same cut again.  The records before the cut are now loaded, the run
fails saying in words that the file is truncated and how many records were kept, and no resume is offered."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from forecasts.accounting.parsers.compression import TruncatedInput
from forecasts.accounting.parsers.producer import FileSpec, batches
from forecasts.accounting.parsers.synth import slurm_lines
from tests.helpers import login


def _truncated_gzip(tmp: Path, jobs: int = 3000) -> Path:
    data = "".join(slurm_lines(jobs, start=datetime(2023, 1, 1, tzinfo=UTC),
                               end=datetime(2023, 3, 1, tzinfo=UTC))).encode()
    packed = gzip.compress(data)
    path = tmp / "sacct.txt.gz"
    path.write_bytes(packed[: len(packed) // 2])
    return path


def test_the_records_before_the_cut_are_parsed_and_the_cut_is_named(tmp_path: Path) -> None:
    path = _truncated_gzip(tmp_path)
    got: list[Any] = []
    with pytest.raises(TruncatedInput) as caught:
        for batch in batches("slurm", "c", "UTC", 1, [FileSpec(1, 0, str(path))], 50_000):
            got.append(batch)
    read = sum(b.read for b in got)
    assert 500 < read < 3000
    assert sum(b.jobs for b in got) >= read - 1  # at most the cut line itself is refused
    message = str(caught.value)
    assert message.startswith("sacct.txt.gz: the file is truncated (compressed data ended early)")
    assert f"after {read:,} records" in message


def test_a_whole_gzip_file_reads_to_its_end_without_error(tmp_path: Path) -> None:
    path = tmp_path / "whole.txt.gz"
    path.write_bytes(gzip.compress("".join(slurm_lines(50, start=datetime(2023, 1, 1, tzinfo=UTC),
                                                       end=datetime(2023, 2, 1, tzinfo=UTC))).encode()))
    assert sum(b.jobs for b in batches("slurm", "c", "UTC", 1, [FileSpec(1, 0, str(path))], 1000)) == 50


@pytest.mark.django_db(transaction=True)
def test_a_truncated_upload_keeps_its_records_and_offers_no_resume(
        client: Any, planner_user: Any, tmp_path: Path) -> None:
    from forecasts.accounting.load import IngestError, ingest_run_create, ingest_run_execute
    from forecasts.accounting.selectors import run_resumable
    from forecasts.models import IngestRun, Job

    run = ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[_truncated_gzip(tmp_path)])
    with pytest.raises(IngestError, match="the file is truncated"):
        ingest_run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FAILED
    assert run.jobs_ingested > 500 and Job.objects.count() == run.jobs_ingested
    assert run.records_read == run.jobs_ingested + run.duplicates + run.skipped + run.rejected
    assert not run_resumable(run)
    assert "EOFError" not in run.error

    login(client, planner_user)
    page = client.get(reverse("ingest-run", args=[run.pk])).content.decode()
    assert "the file is truncated" in page
    assert reverse("ingest-resume", args=[run.pk]) not in page
    refused = client.post(reverse("ingest-resume", args=[run.pk]), follow=True)
    assert "cannot be resumed" in refused.content.decode()
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FAILED
