"""Pages that belong to the product as a whole: dashboard, area landing pages, health."""

from __future__ import annotations

from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from forecasts.accounting.models import Project
from planner.celery import app as celery_app
from planner.roles import sees_everything
from planner.web.areas import AREAS, AREAS_BY_SLUG


def dashboard(request: HttpRequest) -> HttpResponse:
    from forecasts.usage.charts import usage_figure
    from planner.web.dashboard import area_status, headline, named_departments, visible_departments

    visible = visible_departments(request.user)
    departments = named_departments(visible)
    status = area_status(request.user)
    areas = [{"area": a, "status": status.get(a.slug, "")} for a in AREAS
             if sees_everything(request.user) or not a.planners_only]
    top = headline(request.user)
    figure = None
    if top:
        figure = usage_figure(user=request.user, partials=top["partials"],
                              title="Core-hours per month by department, all history")
    return render(request, "dashboard.html", {
        "areas": areas, "departments": departments, "headline": top, "figure": figure,
        "unassigned": len(departments) < len(visible),
        "project_count": Project.objects.filter(department__in=visible).count(),
    })


def area(request: HttpRequest, slug: str) -> HttpResponse:
    """Landing page of an area that has no content of its own yet: its empty state."""
    found = AREAS_BY_SLUG.get(slug)
    if found is None:
        raise Http404
    if found.planners_only and not sees_everything(request.user):
        return render(request, "403.html", status=403)
    return render(request, "area_empty.html", {"area": found})


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True, "ok"
    except Exception as exc:  # any failure means "not answering"
        return False, f"{type(exc).__name__}: {exc}".strip()[:200]


def _broker_ok() -> tuple[bool, str]:
    from kombu import Connection

    try:
        # A fresh connection each time: a pooled one could hide a broker that just went away.
        conf = celery_app.conf
        with Connection(conf.broker_url, transport_options=conf.broker_transport_options) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            client = getattr(conn.default_channel, "client", None)
            if client is not None and hasattr(client, "ping"):
                client.ping()  # redis-py connects lazily: make it answer
        return True, "ok"
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}".strip()[:200]


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker both answer, 503 otherwise (for load balancers)."""
    db_ok, db_detail = _database_ok()
    broker_ok, broker_detail = _broker_ok()
    healthy = db_ok and broker_ok
    return JsonResponse(
        {
            "status": "ok" if healthy else "unavailable",
            "database": db_detail,
            "broker": broker_detail,
        },
        status=200 if healthy else 503,
    )


def job_status_json(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress of one background job, for the progress bar (only its creator or a planner)."""
    from django.shortcuts import get_object_or_404

    from planner.jobs.models import BackgroundJob
    from planner.jobs.services import job_status

    job = get_object_or_404(BackgroundJob, pk=pk)
    if not sees_everything(request.user) and job.created_by_id != request.user.pk:
        raise Http404
    return JsonResponse(job_status(job))


def job_page(request: HttpRequest, pk: int) -> HttpResponse:
    from django.shortcuts import get_object_or_404

    from planner.jobs.models import BackgroundJob

    job = get_object_or_404(BackgroundJob, pk=pk)
    if not sees_everything(request.user) and job.created_by_id != request.user.pk:
        raise Http404
    return render(request, "job.html", {"job": job})


def job_retry(request: HttpRequest, pk: int) -> HttpResponse:
    """Retry (or resume now) a failed or interrupted job: a person decided (POST; creator or planner)."""
    from django.contrib import messages
    from django.shortcuts import get_object_or_404, redirect

    from planner.jobs.models import BackgroundJob
    from planner.jobs.reaper import job_retry as retry

    if request.method != "POST":
        return HttpResponse("Retry is a POST (the button on the job's page).", status=405,
                            content_type="text/plain", headers={"Allow": "POST"})
    job = get_object_or_404(BackgroundJob, pk=pk)
    if not sees_everything(request.user) and job.created_by_id != request.user.pk:
        raise Http404
    try:
        retry(job=job, user=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{job.label or job.kind}: queued again; it resumes from the last checkpoint.")
    return redirect("job", pk=job.pk)
