"""Celery task loading an uploaded file-system scan (forecasts/storage/services.py) with progress."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from celery import shared_task
from django.urls import reverse

from forecasts.storage.models import StorageSnapshot
from forecasts.storage.services import SCAN_INGEST_TASK, ingest_scan, snapshot_message, snapshot_summary
from planner.jobs.models import BackgroundJob
from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded


def storage_result_url(snapshot: StorageSnapshot) -> str:
    """The storage page of the snapshot's file system, with the load summary of that snapshot."""
    return reverse("storage") + "?" + urlencode({"filesystem": snapshot.filesystem.name, "snapshot": snapshot.pk})


@shared_task(name=SCAN_INGEST_TASK, acks_late=True, time_limit=6 * 3600,
             soft_time_limit=6 * 3600 - 60)
def storage_scan_ingest(job_id: int) -> None:
    """Stream the stored scan of the job's snapshot; progress in lines (total estimated from bytes)."""
    params = BackgroundJob.objects.get(pk=job_id).params
    snapshot = StorageSnapshot.objects.select_related("filesystem").get(pk=params["snapshot"])
    job_running(job_id, message=f"Reading {snapshot.scan_name}")

    def lines_progress(read: int, expected: int) -> None:  # already throttled by the service
        job_progress(job_id, done=read, total=expected, message=f"Reading {snapshot.scan_name}")

    try:
        snap = ingest_scan(filesystem=snapshot.filesystem.name, fmt=snapshot.format, path=Path(params["path"]),
                           taken_on=snapshot.taken_on, snapshot=snapshot, lines_progress=lines_progress)
    except Exception as exc:  # noqa: BLE001  (the job page shows why; the snapshot is marked failed)
        job_failed(job_id, message=f"The scan could not be loaded: {exc}")
        return
    job_progress(job_id, done=snap.lines_read, total=snap.lines_read)
    job_succeeded(job_id, result=snapshot_summary(snap), result_url=storage_result_url(snap),
                  message=snapshot_message(snap))
