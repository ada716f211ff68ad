"""Celery task: refit every cluster x department x metric series (the "Refit all" button)."""

from __future__ import annotations

from celery import shared_task
from django.urls import reverse

from forecasts.demand.series import SeriesError, forecast_fit_create, refit_targets
from planner.jobs.models import BackgroundJob
from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded


@shared_task(name="forecasts.forecast_tasks.refit_all_series", time_limit=1800, soft_time_limit=1740)
def refit_all_series(job_id: int) -> None:
    job = BackgroundJob.objects.get(pk=job_id)
    horizon = int(job.params.get("horizon", 36))
    try:
        targets = refit_targets()
    except Exception as exc:  # a message a person can act on, not a traceback
        job_failed(job_id, message=f"Could not list the series: {exc}")
        return
    job_running(job_id, total=len(targets), message=f"Fitting {len(targets)} series")
    fitted, skipped = 0, {}
    for i, spec in enumerate(targets):
        try:
            forecast_fit_create(spec, horizon_months=horizon, user=job.created_by, background_job=job)
            fitted += 1
        except SeriesError as exc:
            skipped[spec.label] = str(exc)
        job_progress(job_id, done=i + 1, message=f"{spec.label}")
    if not fitted and targets:
        job_failed(job_id, message="No series could be fitted: " + "; ".join(list(skipped.values())[:3]))
        return
    job_succeeded(job_id, result={"fitted": fitted, "skipped": skipped, "series": len(targets)},
                  result_url=reverse("forecasts"),
                  message=f"{fitted} series fitted, {len(skipped)} skipped")
