"""Celery task: compute a range of months' statements with progress (registered via forecasts.tasks)."""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model
from django.urls import reverse

from forecasts.chargeback.services import parse_month, statements_compute
from planner.jobs.models import BackgroundJob
from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded


@shared_task(name="forecasts.tasks_chargeback.chargeback_compute", acks_late=True, time_limit=3600,
             soft_time_limit=3540)
def chargeback_compute(job_id: int) -> None:
    """params: {"months": ["2025-01", ...], "department": code or null, "reason": str}."""
    job = BackgroundJob.objects.get(pk=job_id)
    months = [parse_month(m) for m in job.params["months"]]
    user = get_user_model().objects.filter(pk=job.created_by_id).first()
    job_running(job_id, total=len(months), message="Pricing jobs at the plan's rates")
    summaries = []
    try:
        for done, month in enumerate(months):
            result = statements_compute(month=month, department=job.params.get("department"), user=user,
                                        reason=job.params.get("reason", ""))
            summaries.append(result.summary())
            job_progress(job_id, done=done + 1, message=f"{month:%Y-%m}: {len(result.statements)} statements")
    except Exception as exc:
        job_failed(job_id, message=f"The statements could not be computed: {exc}")
        return
    last = months[-1]
    created = sum(int(s["new_versions"]) for s in summaries)  # type: ignore[call-overload]
    job_succeeded(job_id, result={"months": summaries},
                  result_url=reverse("chargeback") + f"?month={last:%Y-%m}",
                  message=f"{len(months)} month(s) computed, {created} new statement version(s)")
