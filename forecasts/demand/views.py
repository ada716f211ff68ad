"""Forecast pages (planners and admins only): series picker, fan chart, model table, backtest,
yearly figures with CSV, combined projection, external series.  Views load, call services,
render; the figures come from forecasts/demand/charts.py."""

from __future__ import annotations

import io
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from forecasts.demand import charts
from forecasts.demand.external import ExternalSeriesError, describe_gaps, external_series_create, forecast_csv
from forecasts.demand.fit_inputs import fit_inputs
from forecasts.demand.hindsight import year_ago_backtest as _year_ago_backtest
from forecasts.demand.horizon import (
    HORIZON_MONTHS_DEFAULT,
    HORIZON_RULE,
    HorizonError,
    backtest_origins,
    horizon_months,
    horizon_periods,
    whole_forecast_years,
)
from forecasts.demand.models import ExternalSeries, ForecastFit, SequencerPlan
from forecasts.demand.plans import (
    combined_default_fit,
    combined_overlap,
    combined_projection,
    combined_storage_overlap,
    plan_belongs_to,
    plan_monthly_by_assay,
    plan_of,
)
from forecasts.demand.series import (
    FAMILY_CHOICES,
    METRICS,
    SeriesError,
    SeriesSpec,
    capacity_core_hours_per_month,
    external_fit_create,
    forecast_fit_create,
    other_scale_pin,
    refit_fit,
    spec_from_names,
    storage_snapshot_model,
    usage_series_options,
)
from forecasts.usage.cache import cached_by_inputs
from planner.jobs.models import BackgroundJob
from planner.jobs.services import job_start
from planner.roles import planner_required
from planner.web.spreadsheet import safe_writer
from planner.web.textfiles import UploadTextError, upload_text


def year_ago_backtest(fit: ForecastFit) -> dict[str, Any] | None:
    """The fit page's year-ago backtest (a whole forecast run), kept in the cache under everything
    it is computed from (the fit's values, dates, method and seed): the same inputs always give
    the same answer, so a stored one is never stale; a refit or another fit is another key."""
    inputs = [fit.values, fit.start.isoformat(), fit.frequency, fit.family, fit.result.get("aggregate", "sum"),
              fit.result.get("log"), fit.options.get("seed", 0)]
    return cached_by_inputs("backtest", inputs, lambda: _year_ago_backtest(fit))


def _int(value: Any, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(value)))
    except (TypeError, ValueError):
        return default


GROWTH_RATE = forms.FloatField(required=False, min_value=-99.9)  # as the API's growth_rate: finite, > -100 %


def _growth_rate(text: str | None) -> float | None:
    """The growth-rate field (% per year; blank: none). A value that is not a finite number from -99.9 is
    refused (SeriesError) rather than dropped: a typo must not silently turn into a statistical forecast."""
    try:
        return GROWTH_RATE.clean((text or "").strip())
    except ValidationError:
        raise SeriesError(f"growth rate: expected a number of % per year, at least -99.9, "
                          f"got {(text or '')[:40]!r}") from None


# The metric picker in words (the series' own keys stay the form's values and the API's)
METRIC_WORDS = {"core_hours": "Core-hours", "storage_pb": "Storage (PB)", "jobs": "Jobs",
                "active_users": "Active users"}


@planner_required
def overview(request: HttpRequest) -> HttpResponse:
    """Series picker, recent fits, refit-all, links to plans and external series."""
    options = usage_series_options(user=request.user)
    error = None
    growth_rate = None
    picked: dict[str, str] = {}
    if request.method == "POST":
        # the series asked for stays picked after a refusal: the short-history message asks for a growth rate
        # and a second press of the same form, which must fit the same series (not "all clusters")
        picked = {k: request.POST.get(k) or "" for k in ("cluster", "department", "metric")}
        try:
            growth_rate = _growth_rate(request.POST.get("growth_rate"))
            horizon, defaulted = horizon_months(request.POST.get("horizon"))
            dept = request.POST.get("department") or ""  # "not:CODE": every department but CODE
            spec = spec_from_names(metric=request.POST.get("metric", "core_hours"),
                                   cluster=request.POST.get("cluster") or None,
                                   department=None if dept.startswith("not:") else dept or None,
                                   exclude_department=dept[4:] if dept.startswith("not:") else None)
            fit = forecast_fit_create(spec, horizon_months=horizon, user=request.user, growth_rate=growth_rate)
        except (SeriesError, HorizonError) as exc:
            error = str(exc)
        else:
            if defaulted:
                messages.info(request, f"No horizon given: the default, {HORIZON_MONTHS_DEFAULT} months, was used.")
            return redirect("forecast-fit", pk=fit.pk)
    fits = list(ForecastFit.objects.filter(external_series__isnull=True).select_related(
        "cluster", "department", "exclude_department").defer("result", "values", "yearly", "options")[:30])
    refit_job = BackgroundJob.objects.filter(kind="forecast_refit_all").first()
    return render(request, "forecasts/overview.html", {
        "options": options, "metrics": [(m, METRIC_WORDS.get(m, m)) for m in METRICS], "fits": fits,
        "error": error, "growth_rate": growth_rate, "picked": picked,
        "short_history": bool(error and "are needed" in error),
        "plans": SequencerPlan.objects.order_by("name", "-version").distinct("name").only("pk", "name")[:20],
        "series": ExternalSeries.objects.only("pk", "name")[:20],
        "refit_job": refit_job,
        "storage_loaded": storage_snapshot_model() is not None,
        "horizon": request.POST.get("horizon", HORIZON_MONTHS_DEFAULT), "horizon_rule": HORIZON_RULE,
    })


