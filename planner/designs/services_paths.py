"""Joint demand paths from the product's own stored forecasts and sequencer plans (Django shell).

``stored_paths_resolver`` is handed to the pure core (planner.designs.uncertainty) when a
scenario's ``uncertainty.forecast`` names stored fits: each fit's sample paths
(planner.designs.forecast_links.fit_paths: a statistical fit's calibrated ones, an entered growth rate's
single path), summed per calendar year (partial years left out), and added path by path to the
sequencer plan's figures under the scenario's plan spread.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecasts.accounting.models import Department
from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.paths import DemandPaths, PathsError, PlanYear, combine, year_end_levels, yearly_totals
from forecasts.demand.plans import plan_of, trend_holds_sequencing
from forecasts.units import TB_PER_PB
from planner.designs.forecast_links import (  # noqa: F401 (design_use_newest_forecasts: the pages' import)
    core_hours_by_year,
    design_use_newest_forecasts,
    entered_rate,
    entered_rate_fits,
    fit_paths,
    judged_on,
    linked_fit,
    newer_fits,
    storage_start,
    whole_plan_years,
    whole_years,
)
from planner.designs.inventory import CapacityStep, Inventory, existing_nodes, node_type_of, retiring
from planner.designs.labels import forecast_scope, labels_for


def stored_paths_resolver(spec: Any, years: list[int], n_paths: int, seed: int) -> DemandPaths:
    links = spec.forecast
    partial: set[int] = set()
    trend_core = trend_storage = None
    plan_years: list[PlanYear] = []
    ref_clock = None
    if "sequencer_plan" in links:
        row = SequencerPlan.objects.filter(pk=links["sequencer_plan"]).first()
        if row is None:
            raise PathsError(f"uncertainty.forecast: no sequencer plan #{links['sequencer_plan']}")
        plan = plan_of(row)
        ref_clock = plan.reference_clock_ghz
        plan_years = whole_plan_years(plan)
    labels = {"core_label": "core-hours forecast", "storage_label": "storage forecast"}
    if "core_fit" in links:
        core = linked_fit(links["core_fit"], "core_hours")
        months, paths = fit_paths(core, n_paths, seed)
        whole, totals, part = yearly_totals(months, paths)
        partial.update(part)
        if spec.cluster_clock_ghz and ref_clock:
            totals = totals * spec.cluster_clock_ghz / ref_clock  # strict linear clock comparison
        trend_core = (whole, totals)
        if entered_rate(core) is not None:  # one path, not a fan: not called a forecast's paths
            labels["core_label"] = "core-hours at the entered growth rate (one path)"
    if "storage_fit" in links:
        storage = linked_fit(links["storage_fit"], "storage_pb")
        months, paths = fit_paths(storage, n_paths, seed + 7919)
        level_years, levels = year_end_levels(months, paths)
        trend_storage = (level_years, levels * TB_PER_PB)
        if entered_rate(storage) is not None:
            labels["storage_label"] = "storage at the entered growth rate (one path)"
    return combine(years=years, n_paths=n_paths, seed=seed, trend_core_hours=trend_core,
                   trend_storage_tb=trend_storage, plan=plan_years, spread=spec.plan, partial_years=sorted(partial),
                   **labels)


# ---- the design page: the chance it is enough, and newer forecasts -------------------------------

def _spec_key(design: Any, ev: Any) -> str:
    import hashlib
    import json

    blob = json.dumps({"u": design.scenario.get("uncertainty"), "ev": ev.pk}, sort_keys=True, default=str)
    return "design-chance:" + hashlib.sha256(blob.encode()).hexdigest()[:24]


def design_chance(design: Any, ev: Any, *, n_paths: int | None = None) -> dict[str, Any] | None:
    """The stored evaluation judged on the design's demand paths (None when it has no ``uncertainty:``).

    Cached per evaluation and uncertainty block: the paths are reproducible (seeded), so the
    figures do not change until either does.
    """
    from django.core.cache import cache

    from planner.designs.chance import available_from_evaluation, chances
    from planner.designs.scenario import ScenarioError
    from planner.designs.services import design_scenario
    from planner.designs.uncertainty import demand_paths

    if not design.scenario.get("uncertainty"):
        return None
    key = _spec_key(design, ev) + (f":{n_paths}" if n_paths else "")
    cached = cache.get(key)
    if cached is not None:  # newer fits can appear at any time: never cached
        links = (design.scenario.get("uncertainty") or {}).get("forecast") or {}
        return _labelled(dict(cached) | {"newer_fits": newer_fits(links) if isinstance(links, dict) else {}})
    try:  # a page that shows the chance never fails for it: a reason instead
        sc = design_scenario(design.scenario)
        assert sc.uncertainty is not None
        demand = demand_paths(sc.design, sc.uncertainty, n_paths=n_paths, resolver=stored_paths_resolver)
    except ScenarioError as exc:
        return {"error": "; ".join(exc.errors)}
    except PathsError as exc:
        return {"error": str(exc)}
    years = [y for y in sc.design.years if y in demand.years]
    report = chances(years=years, available=available_from_evaluation(ev.result), demand=demand,
                     flash_days=sc.design.flash_days)
    out = {"report": report.to_dict(), "quantiles": demand.quantiles((0.05, 0.1, 0.5, 0.9, 0.95)),
           "sources": demand.sources, "partial_years": demand.partial_years, "n_paths": demand.n_paths,
           "uncertainty": sc.uncertainty.to_dict(), "newer_fits": newer_fits(sc.uncertainty.forecast),
           "single_path": single_path(demand, sc.uncertainty.forecast)}
    cache.set(key, out, 3600)
    return _labelled(out)


def single_path(demand: DemandPaths, links: dict[str, Any]) -> dict[str, Any] | None:
    """When a linked fit is a projection at an entered growth rate: which (``fits``) and whether every path is
    the same (``all``: no uncertainty left, so each year holds on all paths or on none); None otherwise."""
    fits = entered_rate_fits(links) if links else []
    if not fits:
        return None
    same = all(bool(np.all(q == q[:1])) for q in (demand.core_hours, demand.storage_tb, demand.genomes_per_day,
                                                   demand.ingest_tb_per_day))
    return {"fits": fits, "all": same}


def _labelled(chance: dict[str, Any]) -> dict[str, Any]:
    """``labels``: each constraint of the report as a person reads it, with its unit ("Storage (TB)")."""
    names = dict.fromkeys(c["constraint"] for y in chance["report"]["years"] for c in y["constraints"])
    return chance | {"labels": labels_for(list(names))}


def whole_future_years(fit: ForecastFit) -> list[int]:
    """The forecast's whole years after its history (a part year, observed or forecast, is not one)."""
    return sorted(int(y["year"]) for y in (fit.yearly or []) if y.get("complete", True) and not y.get("partial")
                  and int(y["year"]) > fit.through.year)


