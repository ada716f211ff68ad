"""Design pages for uncertain demand: buy for a service level, move to the newest forecast, start from a forecast."""

from __future__ import annotations

import io
import math
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from forecasts.accounting.models import ClusterCapacity
from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.paths import PathsError
from forecasts.demand.plans import plan_span
from planner.designs.forecast_links import storage_forecast
from planner.designs.models import Design, OptimizerRun
from planner.designs.scenario import ScenarioError
from planner.designs.services import design_latest_evaluation
from planner.designs.services_paths import (
    design_chance,
    design_from_forecast,
    design_use_newest_forecasts,
    design_years,
    entered_rate,
    excluding_fits,
    guess_node_type,
    judged_on,
    plan_overlap,
    service_level_run_start,
    whole_future_years,
)
from planner.hardware.services import CatalogImportError
from planner.roles import planner_required
from planner.web.spreadsheet import safe_writer

# The design page's form sends a percentage (its select offers 50, 80, 90 and 95); a hand-typed value outside this
# range is refused, never reinterpreted: "0.9" is not 90 % (nor 0.9 %), "150" is no share at all. The API takes
# any share in (0, 1] (api_paths.ServiceLevelIn).
SERVICE_LEVEL_MIN_PCT, SERVICE_LEVEL_MAX_PCT = 50, 99


def service_level_from_form(raw: str) -> float:
    """The share a form's service level in percent stands for: '90' -> 0.9; ValueError with the message a planner
    reads for anything but a finite percentage from SERVICE_LEVEL_MIN_PCT to SERVICE_LEVEL_MAX_PCT."""
    limits = f"service level must be between {SERVICE_LEVEL_MIN_PCT} and {SERVICE_LEVEL_MAX_PCT} %"
    try:
        pct = float(raw)
    except ValueError:
        raise ValueError(f"{limits} (a percentage such as 90), got {raw[:20]!r}") from None
    if not math.isfinite(pct) or not SERVICE_LEVEL_MIN_PCT <= pct <= SERVICE_LEVEL_MAX_PCT:
        raise ValueError(f"{limits} (a percentage: 90 for 90 %), got {raw[:20]!r}")
    return pct / 100.0