@planner_required
@require_POST
def refit_all(request: HttpRequest) -> HttpResponse:
    from forecasts.demand.tasks import refit_all_series

    try:
        horizon, _ = horizon_months(request.POST.get("horizon"))
    except HorizonError as exc:
        messages.error(request, str(exc))
        return redirect("forecasts")
    job = job_start(kind="forecast_refit_all", label="Refit every cluster x department x metric",
                    task=refit_all_series, params={"horizon": horizon},
                    user=request.user, unit="series")
    return redirect("job", pk=job.pk)


def _plan_for_stack(fit: ForecastFit, plan_id: str | None) -> SequencerPlan | None:
    if fit.metric != "core_hours":
        return None
    if plan_id == "none":
        return None
    if plan_id:
        return SequencerPlan.objects.filter(pk=_int(plan_id, 0, 0, 10**9)).first()
    # by default, the newest plan of this series' department whose months overlap the chart (history +
    # forecast); a plan is one department's sequencing, so it is no default on another department's series
    end = fit.result["steps"][-1]["date"] if fit.result["steps"] else fit.through.isoformat()
    for row in SequencerPlan.objects.order_by("-created_at")[:20]:
        if (plan_belongs_to(row, fit) and row.document["start"] <= end
                and row.document["end"] >= fit.start.isoformat()):
            return row
    return None