DESIGN_YEARS = 5  # a design started from a forecast plans its first whole years, up to this many by default


def design_years(fit: ForecastFit, start: Any = None, end: Any = None) -> tuple[int, int]:
    """The years a design started from ``fit`` plans for: ``start`` .. ``end`` (form or API values; each
    default: the first whole future year, up to DESIGN_YEARS of them), each one of the forecast's whole
    future years; PathsError with the reason otherwise."""
    whole = whole_future_years(fit)
    if not whole:
        raise PathsError(f"forecast #{fit.pk} has no whole future year: refit it with a longer horizon")

    def year(raw: Any, default: int) -> int:
        if raw in (None, ""):
            return default
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise PathsError(f"a year such as {default}, got {str(raw)[:12]!r}") from None
        if value not in whole:
            raise PathsError(f"{value} is not a whole year of the forecast ({whole[0]}-{whole[-1]})")
        return value

    first, last = year(start, whole[0]), year(end, whole[min(len(whole), DESIGN_YEARS) - 1])
    if last < first:
        raise PathsError(f"the last year ({last}) is before the first ({first})")
    return first, last


def cluster_inventory(fit: ForecastFit, node_type: str, start_year: int) -> tuple[Inventory, Any]:
    """The fit's cluster's capacity records before ``start_year`` as existing nodes of ``node_type``."""
    from forecasts.accounting.models import ClusterCapacity
    from planner.hardware.models import NodeType

    if fit.cluster_id is None:
        raise PathsError(f"forecast fit #{fit.pk} is for all clusters: name a cluster's forecast to count its nodes")
    row = NodeType.objects.filter(name=node_type).first()
    if row is None:
        raise PathsError(f"no node type {node_type!r} in the hardware catalog")
    steps = [CapacityStep(r.effective_from, r.cores, r.note)
             for r in ClusterCapacity.objects.filter(cluster_id=fit.cluster_id).order_by("effective_from")]
    if not steps:
        raise PathsError(f"cluster {fit.cluster.name} has no capacity records to count its nodes from")
    return existing_nodes(steps, row.name, row.cores_per_node, row.lifetime_years, start_year), row


