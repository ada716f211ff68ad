"""The stored forecast fits a design links (``uncertainty.forecast``): their paths, and newer fits (Django shell).

A statistical fit's paths are re-made with the engine from what the fit stored (the forecast is deterministic for a
seed, so they are the fit's own calibrated ones). A projection at a growth rate the planner entered (family
``growth_rate``: a history too short for the engine) has no paths and no interval: its demand is the one path of
its stored steps, identical on every row, and the design page says it is judged on that single path.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import numpy as np
from django.db import models

from forecasts.demand.growth.calendar import add_months
from forecasts.demand.models import ForecastFit
from forecasts.demand.paths import PathsError, PlanYear
from forecasts.demand.sequencing import SequencingPlan, yearly_figures

ENTERED_RATE = "growth_rate"  # the family of a projection at an entered growth rate (forecasts.demand.engine.legacy)


def linked_fit(pk: int, metric: str) -> ForecastFit:
    """The stored fit ``uncertainty.forecast`` names, checked to be a monthly forecast of ``metric``."""
    fit = ForecastFit.objects.filter(pk=pk).first()
    if fit is None:
        raise PathsError(f"uncertainty.forecast: no stored forecast fit #{pk}")
    if fit.metric != metric:
        raise PathsError(f"uncertainty.forecast: fit #{pk} forecasts {fit.get_metric_display()}, not {metric}")
    if fit.frequency != "M":
        raise PathsError(f"uncertainty.forecast: fit #{pk} is not monthly; paths need a monthly forecast")
    return fit


def entered_rate(fit: ForecastFit) -> float | None:
    """The growth rate (% a year) of a projection at an entered rate; None for a statistical forecast."""
    if fit.family != ENTERED_RATE:
        return None
    rate = (fit.parameters or {}).get("growth_pct_per_year", (fit.options or {}).get("growth_rate"))
    return float(rate) if rate is not None else math.nan


def entered_rate_words(fit: ForecastFit) -> str:
    """'forecast #9, 20 % a year as entered': how a page names an entered-rate projection."""
    rate = entered_rate(fit)
    return f"forecast #{fit.pk}, {rate:g} % a year as entered" if rate is not None and math.isfinite(rate) \
        else f"forecast #{fit.pk}, a growth rate as entered"


def fit_paths(fit: ForecastFit, n_paths: int, seed: int) -> tuple[list[date], np.ndarray]:
    """The fit's sample paths (n_paths x horizon months, series units): a statistical fit's calibrated paths,
    re-run from what it stored with the same engine, options and seed (forecasts.demand.series.run_forecast);
    an entered-rate projection's stored steps on every row (deterministic demand: it has no paths to re-make,
    and its short history is one the engine refuses). PathsError, never another exception, when there are none."""
    if entered_rate(fit) is not None:
        steps = (fit.result or {}).get("steps") or []
        if not steps:
            raise PathsError(f"forecast fit #{fit.pk} (a growth rate you entered) stored no projected months")
        months = [date.fromisoformat(s["date"]) for s in steps]
        row = np.asarray([float(s["median"]) for s in steps], dtype=float)
        return months, np.tile(row, (max(int(n_paths), 1), 1))
    from forecasts.demand.engine import forecast as engine_forecast
    from forecasts.demand.engine.curves import curve_members

    opts = dict(fit.options or {})
    values = [math.nan if v is None else float(v) for v in fit.values]
    horizon = int(opts.get("horizon", 36))
    family = opts.get("family_override") or None
    try:
        fc = engine_forecast(values, horizon, season_length=12, pin=family, log=opts.get("log"),
                             max_origins=int(opts.get("backtest_origins", 12)), n_paths=n_paths, seed=seed,
                             unit="months", extra_members=curve_members(None, family))
    except ValueError as exc:  # ShortHistoryError, LinAlgError and the engine's other refusals are ValueErrors
        raise PathsError(f"forecast fit #{fit.pk}: its sample paths cannot be re-made ({exc})") from exc
    if not fc.paths:
        raise PathsError(f"forecast fit #{fit.pk} gave no sample paths")
    months = [add_months(fit.through, i + 1) for i in range(horizon)]
    return months, np.asarray(fc.paths, dtype=float)


def entered_rate_fits(links: dict[str, Any]) -> list[str]:
    """The linked fits that are entered-rate projections, in words (empty when every fit is statistical)."""
    out = []
    for key, metric in (("core_fit", "core-hours"), ("storage_fit", "storage")):
        fit = ForecastFit.objects.filter(pk=links[key]).first() if key in links else None
        if fit is not None and entered_rate(fit) is not None:
            out.append(f"{metric} from {entered_rate_words(fit)}")
    return out


def whole_plan_years(plan: SequencingPlan) -> list[PlanYear]:
    """The plan's central figures in its whole years, as demand paths and typed-in demand take them."""
    return [PlanYear(y.year, y.core_hours_ref, y.stored_tb_total, y.genomes_per_day_peak, y.daily_ingest_tb_peak)
            for y in yearly_figures(plan) if y.months == 12]