def year_medians_apart(fit: ForecastFit) -> list[dict[str, Any]]:
    """Forecast years whose median (over whole sample paths' sums) is more than 10% from the sum of its months'
    medians and observed values: a reader adding up the per-period CSV gets the second. They part where the
    months are skewed (a dead cluster: every month's median 0, the year's 232 k, since the paths above 0 add up)."""
    if fit.family == "growth_rate" or fit.result.get("aggregate", "sum") != "sum":
        return []
    per_year = PER_YEAR.get(fit.frequency, 12)
    first = fit.start.year * per_year + (fit.start.month - 1) * per_year // 12
    sums: dict[int, float] = {}
    for i, v in enumerate(fit.values):
        if v is not None:
            sums[(first + i) // per_year] = sums.get((first + i) // per_year, 0.0) + v
    for step in fit.result.get("steps", []):
        year = int(step["date"][:4])
        sums[year] = sums.get(year, 0.0) + step["median"]
    return [{"year": y["year"], "median": y["median"], "months": sums[y["year"]]} for y in fit.yearly
            if y.get("periods_forecast") and y["year"] in sums
            and abs(y["median"] - sums[y["year"]]) > 0.1 * max(abs(y["median"]), abs(sums[y["year"]]))]


PER_YEAR = {"M": 12, "Q": 4, "S": 2, "A": 1}


@planner_required
def fit_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The fan chart page of one stored fit."""
    fit = get_object_or_404(ForecastFit.objects.select_related("cluster", "department", "external_series"), pk=pk)
    if request.method == "POST":
        family = request.POST.get("family") or None
        if family and family not in FAMILY_CHOICES and other_scale_pin(family) is None:
            raise Http404
        try:
            new = refit_fit(fit, family=family, user=request.user)
        except SeriesError as exc:
            messages.error(request, str(exc))
            return redirect("forecast-fit", pk=fit.pk)
        return redirect("forecast-fit", pk=new.pk)
    result = fit.result
    plan_row = _plan_for_stack(fit, request.GET.get("plan"))
    stack = plan_monthly_by_assay(plan_of(plan_row)) if plan_row else None
    # the axis title names the history's cores; the caption under the chart says the plan stack is on
    # the plan's reference core (both in the title, it ran past the chart's height and was cut)
    convention = "cluster's own cores" if fit.metric == "core_hours" else ""
    capacity = capacity_core_hours_per_month(fit.cluster) if fit.metric == "core_hours" else []
    fan = charts.fan_chart(
        result, units=fit.units, title=f"{fit.series_name}: history, fits and {fit.family} forecast",
        convention=convention, capacity=capacity, plan_stack=stack, frequency=fit.frequency,
    )
    # what the caption under the chart may say: only what is drawn, and what starts hidden and why
    overlays = charts.overlays_drawn(fan) | {"plan_elsewhere": bool(plan_row) and not plan_belongs_to(plan_row, fit)}
    bt = year_ago_backtest(fit)
    bt_fig = None
    # a year of months, quarters or halves is held back; a yearly series holds back three years
    bt_title = (f"What we would have predicted {len(bt['dates'])} years ago, and what happened"
                if bt and fit.frequency == "A" else "What we would have predicted a year ago, and what happened")
    if bt:
        window = len(bt["dates"]) * 3
        bt_fig = charts.backtest_chart(bt, history=charts.history_window(result, window), units=fit.units,
                                       title=bt_title, frequency=fit.frequency)
    return render(request, "forecasts/fit.html", {
        "fit": fit, "result": result, "fan": fan, "overlays": overlays, "dwarfs": charts.DWARFS,
        "inputs": fit_inputs(fit.options, seed=result.get("seed"), periods=fit.period_unit, family=fit.family),
        "bt": bt, "bt_fig": bt_fig, "bt_title": bt_title,
        "families": FAMILY_CHOICES,
        "whole_year": bool(whole_forecast_years(fit.yearly)), "medians_apart": year_medians_apart(fit),
        "plan_row": plan_row, "plans": SequencerPlan.objects.all()[:30],
        "chosen": next(f for f in result["fits"] if f["family"] == fit.family),
        "versions": ForecastFit.objects.filter(
            metric=fit.metric, cluster=fit.cluster, department=fit.department,
            exclude_department=fit.exclude_department, external_series=fit.external_series,
        ).exclude(pk=fit.pk)[:10],
    })


@planner_required
def fit_yearly_csv(request: HttpRequest, pk: int) -> HttpResponse:
    fit = get_object_or_404(ForecastFit, pk=pk)
    buf = io.StringIO()
    w = safe_writer(buf, lineterminator="\n")
    w.writerow(["fit", "series", "units", "family", "year", "median", "p10", "p90", "periods_observed",
                "periods_forecast", "complete", "history_through", "fitted_at"])
    for y in fit.yearly:
        w.writerow([fit.pk, fit.series_label, fit.yearly_units, fit.family, y["year"], y["median"], y["p10"], y["p90"],
                    y["periods_observed"], y["periods_forecast"], y["complete"], fit.through.isoformat(),
                    fit.created_at.isoformat()])
    resp = HttpResponse(buf.getvalue(), content_type="text/csv")
    resp["Content-Disposition"] = f'attachment; filename="forecast-{fit.pk}-yearly.csv"'
    return resp


@planner_required
def fit_forecast_csv(request: HttpRequest, pk: int) -> HttpResponse:
    fit = get_object_or_404(ForecastFit, pk=pk)
    resp = HttpResponse(forecast_csv(fit.result, fit.units), content_type="text/csv")
    resp["Content-Disposition"] = f'attachment; filename="forecast-{fit.pk}.csv"'
    return resp


@planner_required
def combined(request: HttpRequest) -> HttpResponse:
    """Per year: genomics from a sequencer plan + everything else from a usage trend."""
    plans = SequencerPlan.objects.select_related("department")
    core_all = ForecastFit.objects.filter(metric="core_hours").select_related(
        "cluster", "department", "exclude_department")
    storage_all = ForecastFit.objects.filter(metric="storage_pb")
    core_fits, storage_fits = core_all[:50], storage_all[:20]
    g = request.GET
    plan_row = plans.filter(pk=_int(g.get("plan"), 0, 0, 10**9)).first() if g.get("plan") else plans.first()
    # filter the unsliced querysets: a sliced one cannot be filtered (a ?fit= used to answer 500)
    core_fit = core_all.filter(pk=_int(g.get("fit"), 0, 0, 10**9)).first() if g.get("fit") else (
        combined_default_fit(plan_row))  # all but the plan's department when it names one
    storage_fit = storage_all.filter(pk=_int(g.get("storage_fit"), 0, 0, 10**9)).first() if g.get(
        "storage_fit") else None
    mode = g.get("mode", "both") if g.get("mode") in ("both", "trend", "plan") else "both"
    try:
        clock = float(g["clock"]) if g.get("clock") else None
    except ValueError:
        clock = None
    projection = None
    if plan_row or core_fit:
        projection = combined_projection(plan_row=plan_row, core_fit=core_fit, storage_fit=storage_fit,
                                         cluster_clock_ghz=clock, mode=mode)
    return render(request, "forecasts/combined.html", {
        "plans": plans, "core_fits": core_fits, "storage_fits": storage_fits, "plan_row": plan_row,
        "core_fit": core_fit, "storage_fit": storage_fit, "mode": mode, "clock": clock,
        "projection": projection, "fig": charts.combined_chart(projection) if projection else None,
        "overlap": combined_overlap(plan_row, core_fit) if projection and mode == "both" else None,
        "storage_overlap": combined_storage_overlap(plan_row, storage_fit) if projection and mode == "both" else None,
    })


@planner_required
def series_list(request: HttpRequest) -> HttpResponse:
    """External series: the list and the upload form."""
    error = None
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise ExternalSeriesError("choose a CSV file to upload")
            horizon = horizon_periods(request.POST.get("horizon"))  # refused before anything is stored
            growth_rate = _growth_rate(request.POST.get("growth_rate"))
            text = upload_text(upload.read(), upload.name)
            gaps: list[int] = []
            # one step: a fit refused (too short without a growth rate) stores no series, or uploading again
            # with the rate asked for was refused as "a series named ... exists"
            with transaction.atomic():
                series = _upload_and_fit(request, upload.name, text, horizon, growth_rate, gaps)
        except (ExternalSeriesError, SeriesError, UploadTextError, HorizonError) as exc:
            error = str(exc)
        else:
            if gaps:
                messages.info(request, f"{upload.name}: {describe_gaps(gaps)}: kept as gaps, not as zeros")
            return redirect("forecast-series", pk=series.pk)
    return render(request, "forecasts/series_list.html", {
        "series": ExternalSeries.objects.all(), "error": error, "frequencies": ExternalSeries.Frequency.choices,
        "aggregates": ExternalSeries.Aggregate.choices,
    })


def _upload_and_fit(request: HttpRequest, source: str, text: str, horizon: int, growth_rate: float | None,
                    gaps: list[int]) -> ExternalSeries:
    series = external_series_create(
        name=request.POST.get("name", "").strip(), units=request.POST.get("units", "").strip(),
        frequency=request.POST.get("frequency", ""), aggregate=request.POST.get("aggregate", "mean"),
        text=text, description=request.POST.get("description", ""), source_name=source,
        user=request.user, replace=bool(request.POST.get("replace")), gaps=gaps,
    )
    external_fit_create(series, horizon=horizon,
                        log={"auto": None, "log": True, "raw": False}.get(request.POST.get("log", "auto")),
                        user=request.user, growth_rate=growth_rate)
    return series


@planner_required
def series_detail(request: HttpRequest, pk: int) -> HttpResponse:
    series = get_object_or_404(ExternalSeries, pk=pk)
    if request.method == "POST":
        try:
            fit = external_fit_create(
                series, horizon=horizon_periods(request.POST.get("horizon")),
                family=request.POST.get("family") or None,
                log={"auto": None, "log": True, "raw": False}.get(request.POST.get("log", "auto")),
                backtest_origins=backtest_origins(request.POST.get("backtest")), user=request.user,
                growth_rate=_growth_rate(request.POST.get("growth_rate")),
            )
        except (SeriesError, HorizonError) as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Refitted: {fit.family} chosen.")
        return redirect("forecast-series", pk=series.pk)
    fit = series.fits.order_by("-created_at").first()
    ctx: dict[str, Any] = {"series": series, "fit": fit, "families": FAMILY_CHOICES}
    if fit:
        result = fit.result
        ctx["result"] = result
        ctx["chosen"] = next(f for f in result["fits"] if f["family"] == fit.family)
        ctx["fan"] = charts.fan_chart(result, units=series.units, title=f"{series.name}: history, fits and forecast",
                                      frequency=series.frequency)
        if result["log"]:  # growth or decline by a constant factor reads as a straight line
            ctx["fan"]["layout"]["yaxis"] = {"title": {"text": f"{series.units} (log scale)"}, "type": "log"}
        ctx["hide_yearly"] = series.frequency == "A"  # one value a year: the forecast table says it all
        ctx["medians_apart"] = year_medians_apart(fit)
        bt = year_ago_backtest(fit)
        ctx["bt"] = bt
        if bt:
            ctx["bt_fig"] = charts.backtest_chart(
                bt, history=charts.history_window(result, len(bt["dates"]) * 4), units=series.units,
                title=f"Predicted from {charts.origin_label(bt['origin'], series.frequency)} vs what happened",
                frequency=series.frequency)
        ctx["csv_url"] = reverse("forecast-fit-csv", args=[fit.pk])
    return render(request, "forecasts/series.html", ctx)


def spec_of(fit: ForecastFit) -> SeriesSpec:
    return SeriesSpec(fit.metric, fit.cluster, fit.department, fit.exclude_department)