def guess_node_type(fit: ForecastFit) -> str | None:
    """The catalog node type as wide as the fit's cluster's nodes (its newest capacity record), if only one is."""
    from forecasts.accounting.models import ClusterCapacity
    from planner.hardware.models import NodeType

    if fit.cluster_id is None:
        return None
    last = ClusterCapacity.objects.filter(cluster_id=fit.cluster_id).order_by("-effective_from").first()
    if last is None:
        return None
    return node_type_of(last.cores, last.nodes, dict(NodeType.objects.values_list("name", "cores_per_node")))


def plan_overlap(fit: ForecastFit, department: Department | None = None) -> str | None:
    """Why a sequencer plan of ``department`` (None: a plan that does not say whose sequencing it is) added
    on top of ``fit`` would count sequencing twice; None when the trend holds none of it
    (forecasts.demand.plans.trend_holds_sequencing: the plan's department left out, or another single
    department's trend; without a department, any fit without one department, as in the combined projection)."""
    if not trend_holds_sequencing(fit, department):
        return None
    where = fit.cluster.name if fit.cluster_id else "all clusters"
    if department is None:
        whose = f"department {fit.department.code}'s" if fit.department_id else "every department's"
        return (f"forecast #{fit.pk} counts {whose} core-hours on {where}, and a sequencer plan's core-hours are "
                f"added on top of it: sequencing that already runs there would be counted twice")
    code = department.code
    if fit.department_id:
        whose = f"department {code}'s core-hours on {where}"
    elif fit.exclude_department_id:
        whose = (f"every department's core-hours but {fit.exclude_department.code}'s on {where}, department "
                 f"{code}'s among them")
    else:
        whose = f"every department's core-hours on {where}, department {code}'s among them"
    return (f"forecast #{fit.pk} counts {whose}, and the plan is department {code}'s sequencing: added on top, "
            f"that sequencing would be counted twice")


def excluding_fits(fit: ForecastFit, department: Department | None = None) -> list[ForecastFit]:
    """The newest forecast of the same cluster, metric and frequency without each department (with
    ``department``: without that one only): the trends a plan can go on."""
    fits = ForecastFit.objects.filter(metric=fit.metric, cluster=fit.cluster_id, frequency=fit.frequency,
                                      exclude_department__isnull=False).select_related("cluster", "exclude_department")
    if department is not None:
        return list(fits.filter(exclude_department=department).order_by("-created_at", "-pk")[:1])
    return list(fits.order_by("exclude_department_id", "-created_at", "-pk").distinct("exclude_department_id"))


def _check_plan_on(fit: ForecastFit, plan: SequencerPlan | None, plan_on_top: bool, adds: bool) -> str:
    """How the plan's core-hours join the trend (for the design's description, naming the plan's department
    when it has one); PathsError when they might count twice (the plan ``adds`` core-hours in the design's
    years, ``plan_overlap``) and the planner has not said the plan's sequencing is new to the cluster."""
    if plan is None:
        return ""
    if not adds:
        return "adds no core-hours in these years"
    dept = plan.department
    why = plan_overlap(fit, dept)
    if why is None:
        if dept is None:
            return f"on top of the trend without {fit.exclude_department.code}"
        if fit.exclude_department_id:
            return f"on top of the trend without {dept.code}, the department whose sequencing the plan is"
        return (f"on top of department {fit.department.code}'s trend, which holds none of department {dept.code}'s "
                f"sequencing")
    if not plan_on_top:
        others = ", ".join(f"#{f.pk} ({f.series_label})" for f in excluding_fits(fit, dept))
        if others:
            instead = f"start from {others} instead"
        elif dept is None:
            instead = ("fit the cluster's core-hours without the sequencing department (forecasts page, Department: "
                       "all but it) and start from that")
        else:
            instead = (f"fit the cluster's core-hours without department {dept.code} (forecasts page, Department: "
                       f"all but {dept.code}) and start from that")
        raise PathsError(f"{why}: {instead}, or confirm that the plan's sequencing is new to the cluster "
                         f"(plan on top)")
    if dept is None:
        return "on top of the whole trend: its sequencing is new to the cluster, as the planner confirmed"
    if fit.department_id:
        trend = f"department {dept.code}'s own trend"
    elif fit.exclude_department_id:
        trend = f"the trend without {fit.exclude_department.code}, department {dept.code}'s included"
    else:
        trend = f"the whole trend, department {dept.code}'s included"
    return (f"on top of {trend}: department {dept.code}'s sequencing in the plan is new to the cluster, as the "
            f"planner confirmed")