def newer_fits(links: dict[str, int]) -> dict[str, int]:
    """For each linked fit, the id of a newer fit of the same series (cluster, department, metric)."""
    out = {}
    for key in ("core_fit", "storage_fit"):
        if key not in links:
            continue
        fit = ForecastFit.objects.filter(pk=links[key]).first()
        if fit is None:
            continue
        newest = (ForecastFit.objects.filter(metric=fit.metric, cluster=fit.cluster_id, department=fit.department_id,
                                             exclude_department=fit.exclude_department_id, frequency=fit.frequency)
                  .order_by("-created_at", "-pk").values_list("pk", flat=True).first())
        if newest is not None and newest != fit.pk and newest > fit.pk:
            out[key] = newest
    return out


def judged_on(fit: ForecastFit) -> str:
    """What a design started from ``fit`` is judged on, for its description and the start page."""
    rate = entered_rate(fit)
    if rate is None:
        return "judged on its sample paths"
    return (f"judged on the entered growth rate's single path ({rate:g} % a year, no interval): no uncertainty, "
            f"each year holds or falls short")


def newer_forecasts(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """The design page's notice: per linked fit with a newer one of the same series, what it forecasts in words,
    the newer fit's id and when it was made, and the fit the design is judged on (``old``)."""
    unc = scenario.get("uncertainty") or {}
    links = unc.get("forecast") if isinstance(unc, dict) else None
    if not isinstance(links, dict):
        return []
    newer = newer_fits(links)
    made = dict(ForecastFit.objects.filter(pk__in=newer.values()).values_list("pk", "created_at"))
    what = {"core_fit": "core-hours", "storage_fit": "storage"}
    return [{"what": what[k], "pk": pk, "made": made.get(pk), "old": links[k]} for k, pk in newer.items()]


# ---- the typed-in demand a linked fit gives: its yearly medians -------------------------------------

def whole_years(fit: ForecastFit, years: list[int]) -> dict[int, dict[str, Any]]:
    """The fit's whole-year figures for ``years``; PathsError naming the years it has none for."""
    by_year = {int(y["year"]): y for y in (fit.yearly or []) if y.get("complete", True) and not y.get("partial")}
    missing = [y for y in years if y not in by_year]
    if missing:
        raise PathsError(f"forecast fit #{fit.pk} has no whole-year figure for {', '.join(map(str, missing))}: "
                         f"choose years inside its horizon")
    return {y: by_year[y] for y in years}


def core_hours_by_year(fit: ForecastFit, years: list[int], factor: float = 1.0,
                       plan_hours: dict[int, float] | None = None) -> dict[int, int]:
    """Each year's typed-in core-hours from a core-hours fit: its yearly median (x ``factor``, the cluster's core
    on the plan's reference core) plus the sequencer plan's core-hours, as the demand paths add them, in whole
    core-hours (the scenario YAML printed 25961252.370948516; the paths themselves are not rounded)."""
    plan_hours = plan_hours or {}
    return {y: round(float(row["median"]) * factor + plan_hours.get(y, 0.0))  # whole core-hours, as a planner types
            for y, row in whole_years(fit, years).items()}


def storage_tb_by_year(fit: ForecastFit, years: list[int], plan_tb: dict[int, float] | None = None) -> dict[int, float]:
    """Each year's typed-in storage (TB) from a PB-stored fit: its year-end median plus the plan's TB stored."""
    from forecasts.units import TB_PER_PB

    plan_tb = plan_tb or {}
    return {y: round(float(row["median"]) * TB_PER_PB + plan_tb.get(y, 0.0), 3)  # to the GB
            for y, row in whole_years(fit, years).items()}


def storage_forecast(pk: int) -> ForecastFit:
    """The PB-stored forecast ``pk`` a design is started with (the form and the API); PathsError for any other id."""
    fit = ForecastFit.objects.filter(pk=pk, metric=ForecastFit.Metric.STORAGE_PB).first()
    if fit is None:
        raise PathsError(f"no storage forecast #{pk}")
    return fit


def storage_start(storage: ForecastFit, years: list[int], plan_tb: dict[int, float], plan_name: str | None,
                  on_top: bool, system: str | None = None) -> tuple[dict[int, float], str, str, list[dict[str, Any]]]:
    """A design started with a storage forecast too: each year's typed-in storage (TB: the fit's year-end median
    plus the plan's TB stored), the description's sentence, the scenario's comment lines and the ``existing``
    storage entries. A PB-stored trend is of every scanned file system (no per-department storage series), so it
    holds the data of whatever sequencing already runs: a plan that adds TB in the design's years goes on top
    only when the planner says its data is new (``on_top``), else PathsError. With ``system`` (the catalog
    storage system the file systems are) the design owns each file system's recorded usable TB as units of it
    (inventory.existing_storage); without one it owns no storage, and the comment gives the recorded TB."""
    from forecasts.storage.models import FileSystem, StorageSnapshot
    from planner.designs.inventory import FileSystemRecord, existing_storage, retiring
    from planner.hardware.models import StorageSystem

    fit = linked_fit(storage.pk, "storage_pb")
    adds = plan_name is not None and any(plan_tb.get(y, 0.0) > 0 for y in years)
    if adds and not on_top:
        raise PathsError(f"storage forecast #{fit.pk} holds every department's data on the scanned file systems, "
                         f"and sequencer plan '{plan_name}' adds its data on top: confirm that the plan's data is "
                         f"new to these file systems (plan's data on top), or start without the storage forecast")
    by_year = storage_tb_by_year(fit, years, plan_tb if adds else None)
    words = (f" Storage from the PB-stored forecast #{fit.pk} ({fit.series_label}, its year-end medians"
             + (f", plus plan '{plan_name}''s TB held, its data new to these file systems)" if adds else ")"))
    systems = list(FileSystem.objects.exclude(capacity_tb=None).values_list("pk", "name", "capacity_tb"))
    owned = "no file system capacity recorded" if not systems else (
        f"{sum(tb for _, _, tb in systems):,.0f} TB usable recorded on {len(systems)} file system(s): "
        + ", ".join(f"{n} {tb:,.0f} TB" for _, n, tb in systems))
    comment = (f"# demand storage_tb: storage forecast #{fit.pk}'s year-end median"
               + (" plus the plan's TB held" if adds else "") + " (TB)\n")
    existing: list[dict[str, Any]] = []
    if system:
        row = StorageSystem.objects.filter(name=system).first()
        if row is None:
            raise PathsError(f"no storage system {system!r} in the hardware catalog")
        if not systems:
            raise PathsError("no file system has a recorded capacity to count as owned storage: record it (admin, "
                             "File systems) or start without a storage system")
        first = dict(StorageSnapshot.objects.filter(status="completed").values("filesystem")
                     .annotate(first=models.Min("taken_on")).values_list("filesystem", "first"))
        records = [FileSystemRecord(n, float(tb), first.get(pk)) for pk, n, tb in systems]
        existing, not_whole = existing_storage(records, row.name, row.usable_tb, row.lifetime_years, years[0])
        units = sum(e["count"] for e in existing)
        words += f"; owns the file systems' recorded capacity as {units} {row.name} units."
        comment += (f"# existing storage: {owned}, as {row.name} units ({row.usable_tb:,.0f} TB usable each), "
                    f"bought the year each was first scanned, kept at least through {years[0]}\n")
        if not_whole:
            comment += f"# not whole {row.name} units (rounded): {'; '.join(not_whole)}\n"
        ends = retiring(existing, row.lifetime_years, years[-1])  # as the owned nodes' (services_paths.retirements)
        if ends:
            words += (f" They retire at the end of {', '.join(map(str, ends))} (the catalog's "
                      f"{row.lifetime_years}-year life from the first scan; edit existing[].lifetime_years if they "
                      "serve longer).")
    else:
        words += "."
        comment += (f"# existing: no storage owned ({owned}); add existing[] storage_system lines for what you own, "
                    "or the design buys all of it\n")
    return by_year, words, comment, existing


def _rename(text: str, moved: dict[int, int]) -> str:
    """'forecast #old' -> 'forecast #new', outside double quotes: a quoted name is another design's (an optimised
    plan's description quotes the design it was bought for, which keeps its name)."""
    import re

    parts = text.split('"')
    for i in range(0, len(parts), 2):
        for old, new in moved.items():
            parts[i] = re.sub(rf"\bforecast #{old}\b", f"forecast #{new}", parts[i])
    return '"'.join(parts)


def design_use_newest_forecasts(*, design: Any, user: Any = None) -> Any:
    """A new version of the design whose ``uncertainty.forecast`` names the newest fits (the old stays), with its
    typed-in demand rebuilt from them as starting a design from a forecast builds it (core-hours: the new fit's
    yearly medians, on the plan's reference core, plus the plan's core-hours; storage: the new storage fit's
    year-end medians plus the plan's TB) and its name and description naming the new fits. The design's other
    figures stay. PathsError when a new fit does not cover the design's years."""
    import yaml

    from forecasts.demand.models import SequencerPlan
    from forecasts.demand.plans import plan_of
    from planner.designs.services import design_create

    data = dict(design.scenario)
    unc = dict(data.get("uncertainty") or {})
    links = dict(unc.get("forecast") or {})
    newer = newer_fits(links)
    if not newer:
        return None
    old_links = dict(links)
    moved = {int(links[k]): v for k, v in newer.items()}
    links |= newer
    unc["forecast"] = links
    data["uncertainty"] = unc
    horizon = data.get("horizon") or {}
    years = list(range(int(horizon["start_year"]), int(horizon["end_year"]) + 1))
    plan_rows: dict[int, PlanYear] = {}
    factor = 1.0
    if "sequencer_plan" in links:
        row = SequencerPlan.objects.filter(pk=links["sequencer_plan"]).first()
        if row is None:
            raise PathsError(f"uncertainty.forecast: no sequencer plan #{links['sequencer_plan']}")
        plan = plan_of(row)
        plan_rows = {p.year: p for p in whole_plan_years(plan)}
        if links.get("cluster_clock_ghz"):  # the trend converted to the plan's core, as the paths convert it
            factor = float(links["cluster_clock_ghz"]) / plan.reference_clock_ghz
    figures: dict[str, dict[int, Any]] = {}
    if "core_fit" in newer:
        figures["core_hours"] = core_hours_by_year(linked_fit(newer["core_fit"], "core_hours"), years, factor,
                                                   {y: float(p.core_hours) for y, p in plan_rows.items()})
    if "storage_fit" in newer:
        figures["storage_tb"] = storage_tb_by_year(linked_fit(newer["storage_fit"], "storage_pb"), years,
                                                   {y: float(p.storage_tb) for y, p in plan_rows.items()})
    rows = {int(r["year"]): dict(r) for r in data.get("demand") or []}
    for y in years:
        rows.setdefault(y, {"year": y}).update({q: by_year[y] for q, by_year in figures.items()})
    data["demand"] = [rows[y] for y in sorted(rows)]
    for key in ("name", "description"):
        if isinstance(data.get(key), str):
            data[key] = _rename(data[key], moved)
    old_core = ForecastFit.objects.filter(pk=old_links["core_fit"]).first() if "core_fit" in newer else None
    if old_core is not None and isinstance(data.get("description"), str):  # an entered rate's one path, or not
        data["description"] = data["description"].replace(
            judged_on(old_core), judged_on(linked_fit(newer["core_fit"], "core_hours")))
    rebuilt = "; ".join(f"demand {q} {years[0]}-{years[-1]} rebuilt from forecast #{newer[k]}'s yearly medians"
                        for q, k in (("core_hours", "core_fit"), ("storage_tb", "storage_fit")) if k in newer)
    text = (f"# v{design.version + 1}: uncertainty.forecast moved to the newest fits "
            f"({', '.join(f'{k} #{v}' for k, v in newer.items())}); {rebuilt}\n")
    text += yaml.safe_dump(data, sort_keys=False)
    return design_create(text=text, user=user, parent=design)
