"""Usage series for forecasting, and fitting them: build, fit with the pure core, store.

Series are monthly (UTC calendar months by job end, as UsageMonthly):

- ``core_hours``: allocated core-hours on the cluster's own cores;
- ``jobs``: jobs finished in the month;
- ``active_users``: distinct scheduler user names with at least one job in the month;
- ``storage_pb``: decimal PB held, the last storage snapshot of each month (a stock).

Missing months between the first and the last month of history are zeros for flows (no job
ended then) and gaps for storage (no scan taken).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
from django.apps import apps
from django.db.models import Count, Sum

from forecasts.accounting.models import Cluster, Department, UsageMonthly
from forecasts.accounting.selectors import logs_end, logs_first_part_months, logs_partial_month
from forecasts.demand.engine import STAT_MEMBERS, ShortHistoryError
from forecasts.demand.engine import forecast as engine_forecast
from forecasts.demand.engine.backtest import MAX_ORIGINS
from forecasts.demand.engine.curves import curve_members
from forecasts.demand.engine.legacy import growth_rate_result, legacy_result
from forecasts.demand.growth import ALL_FAMILIES, add_months, fit_series
from forecasts.demand.horizon import HORIZON_MONTHS_DEFAULT
from forecasts.demand.models import ExternalSeries, ForecastFit
from forecasts.demand.storage_series import carried_months, storage_points
from forecasts.units import PERIOD_UNITS, YEAR_AGGREGATE
from forecasts.usage.cache import rollup_cached

METRICS = ("core_hours", "storage_pb", "jobs", "active_users")
UNITS = {
    "core_hours": "core-hours/month",
    "storage_pb": "PB stored",
    "jobs": "jobs/month",
    "active_users": "active users/month",
}
NO_STORAGE = "no storage scans loaded: load one with python manage.py ingest_storage_scan"
STORAGE_NOT_PER_CLUSTER = (
    "storage_pb is not forecast per cluster: storage scans belong to file systems, which are not linked to clusters, "
    "so cluster {cluster!r} has no storage series of its own; leave the cluster out (all clusters) to forecast every "
    "file system together")
DEFAULT_HORIZON = HORIZON_MONTHS_DEFAULT  # the series picker's and the API's default too
DEFAULT_ORIGINS = MAX_ORIGINS  # the engine's backtest origins, one constant (docs/forecasting.md)
SEASON_LENGTH = {"M": 12, "Q": 4, "S": 2, "A": 1, "W": 1}
N_PATHS = 1000
FAMILY_CHOICES = (*STAT_MEMBERS, *ALL_FAMILIES)  # engine members, then growth curves (pinned by name)


class SeriesError(ValueError):
    """A series cannot be built or fitted; the message says what to load or change."""


@dataclass
class SeriesSpec:
    """Which usage series: metric on a cluster (None = all), one department or all but one."""

    metric: str
    cluster: Cluster | None = None
    department: Department | None = None
    exclude_department: Department | None = None

    @property
    def label(self) -> str:
        if self.metric == "storage_pb":
            return "all file systems / storage_pb"  # scans belong to file systems, not clusters
        who = (
            self.department.code if self.department
            else f"all but {self.exclude_department.code}" if self.exclude_department
            else "all departments"
        )
        return f"{self.cluster.name if self.cluster else 'all clusters'} / {who} / {self.metric}"


@dataclass
class MonthlySeries:
    start: date
    values: list[float]  # NaN = gap
    units: str
    partial_month: date | None = None  # a last month the logs end inside: left out of values
    partial_value: float | None = None
    logs_end: Any = None
    first_part_month: date | None = None  # a first month the logs begin inside: left out of values
    first_part_value: float | None = None
    logs_start: Any = None
    storage_left_out: dict[str, Any] | None = None  # storage months before every file system was scanned
    storage_carried: dict[str, int] | None = None  # storage months with no scan (carried forward)

    @property
    def through(self) -> date:
        return add_months(self.start, len(self.values) - 1)


def spec_from_names(*, metric: str, cluster: str | None = None, department: str | None = None,
                    exclude_department: str | None = None) -> SeriesSpec:
    """Resolve names to rows with messages a person can act on."""
    if metric not in METRICS:
        raise SeriesError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    spec = SeriesSpec(metric)
    if cluster and metric == "storage_pb":
        raise SeriesError(STORAGE_NOT_PER_CLUSTER.format(cluster=cluster))
    if cluster:
        spec.cluster = Cluster.objects.filter(name=cluster).first()
        if spec.cluster is None:
            known = ", ".join(Cluster.objects.values_list("name", flat=True)) or "none loaded yet"
            raise SeriesError(f"unknown cluster {cluster!r} (known: {known})")
    for attr, code in (("department", department), ("exclude_department", exclude_department)):
        if code:
            dept = Department.objects.filter(code=code).first()
            if dept is None:
                raise SeriesError(f"unknown department code {code!r}")
            setattr(spec, attr, dept)
    return spec


def _usage_rows(spec: SeriesSpec) -> Any:
    rows = UsageMonthly.objects.all()
    if spec.cluster:
        rows = rows.filter(cluster=spec.cluster)
    if spec.department:
        rows = rows.filter(department=spec.department)
    if spec.exclude_department:
        rows = rows.exclude(department=spec.exclude_department)
    return rows


def _months_between(first: date, last: date) -> int:
    return (last.year - first.year) * 12 + last.month - first.month + 1


def _regular(points: dict[date, float], fill: float) -> MonthlySeries | None:
    if not points:
        return None
    first, last = min(points), max(points)
    n = _months_between(first, last)
    values = [points.get(add_months(first, i), fill) for i in range(n)]
    return MonthlySeries(first, [float(v) for v in values], "")


def storage_snapshot_model() -> Any:
    """The StorageSnapshot model when the storage-scan capability is installed, else None."""
    try:
        return apps.get_model("forecasts", "StorageSnapshot")
    except LookupError:
        return None


def _storage_points(spec: SeriesSpec) -> tuple[dict[date, float], dict[str, Any] | None, set[date]]:
    """PB held per month over every file system, from the month each has been scanned (``storage_points``), the
    months left out before it, and the days scanned (for ``carried_months``)."""
    model = storage_snapshot_model()
    if model is None:
        raise SeriesError(NO_STORAGE)
    if spec.department or spec.exclude_department:
        raise SeriesError("storage_pb is forecast for the whole file system; per-department storage "
                          "series are not available yet")
    snaps = model.objects.all()
    if "status" in {f.name for f in model._meta.get_fields()}:
        snaps = snaps.filter(status="completed")
    rows = [(fs, day.date() if hasattr(day, "date") else day, total) for fs, day, total in
            snaps.order_by("taken_on", "pk").values_list("filesystem__name", "taken_on", "bytes_total")]
    points, left_out = storage_points(rows)
    if not points:
        raise SeriesError(NO_STORAGE)
    return points, left_out, {day for _, day, _ in rows}


def monthly_series(spec: SeriesSpec, *, through: date | None = None) -> MonthlySeries:
    """The monthly series of ``spec``, optionally cut at ``through`` (a month, inclusive)."""
    storage_left_out = None
    scanned: set[date] = set()
    if spec.metric == "storage_pb":
        points, storage_left_out, scanned = _storage_points(spec)
        fill = float("nan")
    else:
        rows = _usage_rows(spec)
        if through:
            rows = rows.filter(month__lte=through)
        if spec.metric == "active_users":
            agg = rows.values("month").annotate(v=Count("identity__user", distinct=True))
        else:
            agg = rows.values("month").annotate(v=Sum(spec.metric))
        points = {r["month"].replace(day=1): float(r["v"] or 0) for r in agg}
        fill = 0.0
        # a department that left the cluster has no rows after its last job while the logs go on: those months
        # are 0 (the history's end is the logs' end), or the forecast would carry its old level on as demand
        end = logs_end(spec.cluster)
        if points and end is not None and end.date().replace(day=1) > max(points):
            points[end.date().replace(day=1)] = 0.0
    if through:
        points = {m: v for m, v in points.items() if m <= through}
    series = _regular(points, fill)
    if series is None:
        if spec.metric == "storage_pb":
            raise SeriesError(NO_STORAGE)
        raise SeriesError(f"no usage for {spec.label}: load accounting logs with "
                          "python manage.py ingest_accounting --format FORMAT --cluster NAME PATH")
    series.units = UNITS[spec.metric]
    series.storage_left_out = storage_left_out
    if spec.metric == "storage_pb":
        series.storage_carried = carried_months(scanned, (add_months(series.start, i)
                                                          for i in range(len(series.values))))
    else:
        _drop_partial_month(series, logs_partial_month(spec.cluster))
        _drop_first_part_month(series, logs_first_part_months([spec.cluster.pk] if spec.cluster else None))
    return series


def _drop_first_part_month(series: MonthlySeries, first_parts: dict[date, Any]) -> None:
    """A first month the logs begin inside (KTH's September 1996: a day's usage) is left out too, or the
    fit's level and drift start from it; only the series' first month (a cluster added later is growth)."""
    if series.start not in first_parts or len(series.values) < 2:
        return
    series.first_part_month, series.logs_start = series.start, first_parts[series.start]
    series.first_part_value = series.values[0]
    series.values = series.values[1:]
    series.start = add_months(series.start, 1)


def _drop_partial_month(series: MonthlySeries, partial: tuple[date, Any] | None) -> None:
    """Whole months only: a last month the logs end inside (``partial``, the series' cluster's
    ``logs_partial_month``) is kept apart (``partial_month``)."""
    if partial is None or not series.values or series.through != partial[0]:
        return
    series.partial_month, series.logs_end = partial
    series.partial_value = series.values[-1]
    series.values = series.values[:-1]
    if not series.values:
        raise SeriesError(f"the only month with usage ({partial[0]:%Y-%m}) is partial (logs end "
                          f"{partial[1]:%Y-%m-%d}); forecasts need whole months")


def core_hours_by_cluster_department() -> list[tuple[Cluster, Department, MonthlySeries]]:
    """Monthly core-hours of every cluster x department with usage, as ``monthly_series`` gives each
    (months without rows are 0, a last month the logs end inside left out), in one query plus one
    partial-month look-up per cluster; ordered by cluster name and department code."""
    agg = UsageMonthly.objects.values("cluster", "department", "month").annotate(v=Sum("core_hours"))
    points: dict[tuple[int, int], dict[date, float]] = {}
    for r in agg:
        points.setdefault((r["cluster"], r["department"]), {})[r["month"].replace(day=1)] = float(r["v"] or 0)
    clusters = Cluster.objects.in_bulk({c for c, _ in points})
    depts = Department.objects.in_bulk({d for _, d in points})
    partial = {pk: logs_partial_month(c) for pk, c in clusters.items()}
    out = []
    for (c, d), pts in sorted(points.items(), key=lambda kv: (clusters[kv[0][0]].name, depts[kv[0][1]].code)):
        series = _regular(pts, 0.0)
        if series is None:
            continue
        series.units = UNITS["core_hours"]
        try:
            _drop_partial_month(series, partial[c])
        except SeriesError:  # its only month is the partial one
            continue
        out.append((clusters[c], depts[d], series))
    return out


@rollup_cached
def usage_series_options(user: Any = None) -> dict[str, list[Any]]:
    """What the series picker offers: clusters and departments with usage, and the metrics (for a
    person: cached until the rollups, clusters or departments change)."""
    clusters = list(Cluster.objects.filter(usagemonthly__isnull=False).distinct().values_list("name", flat=True))
    depts = list(
        Department.objects.filter(usage__isnull=False).distinct().order_by("name").values_list("code", "name")
    )
    return {"clusters": clusters, "departments": depts, "metrics": list(METRICS)}


def _fit_record(
    forecast: dict[str, Any], *, start: date, values: list[float], frequency: str, units: str,
    options: dict[str, Any], seconds: float, **fields: Any,
) -> ForecastFit:
    chosen = next(f for f in forecast["fits"] if f["family"] == forecast["family"])
    through = date.fromisoformat(forecast["history_dates"][-1])
    return ForecastFit.objects.create(
        frequency=frequency,
        start=start,
        through=through,
        values=[None if not np.isfinite(v) else float(v) for v in values],
        options=options,
        units=units,
        family=forecast["family"],
        selection=forecast["selection"],
        reason=forecast["reason"],
        parameters=chosen["params"],
        errors={
            "mase": chosen["mase"],
            "smape": chosen["smape"],
            "coverage80": chosen["coverage80"],
            "aicc": chosen["aicc"],
            "origins": chosen["backtest_origins"],
            "horizon": forecast["backtest_horizon"],
        },
        yearly=[
            {k: y[k] for k in ("year", "median", "p10", "p90", "periods_observed", "periods_forecast", "complete")}
            | {"partial": not y["complete"], "periods_filled": y.get("periods_filled", 0)}
            for y in forecast["yearly"]
        ],
        result=forecast,
        seconds=seconds,
        **fields,
    )


def run_forecast(values: list[float], *, start: date, frequency: str, horizon: int, aggregate: str,
                 family: str | None = None, log: bool | None = None, backtest_origins: int = DEFAULT_ORIGINS,
                 seed: int = 0, capacity: float | None = None,
                 growth_rate: float | None = None) -> tuple[dict[str, Any], float]:
    """Forecast with the engine (``forecasts.demand.engine``): the combination of the members (or
    the pinned ``family``, an engine member or a growth curve), calibrated intervals, yearly
    figures path by path; returns (stored-fit result dict, seconds).  Below the minimum history
    the message says how many periods exist and are needed; with ``growth_rate`` (% per year)
    a short history gets an entered-rate projection instead."""
    t0 = time.perf_counter()
    if family and family not in FAMILY_CHOICES:
        raise SeriesError(f"unknown model {family!r}; choose from {', '.join(FAMILY_CHOICES)}")
    try:
        fc = engine_forecast(
            values, horizon, season_length=SEASON_LENGTH.get(frequency, 1), pin=family or None, log=log,
            max_origins=backtest_origins, n_paths=N_PATHS, seed=seed, unit=PERIOD_UNITS.get(frequency, "periods"),
            extra_members=curve_members(capacity, family),
        )
        result = legacy_result(fc, history=list(values), start=start, frequency=frequency, aggregate=aggregate,
                               seed=seed)
        if family in ALL_FAMILIES:
            _curve_parameters(result, values, family, capacity)
    except ShortHistoryError as exc:
        if growth_rate is None:
            raise SeriesError(exc.message(growth_rate=True)) from exc
        try:
            result = growth_rate_result(values, start=start, frequency=frequency, horizon=horizon,
                                        aggregate=aggregate, growth_pct_per_year=growth_rate, seed=seed)
        except ValueError as exc2:
            raise SeriesError(str(exc2)) from exc2
    except ValueError as exc:
        raise SeriesError(str(exc)) from exc
    return result, time.perf_counter() - t0


def _curve_parameters(result: dict[str, Any], values: list[float], family: str, capacity: float | None) -> None:
    """A pinned growth curve keeps reporting its fitted parameters (slope, K, ...) as before."""
    y = np.asarray(values, dtype=float)
    try:
        fits = fit_series(np.arange(y.size, dtype=float), y, families=[family], capacity=capacity)
    except ValueError:
        return
    entry = next((f for f in result["fits"] if f["family"] == family), None)
    if fits and entry is not None:
        entry["params"] = {**fits[0].params, "weight": 1.0}
        entry["log"] = fits[0].log


def forecast_fit_create(
    spec: SeriesSpec, *, horizon_months: int = DEFAULT_HORIZON, through: date | None = None,
    family: str | None = None, log: bool | None = None, backtest_origins: int = DEFAULT_ORIGINS,
    seed: int = 0, user: Any = None, background_job: Any = None, growth_rate: float | None = None,
) -> ForecastFit:
    """Build the usage series, forecast it and store the fit with its inputs (``growth_rate``:
    % per year projected from the last whole month when the history is too short)."""
    series = monthly_series(spec, through=through)
    options = {"horizon": horizon_months, "log": log, "family_override": family,
               "backtest_origins": backtest_origins, "seed": seed, "through_requested":
               through.isoformat() if through else None, "growth_rate": growth_rate}
    result, seconds = run_forecast(
        series.values, start=series.start, frequency="M", horizon=horizon_months,
        aggregate=YEAR_AGGREGATE[spec.metric], family=family, log=log, backtest_origins=backtest_origins, seed=seed,
        growth_rate=growth_rate,
    )
    if series.partial_month is not None:
        result["partial_period"] = {"month": series.partial_month.isoformat(), "value": series.partial_value,
                                    "logs_end": series.logs_end.isoformat() if series.logs_end else None,
                                    "note": "the logs end inside this month: left out of the fit and the chart"}
    if series.first_part_month is not None:
        result["first_part_period"] = {"month": series.first_part_month.isoformat(), "value": series.first_part_value,
                                       "logs_start": series.logs_start.isoformat() if series.logs_start else None}
    if series.storage_left_out is not None:
        result["storage_left_out"] = series.storage_left_out
    if series.storage_carried is not None:
        result["storage_carried"] = series.storage_carried
    return _fit_record(
        result, start=series.start, values=series.values, frequency="M", units=series.units, options=options,
        seconds=seconds, metric=spec.metric, cluster=spec.cluster, department=spec.department,
        exclude_department=spec.exclude_department, created_by=user if getattr(user, "is_authenticated", False)
        else None, background_job=background_job,
    )


def external_fit_create(
    series: ExternalSeries, *, horizon: int, family: str | None = None, log: bool | None = None,
    backtest_origins: int = DEFAULT_ORIGINS, seed: int = 0, user: Any = None, growth_rate: float | None = None,
) -> ForecastFit:
    """Forecast an external series and store the fit (``growth_rate``: % per year, for a history too short to
    fit: a projection of the last value at that rate, as for usage series)."""
    from forecasts.demand.external import regular_values

    start, values = regular_values(series)
    options = {"horizon": horizon, "log": log, "family_override": family,
               "backtest_origins": backtest_origins, "seed": seed, "growth_rate": growth_rate}
    result, seconds = run_forecast(
        values, start=start, frequency=series.frequency, horizon=horizon, aggregate=series.aggregate,
        family=family, log=log, backtest_origins=backtest_origins, seed=seed, growth_rate=growth_rate,
    )
    return _fit_record(
        result, start=start, values=values, frequency=series.frequency, units=series.units, options=options,
        seconds=seconds, metric=ForecastFit.Metric.EXTERNAL, external_series=series,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def latest_fit(spec: SeriesSpec) -> ForecastFit | None:
    return (
        ForecastFit.objects.filter(
            metric=spec.metric, cluster=spec.cluster, department=spec.department,
            exclude_department=spec.exclude_department,
        )
        .order_by("-created_at")
        .first()
    )


def other_scale_pin(family: str | None) -> tuple[str, bool] | None:
    """A scale-ensemble member of the model table ('theta_log', 'ets_damped_orig'): the member and whether it was
    fitted on logs, so pinning it is that model with its scale forced (as ``--family theta --log``)."""
    base, _, scale = (family or "").rpartition("_")
    return (base, scale == "log") if base in STAT_MEMBERS and scale in ("log", "orig") else None


def refit_fit(fit: ForecastFit, *, family: str | None = None, user: Any = None) -> ForecastFit:
    """Re-make a fit from its stored settings, optionally overriding the family (an other-scale member too)."""
    opts = dict(fit.options or {})
    if (scaled := other_scale_pin(family)) is not None:
        family, opts["log"] = scaled
    if fit.external_series_id:
        return external_fit_create(
            fit.external_series, horizon=opts.get("horizon", 10), family=family, log=opts.get("log"),
            backtest_origins=opts.get("backtest_origins", DEFAULT_ORIGINS), seed=opts.get("seed", 0), user=user,
        )
    # a storage fit stored with a cluster (before such fits were refused) held every file system: refit it as such
    cluster = None if fit.metric == "storage_pb" else fit.cluster
    spec = SeriesSpec(fit.metric, cluster, fit.department, fit.exclude_department)
    through = opts.get("through_requested")
    return forecast_fit_create(
        spec, horizon_months=opts.get("horizon", DEFAULT_HORIZON),
        through=date.fromisoformat(through) if through else None, family=family, log=opts.get("log"),
        backtest_origins=opts.get("backtest_origins", DEFAULT_ORIGINS), seed=opts.get("seed", 0), user=user,
        growth_rate=opts.get("growth_rate"),
    )


def capacity_core_hours_per_month(cluster: Cluster | None) -> list[tuple[date, float]]:
    """The cluster's capacity as core-hours per month (cores x 730 h), dated, from ClusterCapacity."""
    from forecasts.accounting.models import ClusterCapacity
    from forecasts.units import HOURS_PER_YEAR

    rows = ClusterCapacity.objects.all()
    if cluster is not None:
        rows = rows.filter(cluster=cluster)
    else:
        return []
    return [(r.effective_from, r.cores * HOURS_PER_YEAR / 12) for r in rows.order_by("effective_from")]