@planner_required
@require_POST
def design_service_level(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    raw = request.POST.get("service_level", "90").strip()
    try:
        alpha = service_level_from_form(raw)
    except ValueError as exc:
        messages.error(request, f"Cannot buy for a service level: {exc}")
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
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        messages.error(request, f"Cannot make the new version: {exc}")
        return redirect("designs:detail", pk=pk)
    if new is None:
        messages.info(request, "This design already uses the newest forecasts.")
        return redirect("designs:detail", pk=pk)
    messages.success(request, f"v{new.version} uses the newest forecasts; v{design.version} and its evaluation stay.")
    return redirect("designs:detail", pk=new.pk)


def _from_forecast_form(request: HttpRequest, row: ForecastFit, whole: list[int]) -> HttpResponse:
    from forecasts.storage.models import FileSystem
    from planner.hardware.models import NodeType, StorageSystem

    first, last = design_years(row)  # the default span; any of ``whole`` can be chosen
    plans = []
    # "Counted twice?": one note per department the listed plans name (or none), for those whose sequencing
    # this forecast already holds; static/js/from_forecast.js shows the chosen plan's
    overlaps: dict[int | None, dict[str, Any] | None] = {}
    for p in SequencerPlan.objects.select_related("department")[:30]:
        start, end = plan_span(p)
        if p.department_id not in overlaps:
            why = plan_overlap(row, p.department)
            overlaps[p.department_id] = None if why is None else {
                "department": p.department, "excluding": excluding_fits(row, p.department)}
        plans.append({"row": p, "first": start, "last": end, "useful": start <= last and end >= first,
                      "overlap": overlaps[p.department_id] is not None})
    asked = _plan(request.GET.get("plan"))
    plan = next((p for p in plans if asked and p["row"].pk == asked.pk), None)
    # one department's demand against every node of the cluster it shares would overstate what it has: the node
    # type the cluster's nodes match is offered, not chosen (a planner may still tick it)
    guess = guess_node_type(row)
    return render(request, "designs/from_forecast.html", {
        "fit": row, "judged_on": judged_on(row), "entered_rate": entered_rate(row) is not None,
        "years": [first, last], "whole": whole, "plans": plans,
        "plan": plan if plan and plan["useful"] else None,
        "plan_outside": plan if plan and not plan["useful"] else None,
        "node_types": NodeType.objects.order_by("name"), "guess": None if row.department_id else guess,
        "not_preselected": guess if row.department_id else None,
        "capacity": ClusterCapacity.objects.filter(cluster_id=row.cluster_id).order_by("effective_from")
        if row.cluster_id else [],
        "notes": [n for n in overlaps.values() if n is not None],
        "storage_fits": storage_choices(list(range(first, last + 1))),
        "storage_pick": request.GET.get("storage_fit", ""),  # preselected from a storage fit's page
        "storage_systems": StorageSystem.objects.order_by("kind", "name"),
        "file_systems": FileSystem.objects.exclude(capacity_tb=None).order_by("name"),
    })


def _storage_fit(raw: str | None) -> ForecastFit | None:
    """The PB-stored forecast the form names; PathsError for an id that is not one (never silently none)."""
    if not raw:
        return None
    if not raw.isdigit():
        raise PathsError(f"no storage forecast #{raw[:12]}")
    return storage_forecast(int(raw))


def storage_choices(years: list[int]) -> list[dict[str, Any]]:
    """The monthly PB-stored forecasts a design can take its storage from, newest first, each with its whole
    future years and whether they cover ``years`` (the default span)."""
    out = []
    for f in ForecastFit.objects.filter(metric=ForecastFit.Metric.STORAGE_PB, frequency="M").order_by(
            "-created_at", "-pk")[:20]:
        whole = whole_future_years(f)
        out.append({"row": f, "first": whole[0] if whole else None, "last": whole[-1] if whole else None,
                    "covers": bool(whole) and set(years) <= set(whole)})
    return out


def _plan(raw: str | None) -> SequencerPlan | None:
    try:
        return SequencerPlan.objects.filter(pk=int(raw)).first() if raw else None
    except ValueError:
        return None


@planner_required
@require_http_methods(["GET", "POST"])
def design_from_forecast_view(request: HttpRequest, fit: int) -> HttpResponse:
    """GET: the form (what the cluster owns, which plan); POST (it creates a design): start a design, then edit
    it, whose demand and paths come from a core-hours forecast and, with ``plan``, a sequencer plan; with
    ``node_type`` it owns the cluster's recorded nodes and counts demand on their core."""
    row = get_object_or_404(ForecastFit.objects.select_related("cluster"), pk=fit, metric=ForecastFit.Metric.CORE_HOURS)
    whole = whole_future_years(row)
    if not whole:
        messages.error(request, f"Forecast #{row.pk} has no whole future year: refit it with a longer horizon.")
        return redirect("forecasts")
    if request.method == "GET":
        return _from_forecast_form(request, row, whole)
    try:
        start, end = design_years(row, request.POST.get("start_year"), request.POST.get("end_year"))
        design = design_from_forecast(fit=row, start_year=start, end_year=end,
                                      user=request.user, plan=_plan(request.POST.get("plan")),
                                      node_type=request.POST.get("node_type") or None,
                                      plan_on_top=bool(request.POST.get("plan_on_top")),
                                      storage=_storage_fit(request.POST.get("storage_fit")),
                                      plan_storage_on_top=bool(request.POST.get("plan_storage_on_top")),
                                      storage_system=request.POST.get("storage_system") or None)
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        messages.error(request, f"Cannot start a design from forecast #{row.pk}: {exc}")
        keep = urlencode({"plan": request.POST.get("plan") or "", "storage_fit": request.POST.get("storage_fit") or ""})
        return redirect(f"{reverse('designs:from-forecast', args=[row.pk])}?{keep}")  # the choices kept
    messages.success(request, f"Design started from forecast #{row.pk}: add purchases (or run the optimiser) and "
                              "storage or sequencing figures to check them too.")
    return redirect("designs:edit", pk=design.pk)


@planner_required
def design_chance_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The chance table as CSV: per year and constraint, the probability that capacity meets demand on the
    demand paths and the expected shortfall on the paths that fall short; the joint row first in each year."""
    design = get_object_or_404(Design, pk=pk)
    ev = design_latest_evaluation(design)
    chance = design_chance(design, ev) if ev is not None else None
    if not chance or "report" not in chance:  # as the API: 409, the design exists but is judged on one figure
        why = chance.get("error") if chance else "this design has no uncertainty: block (docs/uncertainty.md)"
        return HttpResponse(f"no chance table: {why}\n", status=409, content_type="text/plain; charset=utf-8")
    buf = io.StringIO()
    w = safe_writer(buf)
    w.writerow(["year", "constraint", "probability", "expected_shortfall", "unit", "paths", "evaluation"])
    for y in chance["report"]["years"]:
        w.writerow([y["year"], "every constraint", y["all_constraints"], "", "", chance["n_paths"], ev.pk])
        for c in y["constraints"]:
            w.writerow([y["year"], c["constraint"], c["probability"], c.get("expected_shortfall") or 0,
                        c.get("unit", ""), chance["n_paths"], ev.pk])
    resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="design-{design.pk}-v{design.version}-chance.csv"'
    return resp


@planner_required
def run_confidence_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """A service-level run's cost of confidence as CSV: per level bought, its status, net present cost, the
    share of paths it was bought to cover, and per year its share of paths covered in sample and on the
    independent paths (then every year at once)."""
    run = get_object_or_404(OptimizerRun, pk=pk)
    sl = (run.result or {}).get("service_level")
    if not sl:
        return HttpResponse("no cost of confidence: this run bought no plan for a service level\n", status=409,
                            content_type="text/plain; charset=utf-8")
    curve = sl.get("curve") or []
    years = sorted({y for lv in curve for y in (lv.get("in_sample") or {})}, key=int)
    buf = io.StringIO()
    w = safe_writer(buf)
    w.writerow(["service_level", "status", "npv_usd", "bought_to_cover", "paths", "check_paths"]
               + [f"in_sample_{y}" for y in years] + [f"independent_{y}" for y in years]
               + ["independent_every_year"])
    for lv in curve:
        w.writerow([lv["alpha"], lv["status"], lv.get("npv_usd"), lv.get("in_sample_level"), sl.get("paths"),
                    sl.get("check_paths")]
                   + [(lv.get("in_sample") or {}).get(y) for y in years]
                   + [(lv.get("out_of_sample") or {}).get(y) for y in years]
                   + [lv.get("out_of_sample_every_year")])
    resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="service-level-run-{run.pk}-cost-of-confidence.csv"'
    return resp