def retirements(existing: list[dict[str, Any]], lifetime: int, start_year: int, end_year: int) -> str:
    """When the owned nodes leave service inside the horizon, and why: " 40 nodes retire at the end of 2020 and 16
    at the end of 2021 (the catalog's 5-year life, kept through 2020 as the records show them running)." The
    purchases a plan makes to replace them are otherwise unexplained on the design page."""
    by_year = retiring(existing, lifetime, end_year)
    if not by_year:
        return ""
    parts = [f"{n} at the end of {y}" for y, n in by_year.items()]
    text = parts[0].replace(" at", " nodes retire at", 1) + "".join(
        f"{' and' if i == len(parts) - 1 else ','} {p}" for i, p in enumerate(parts[1:], start=1))
    return (f" Of these, {text} (the catalog's {lifetime}-year life, kept through {start_year} for nodes the "
            "records show running: edit existing[].lifetime_years if they serve longer).")


def design_from_forecast(*, fit: ForecastFit, start_year: int, end_year: int, user: Any = None,
                         plan: SequencerPlan | None = None, node_type: str | None = None,
                         plan_on_top: bool = False, storage: ForecastFit | None = None,
                         plan_storage_on_top: bool = False, storage_system: str | None = None) -> Any:
    """Start a design for a cluster from its core-hours forecast: demand and paths linked to the fit.

    With ``node_type`` (the cluster's nodes in the catalog) the design owns the cluster's recorded nodes
    (``cluster_inventory``) and counts demand on the cluster's own core: the reference core is that node's
    (or, with a sequencer plan, the plan's reference node, the trend converted to it by clock).  A plan goes
    on top of a trend that holds none of its sequencing (``plan_overlap``: with the plan's department D, a fit
    of all but D or of another single department; without one, a fit of all but any department); on any other
    fit only with ``plan_on_top`` (its sequencing is new to the cluster), else PathsError. With ``storage`` (a
    PB-stored forecast) the storage check is on too, its demand and paths from that fit
    (forecast_links.storage_start; a plan's TB on top only with ``plan_storage_on_top``; with ``storage_system``
    it owns the file systems' recorded capacity as units of that catalog storage system)."""
    import yaml

    from planner.designs.services import design_create

    years = list(range(start_year, end_year + 1))
    whole_years(fit, years)
    seq = plan_of(plan) if plan is not None else None
    plan_hours = {p.year: float(p.core_hours) for p in whole_plan_years(seq)} if seq is not None else {}
    plan_on = _check_plan_on(fit, plan, plan_on_top, adds=any(plan_hours.get(y, 0.0) > 0 for y in years))
    where = fit.cluster.name if fit.cluster_id else "all clusters"
    whose = forecast_scope(fit.cluster.name if fit.cluster_id else None, fit.department.code if fit.department_id
                           else None, fit.exclude_department.code if fit.exclude_department_id else None)
    links: dict[str, Any] = {"core_fit": fit.pk} | ({"sequencer_plan": plan.pk} if plan else {})
    factor = 1.0
    comment = f"# Started from forecast #{fit.pk}; edit the storage and sequencing figures to check them too\n"
    data: dict[str, Any] = {
        "name": f"Design for {whose} from forecast #{fit.pk}",
        "description": f"Demand from the core-hours forecast #{fit.pk} ({whose}); {judged_on(fit)}.",
        "horizon": {"start_year": start_year, "end_year": end_year},
    }
    if node_type:
        inv, row = cluster_inventory(fit, node_type, start_year)
        core = row.base_clock_ghz * row.arch_factor
        if seq is None:
            data["reference_core"] = {"clock_ghz": row.base_clock_ghz, "arch_factor": row.arch_factor}
        else:
            ref_clock = seq.reference_clock_ghz
            data["reference_core"] = {"clock_ghz": ref_clock, "arch_factor": 1.0}
            links["cluster_clock_ghz"] = core
            factor = core / ref_clock
        data["existing"] = inv.existing
        on = "that node's core." if seq is None else f"the plan's reference core ({ref_clock} GHz)."
        shared = f", shared with departments other than {fit.department.code}," if fit.department_id else ""
        data["description"] += (f" Owns {where}'s {inv.cores:,} recorded cores{shared} as {row.name} nodes"
                                f" ({sum(e['count'] for e in inv.existing)} nodes); demand on {on}"
                                + retirements(inv.existing, row.lifetime_years, start_year, end_year))
        comment += (f"# existing: {where}'s capacity records as {row.name} nodes ({row.cores_per_node} cores), each "
                    f"step bought in its year; the catalog's {row.lifetime_years}-year lifetime, or through "
                    f"{start_year} for nodes the records show still running\n")
        if inv.not_whole:
            comment += f"# not whole {row.name} nodes (rounded): {'; '.join(inv.not_whole)}\n"
    if plan is not None:
        data["description"] += f" Sequencer plan '{plan}' {plan_on}."
        comment += ("# demand core_hours: the forecast's yearly median (on the plan's reference core) plus the plan's "
                    "core-hours in its whole years\n")
    demand = [{"year": y, "core_hours": v} for y, v in core_hours_by_year(fit, years, factor, plan_hours).items()]
    off = ["storage_tb", "genomes_per_day", "ingest_tb_per_day", "files"]
    if storage_system and storage is None:
        raise PathsError("the file systems are counted as owned storage only with a storage forecast: choose one")
    if storage is not None:
        plan_tb = {p.year: float(p.storage_tb) for p in whole_plan_years(seq)} if seq is not None else {}
        tb, words, lines, owned = storage_start(storage, years, plan_tb, str(plan) if plan else None,
                                                plan_storage_on_top, storage_system)
        if owned:
            data["existing"] = list(data.get("existing") or []) + owned
        for row_ in demand:
            row_["storage_tb"] = tb[row_["year"]]
        links["storage_fit"] = storage.pk
        off.remove("storage_tb")
        data["description"] += words
        comment = comment.replace("the storage and sequencing figures", "the sequencing figures", 1) + lines
    data |= {
        "demand": demand,
        "constraints": {"off": off},
        "uncertainty": {"paths": 1000, "seed": 0, "forecast": links},
        "optimize": {"service_level": 0.9},
    }
    return design_create(text=comment + yaml.safe_dump(data, sort_keys=False), user=user)


