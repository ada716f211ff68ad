"""Celery task of accounting ingestion: takes ids, calls the loader and reports progress."""

from __future__ import annotations

from celery import shared_task
from django.urls import reverse

from forecasts.accounting.load import ingest_run_execute
from forecasts.accounting.parsers.compression import TruncatedInput
from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded, throttled


@shared_task(name="forecasts.tasks.ingest_accounting", acks_late=True, time_limit=12 * 3600,
             soft_time_limit=12 * 3600 - 60)
def ingest_accounting(job_id: int, run_id: int) -> None:
    """Run (or resume, when redelivered after a killed worker) an accounting ingest run."""
    job_running(job_id, message="Reading and loading records")
    report = throttled(lambda done: None)

    def progress(done: int, total: int | None) -> None:
        report(done)
        job_progress(job_id, done=done, total=total)

    try:
        run = ingest_run_execute(run_id, progress=progress)
    except Exception as exc:
        if isinstance(exc.__cause__, TruncatedInput):  # a retry would stop at the same cut
            job_failed(job_id, message=str(exc), result_url=reverse("ingest-run", args=[run_id]), retry=False)
            return
        job_failed(job_id, message=f"The ingest could not finish: {exc}")
        return
    job_progress(job_id, done=run.records_read, total=run.records_read)
    if run.status == run.Status.NOTHING_LOADED:  # the file, not the run: a retry would read it the same way
        job_failed(job_id, message=run.error, result_url=reverse("ingest-run", args=[run.pk]), retry=False)
        return
    job_succeeded(job_id, result=run.summary(), result_url=reverse("ingest-run", args=[run.pk]),
                  message=f"{run.jobs_ingested:,} jobs stored, {run.duplicates:,} duplicates, "
                          f"{run.skipped:,} skipped, {run.rejected:,} rejected")
