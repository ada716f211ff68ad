"""Design pages for uncertain demand: buy for a service level, move to the newest forecast, start from a forecast."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.paths import PathsError
from planner.designs.models import Design
from planner.designs.scenario import ScenarioError
from planner.designs.services_paths import (
    design_from_forecast,
    design_use_newest_forecasts,
    service_level_run_start,
    whole_future_years,
)
from planner.hardware.services import CatalogImportError
from planner.roles import planner_required


@planner_required
@require_POST
def design_service_level(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    raw = request.POST.get("service_level", "90")
    try:
        alpha = float(raw) / 100.0
    except ValueError:
        messages.error(request, f"Service level: a percentage such as 90, got {raw[:20]!r}")
        return redirect("designs:detail", pk=pk)
    try:
        run = service_level_run_start(design=design, alpha=alpha, user=request.user)
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        messages.error(request, f"Cannot buy for a service level: {exc}")
        return redirect("designs:detail", pk=pk)
    return redirect("designs:run", pk=run.pk)


@planner_required
@require_POST
def design_use_newest(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    try:
        new = design_use_newest_forecasts(design=design, user=request.user)
    except (ScenarioError, CatalogImportError) as exc:
        messages.error(request, f"Cannot make the new version: {exc}")
        return redirect("designs:detail", pk=pk)
    if new is None:
        messages.info(request, "This design already uses the newest forecasts.")
        return redirect("designs:detail", pk=pk)
    messages.success(request, f"v{new.version} uses the newest forecasts; v{design.version} and its evaluation stay.")
    return redirect("designs:detail", pk=new.pk)


@planner_required
@require_POST
def design_from_forecast_view(request: HttpRequest, fit: int) -> HttpResponse:
    """POST (it creates a design; the fit page's button): start a design, then edit it, whose demand and paths
    come from a core-hours forecast and, with ``plan``, a sequencer plan."""
    row = get_object_or_404(ForecastFit, pk=fit, metric=ForecastFit.Metric.CORE_HOURS)
    whole = whole_future_years(row)
    if not whole:
        messages.error(request, f"Forecast #{row.pk} has no whole future year: refit it with a longer horizon.")
        return redirect("forecasts")
    plan = None
    if request.POST.get("plan"):
        try:
            plan = SequencerPlan.objects.filter(pk=int(request.POST["plan"])).first()
        except ValueError:
            plan = None
    try:
        design = design_from_forecast(fit=row, start_year=whole[0], end_year=whole[min(len(whole), 5) - 1],
                                      user=request.user, plan=plan)
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        messages.error(request, f"Cannot start a design from forecast #{row.pk}: {exc}")
        return redirect("forecasts")
    messages.success(request, f"Design started from forecast #{row.pk}: add purchases (or run the optimiser) and "
                              "storage or sequencing figures to check them too.")
    return redirect("designs:edit", pk=design.pk)
