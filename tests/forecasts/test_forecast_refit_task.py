"""'Refit all' runs on a real Celery worker, reports progress and stores one fit per series."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from forecasts.models import ForecastFit
from planner.models import BackgroundJob
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login, wait_for_job


@pytest.mark.worker
def test_refit_all_fits_every_department_and_metric_on_a_real_worker(
        live_worker: Any, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)
    client = login(Client(), planner_user)
    resp = client.post("/forecasts/refit-all/", {"horizon": "12"})
    job = BackgroundJob.objects.get(kind="forecast_refit_all")
    assert resp.status_code == 302 and resp["Location"] == f"/jobs/{job.pk}/"
    job = wait_for_job(job.pk, timeout_s=180)
    assert job.status == BackgroundJob.Status.SUCCEEDED, job.message
    # (all clusters + minerva) x (all departments + ggs + scb) x (core_hours, jobs, active_users)
    assert job.total == job.done == 18
    assert job.result["fitted"] == 18 and job.result_url == "/forecasts/"
    assert ForecastFit.objects.filter(background_job=job).count() == 18
    assert ForecastFit.objects.filter(background_job=job, department__code="scb", metric="jobs").exists()
