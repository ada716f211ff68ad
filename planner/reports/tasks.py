"""Celery task: generate one report version (its id is in the job's params)."""

from __future__ import annotations

from celery import shared_task

from planner.reports.services import GENERATE_TASK, report_fail, report_generate


@shared_task(name=GENERATE_TASK, time_limit=600, soft_time_limit=570)
def generate_grant_report(job_id: int) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    from planner.jobs.models import BackgroundJob

    report_id = int(BackgroundJob.objects.get(pk=job_id).params["report_id"])
    try:
        report_generate(report_id, job_id=job_id)
    except SoftTimeLimitExceeded:
        report_fail(report_id, job_id, "Rendering ran out of time (570 s).")
    except Exception as exc:  # a failed report must say why on its page, not stay 'running'
        report_fail(report_id, job_id, f"{type(exc).__name__}: {exc}")
        raise