def series_month_totals(spec: SeriesSpec) -> list[dict[str, Any]]:
    """Monthly values as rows (for hand checks and CSV of the history)."""
    s = monthly_series(spec)
    return [{"month": add_months(s.start, i).isoformat(), "value": v} for i, v in enumerate(s.values)]


__all__ = [
    "METRICS",
    "NO_STORAGE",
    "UNITS",
    "MonthlySeries",
    "SeriesError",
    "SeriesSpec",
    "capacity_core_hours_per_month",
    "external_fit_create",
    "forecast_fit_create",
    "latest_fit",
    "monthly_series",
    "other_scale_pin",
    "refit_fit",
    "run_forecast",
    "spec_from_names",
    "usage_series_options",
]


def refit_targets() -> list[SeriesSpec]:
    """Every series worth fitting: per cluster (and all clusters) x (all departments and each
    department with usage) x usage metric, plus storage when scans are loaded."""
    clusters: list[Cluster | None] = [None, *Cluster.objects.filter(usagemonthly__isnull=False).distinct()]
    depts: list[Department | None] = [None, *Department.objects.filter(usage__isnull=False).distinct()]
    # the (cluster, department) pairs with usage, in one query rather than one per pair
    used = set(UsageMonthly.objects.order_by().values_list("cluster_id", "department_id").distinct())
    out = []
    for c in clusters:
        for d in depts:
            if c is not None and d is not None and (c.pk, d.pk) not in used:
                continue
            out += [SeriesSpec(m, c, d) for m in ("core_hours", "jobs", "active_users")]
    model = storage_snapshot_model()
    if model is not None and model.objects.exists():
        out.append(SeriesSpec("storage_pb"))
    return out