# ---- plans bought for a service level (an optimiser run of its own kind) ---------------------------
# The Celery task (planner.designs.tasks), enqueued by name.
SERVICE_LEVEL_TASK = "planner.tasks.service_level_run"
CURVE_LEVELS = (0.5, 0.8, 0.9, 0.95)


def service_level_run_create(*, design: Any, alpha: float, user: Any = None, n_paths: int | None = None) -> Any:
    """The OptimizerRun of the plan for ``alpha`` and the cost-of-confidence curve, not yet solved
    (:func:`service_level_run_execute` solves it; :func:`service_level_run_start` queues that)."""
    from planner.designs.models import OptimizerRun
    from planner.designs.services import design_scenario

    if not 0 < alpha <= 1:
        raise PathsError(f"service level must be in (0, 1], got {alpha}")
    design_scenario(design.scenario)  # fail here on an invalid scenario, not in the worker
    return OptimizerRun.objects.create(
        design=design, params={"kind": "service_level", "service_level": alpha, "paths": n_paths,
                               "levels": sorted(set(CURVE_LEVELS) | {alpha})},
        created_by=user if getattr(user, "is_authenticated", False) else None)


def service_level_run_start(*, design: Any, alpha: float, user: Any = None, n_paths: int | None = None) -> Any:
    """Queue the plan for ``alpha`` and the cost-of-confidence curve; returns the OptimizerRun."""
    from django.db import transaction

    from planner.jobs.services import job_start

    with transaction.atomic():
        run = service_level_run_create(design=design, alpha=alpha, user=user, n_paths=n_paths)
        run.job = job_start(kind="service_level", label=f"Plan for {alpha:.0%} of demand paths: {design.name}",
                            task=SERVICE_LEVEL_TASK, params={"run_id": run.pk}, user=user, unit="levels")
        run.save(update_fields=["job"])
    return run


