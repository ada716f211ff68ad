"""Loading accounting logs from the browser: upload, watch the job, read the run's summary."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.helpers import login, wait_for_job

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "slurm_sample.txt"
BAD_LINES = b"this is not an accounting record\nneither|is|this\n"


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _upload(client: Any, data: bytes, name: str = "sacct.txt", **fields: str) -> Any:
    form = {"format": "detect", "cluster": "__new__", "new_cluster": "minerva", "timezone": "", **fields}
    return client.post(reverse("ingest-new"), {**form, "file": SimpleUploadedFile(name, data)})


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_planner_uploads_a_slurm_log_and_lands_on_its_completed_run(
        client: Any, planner_user: Any, live_worker: Any, upload_dir: Path) -> None:
    from forecasts.models import IngestRun

    login(client, planner_user)
    response = _upload(client, SAMPLE.read_bytes(), name="slurm_sample.txt")
    assert response.status_code == 302
    run = IngestRun.objects.get()
    assert response["Location"] == reverse("job", args=[run.background_job_id])
    assert run.source == "upload" and run.format == "slurm" and run.created_by == planner_user
    stored = Path(run.files.get().path)
    assert stored.is_relative_to(upload_dir) and stored.read_bytes() == SAMPLE.read_bytes()

    job = wait_for_job(run.background_job_id)
    assert job.status == "succeeded", job.message
    assert job.result_url == reverse("ingest-run", args=[run.pk])
    run.refresh_from_db()
    assert run.status == "completed"
    assert (run.records_read, run.jobs_ingested, run.skipped, run.rejected, run.duplicates) == (15, 5, 8, 2, 0)

    page = client.get(job.result_url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "15 read =" in text and "adds up" in text
    assert "Download rejections CSV" in text

    listing = client.get(reverse("ingest-runs")).content.decode()
    assert "slurm_sample.txt" in listing and run.files.get().sha256[:12] in listing


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_failed_run_is_resumed_from_the_runs_list(client: Any, planner_user: Any, live_worker: Any,
                                                    tmp_path: Path) -> None:
    from forecasts.accounting.load import ingest_run_create
    from forecasts.models import IngestRun

    path = tmp_path / "sacct.txt"
    path.write_bytes(SAMPLE.read_bytes())
    run = ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[path], user=planner_user)
    IngestRun.objects.filter(pk=run.pk).update(status="failed", error="OperationalError: server closed the connection")
    login(client, planner_user)
    listing = client.get(reverse("ingest-runs")).content.decode()
    assert "server closed the connection" in listing and "Resume" in listing

    response = client.post(reverse("ingest-resume", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    job = wait_for_job(run.background_job_id)
    assert job.status == "succeeded", job.message
    run.refresh_from_db()
    assert run.status == "completed" and run.jobs_ingested == 5 and run.error == ""


def test_the_format_is_detected_from_the_content(client: Any, planner_user: Any) -> None:
    from forecasts.models import IngestRun

    login(client, planner_user)
    response = _upload(client, SAMPLE.read_bytes(), name="rotated-20240301")
    assert response.status_code == 302
    assert IngestRun.objects.get().format == "slurm"


def test_an_unrecognisable_file_asks_for_the_format_and_is_not_kept(client: Any, planner_user: Any,
                                                                     upload_dir: Path) -> None:
    from forecasts.models import IngestRun

    login(client, planner_user)
    response = _upload(client, b"hello world\n" * 10, name="notes.txt")
    assert response.status_code == 400
    assert "could not be recognised" in response.content.decode()
    assert not IngestRun.objects.exists()
    assert not any(p.is_file() for p in upload_dir.rglob("*"))


def test_a_file_over_the_size_limit_is_refused_with_a_clear_message(client: Any, planner_user: Any,
                                                                     settings: Any, upload_dir: Path) -> None:
    from forecasts.models import IngestRun

    settings.UPLOAD_MAX_BYTES = 200
    login(client, planner_user)
    response = _upload(client, SAMPLE.read_bytes())
    assert response.status_code == 413
    text = response.content.decode()
    assert "larger than the upload limit of 200 bytes" in text and "ingest_accounting" in text
    assert not IngestRun.objects.exists()
    assert not any(p.is_file() for p in upload_dir.rglob("*"))


def test_a_new_cluster_name_must_be_a_slug(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    response = _upload(client, SAMPLE.read_bytes(), new_cluster="Big Cluster")
    assert response.status_code == 400
    assert "big-cluster" in response.content.decode()


def test_department_viewers_cannot_upload_or_see_runs(client: Any, genomics_viewer: Any) -> None:
    login(client, genomics_viewer)
    assert client.get(reverse("ingest-new")).status_code == 403
    assert client.get(reverse("ingest-runs")).status_code == 403
    assert _upload(client, SAMPLE.read_bytes()).status_code == 403


def test_the_rejections_csv_holds_every_rejected_record(client: Any, planner_user: Any, tmp_path: Path) -> None:
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute

    path = tmp_path / "mixed.txt"
    path.write_bytes(SAMPLE.read_bytes() + BAD_LINES)
    run = ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[path])
    run = ingest_run_execute(run.pk)
    assert run.rejected >= 4

    login(client, planner_user)
    page = client.get(reverse("ingest-run", args=[run.pk])).content.decode()
    assert "this is not an accounting record" in page
    response = client.get(reverse("ingest-rejections-csv", args=[run.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == run.rejected
    assert {r["file"] for r in rows} == {"mixed.txt"}
    assert any(r["raw"] == "this is not an accounting record" and r["reason"] for r in rows)
    assert all(int(r["line"]) > 0 for r in rows)