def service_level_run_execute(run_id: int, job_id: int | None = None) -> Any:
    """Buy a plan at each level on one set of paths, judge each on an independent set, store the curve."""
    from django.urls import reverse
    from django.utils import timezone

    from planner.designs.confidence import chance_of, plan_for_service_level
    from planner.designs.models import OptimizerRun
    from planner.designs.scenario import ScenarioError
    from planner.designs.services import design_scenario
    from planner.designs.uncertainty import Uncertainty, demand_paths
    from planner.hardware.services import CatalogImportError
    from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded

    run = OptimizerRun.objects.select_related("design").get(pk=run_id)
    levels = [float(a) for a in run.params.get("levels", CURVE_LEVELS)]
    alpha = float(run.params["service_level"])
    run.status = OptimizerRun.Status.RUNNING
    run.save(update_fields=["status"])
    if job_id:
        job_running(job_id, total=len(levels) + 1, message="Drawing the demand paths")
    try:
        sc = design_scenario(run.design.scenario)
        spec = sc.uncertainty or Uncertainty()
        n = run.params.get("paths") or None
        d_in = demand_paths(sc.design, spec, n_paths=n, resolver=stored_paths_resolver)
        d_out = demand_paths(sc.design, spec, n_paths=n, seed_offset=1, resolver=stored_paths_resolver)
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        msg = "; ".join(exc.errors) if isinstance(exc, ScenarioError) else str(exc)
        run.status, run.message, run.finished_at = OptimizerRun.Status.FAILED, msg, timezone.now()
        run.save(update_fields=["status", "message", "finished_at"])
        if job_id:
            job_failed(job_id, message=msg, result_url=reverse("designs:run", args=[run.pk]))
        return run
    o = sc.optimize
    curve, chosen = [], None
    for i, a in enumerate(levels, start=1):
        if job_id:
            job_progress(job_id, done=i, message=f"Buying for {a:.0%} of {d_in.n_paths:,} paths")
        res, plan = plan_for_service_level(
            sc.design, sc.catalog, d_in, a, node_types=o.node_types, storage_systems=o.storage_systems,
            max_count_per_year=o.max_count_per_year, time_limit_s=o.time_limit_s, mip_rel_gap=o.mip_rel_gap,
            keep_purchases=o.keep_purchases)
        bought = [{"year": p.year, "item": p.node_type or p.storage_system, "count": p.count} for p in res.purchases]
        level: dict[str, Any] = {"alpha": a, "status": res.status, "mip_gap": res.mip_gap, "npv_usd": res.npv_usd,
                                 "message": res.message,
                                 "purchases": bought, "in_sample_level": res.in_sample_level,
                                 "in_sample": {}, "out_of_sample": {}, "solve_seconds": res.solve_seconds}
        if res.evaluation is not None:
            inside, outside = chance_of(plan, sc.catalog, d_in), chance_of(plan, sc.catalog, d_out)
            level["in_sample"] = {str(y.year): y.all_constraints for y in inside.years}
            level["out_of_sample"] = {str(y.year): y.all_constraints for y in outside.years}
            level["out_of_sample_every_year"] = outside.every_year
        curve.append(level)
        if abs(a - alpha) < 1e-9:
            chosen = (res, level)
    assert chosen is not None
    res, level = chosen
    out = res.to_dict()
    out["service_level"] = {"alpha": alpha, "paths": d_in.n_paths, "check_paths": d_out.n_paths,
                            "in_sample": level["in_sample"],
                            "out_of_sample": level["out_of_sample"], "sources": d_in.sources,
                            "in_sample_level": res.in_sample_level,
                            "curve": curve,
                            "note": "Bought to cover the service level plus a binomial sampling margin of the "
                                    "in-sample paths (exact for those paths: scenario MILP, HiGHS); "
                                    "out-of-sample shares are direct counts on "
                                    f"{d_out.n_paths:,} independent paths"}
    run.result, run.status = out, res.status
    run.message = f"{res.message}; service level {alpha:.0%} on {d_in.n_paths:,} paths"
    run.finished_at = timezone.now()
    run.save(update_fields=["result", "status", "message", "finished_at"])
    if job_id:
        job_progress(job_id, done=len(levels) + 1)
        job_succeeded(job_id, result={"run_id": run.pk, "status": res.status, "npv_usd": res.npv_usd},
                      result_url=reverse("designs:run", args=[run.pk]), message=run.message)
    return run
