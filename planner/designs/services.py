"""Design services: create versions, evaluate against the database catalog, run the optimiser.

Designs are evaluated on the catalog as stored in the database (planner.hardware.services), not
the file a scenario names, so edits in the Hardware pages or the admin take effect. Every
evaluation stores the sha256 of its inputs (scenario + catalog) and the catalog rows it used.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import yaml
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone

from planner.designs.capacity import evaluate_design
from planner.designs.labels import run_status
from planner.designs.models import Design, DesignEvaluation, OptimizerRun
from planner.designs.scenario import Scenario, ScenarioError, scenario_from_dict
from planner.designs.sensitivity import cost_to_meet_demand, tornado
from planner.designs.services_prices import stored_price_resolver
from planner.hardware.catalog import Catalog
from planner.hardware.services import CatalogImportError, catalog_from_db
from planner.jobs.services import job_failed, job_progress, job_running, job_start, job_succeeded
from planner.web.textfiles import nul_problem, yaml_error, yaml_load


def scenario_parse_text(text: str, name: str | None = None) -> dict[str, Any]:
    """Scenario YAML or JSON text -> mapping; YAML syntax errors name the line. With ``name`` (an uploaded
    file's) every error is one line that starts with it: "s.yaml, line 3, column 5: not valid YAML: ..."."""
    try:
        data = yaml_load(text)
    except yaml.YAMLError as exc:
        if name:
            raise ScenarioError([yaml_error(name, exc)]) from None
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "YAML"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError([f"{where}: {problem}"]) from None
    if name and data is None:
        raise ScenarioError([f"{name}: the file holds no scenario (empty, or only comments)"])
    if not isinstance(data, dict):
        what = f"{name}: not a scenario" if name else "scenario"
        found = f" (found {_kind(data)})" if name else ""
        raise ScenarioError([f"{what}: expected a mapping of name, horizon, existing, purchases, demand, ...{found}"])
    nul = nul_problem(data, root="scenario")  # a "\0" escape: no database text can hold it
    if nul:
        raise ScenarioError([f"{name}: {nul}" if name else nul])
    return json.loads(json.dumps(data, default=str))  # JSON-safe (int year keys become strings)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a line of text"
    return f"a single {type(value).__name__} value"


def design_scenario(data: dict[str, Any], catalog: Catalog | None = None) -> Scenario:
    """Validate a scenario mapping against the database catalog (ScenarioError names every field);
    ``price_trends`` are resolved against the stored forecasts of price series."""
    try:
        cat = catalog or catalog_from_db()
    except CatalogImportError as exc:
        raise ScenarioError([f"catalog: {exc}"]) from None
    return scenario_from_dict(data, catalog=cat, price_resolver=stored_price_resolver)


def inputs_sha256(data: dict[str, Any], catalog: Catalog, price_sources: list[dict[str, Any]] | None = None) -> str:
    """Digest of everything an evaluation depends on; forecast prices count (a refit changes them)."""
    inputs: dict[str, Any] = {"scenario": data, "catalog": catalog.to_dict()}
    if price_sources:
        inputs["prices"] = price_sources
    blob = json.dumps(inputs, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@transaction.atomic
def design_create(*, text: str, user: Any = None, name: str | None = None, parent: Design | None = None) -> Design:
    """A new design (or a new version of ``parent``) from scenario text, validated first."""
    data = scenario_parse_text(text)
    design_scenario(data)
    the_name = name or str(data.get("name") or (parent.name if parent else "Untitled design"))
    return Design.objects.create(
        name=the_name, description=str(data.get("description") or "").strip(), scenario_yaml=text,
        scenario=data, parent=parent, version=(parent.version + 1) if parent else 1,
        created_by=user if user is not None and getattr(user, "is_authenticated", False) else None,
    )


def design_latest_versions() -> Any:
    """One row per design: the versions nobody has edited further."""
    return Design.objects.filter(revisions__isnull=True)


def design_latest_evaluation(design: Design) -> DesignEvaluation | None:
    return design.evaluations.order_by("-created_at").first()


def design_latest_evaluations(designs: list[Design]) -> dict[int, DesignEvaluation]:
    """design pk -> its latest evaluation, for a list of designs in two queries (not one per design)."""
    latest = (DesignEvaluation.objects.filter(design=OuterRef("pk")).order_by("-created_at").values("pk")[:1])
    ids = (Design.objects.filter(pk__in=[d.pk for d in designs]).annotate(ev_id=Subquery(latest))
           .values_list("pk", "ev_id"))
    by_id = DesignEvaluation.objects.in_bulk([ev_id for _, ev_id in ids if ev_id is not None])
    return {pk: by_id[ev_id] for pk, ev_id in ids if ev_id in by_id}


def design_evaluate(*, design: Design, user: Any = None) -> DesignEvaluation:
    """Evaluate the design on the current catalog; an evaluation of identical inputs is reused."""
    cat = catalog_from_db()
    sc = design_scenario(design.scenario, cat)
    sources = [s.to_dict() for s in sc.price_sources]
    digest = inputs_sha256(design.scenario, cat, sources)
    found = design.evaluations.filter(inputs_sha256=digest).order_by("-created_at").first()
    if found:
        return found
    ev = evaluate_design(sc.design, sc.catalog)
    return DesignEvaluation.objects.create(
        design=design, inputs_sha256=digest, catalog_snapshot=cat.to_dict(), result=ev.to_dict(),
        price_sources=sources, feasible=ev.feasible, npv_usd=ev.npv_usd,
        created_by=user if user is not None and getattr(user, "is_authenticated", False) else None,
    )


def design_sensitivity(evaluation: DesignEvaluation) -> dict[str, Any]:
    """The tornado of one evaluation (computed once: about a second, 9 small MILPs; then stored)."""
    if evaluation.sensitivity:
        return evaluation.sensitivity
    cat = catalog_from_db()
    sc = design_scenario(evaluation.design.scenario, cat)
    o = sc.optimize
    cost = cost_to_meet_demand(o.node_types, o.storage_systems, time_limit_s=min(o.time_limit_s, 5.0))
    evaluation.sensitivity = tornado(sc.design, sc.catalog, cost=cost, price_bounds=sc.price_bounds,
                                     price_label=_price_bar_label(sc)).to_dict()
    evaluation.save(update_fields=["sensitivity"])
    return evaluation.sensitivity


def _price_bar_label(sc: Scenario) -> str | None:
    if not sc.price_bounds:
        return None
    forecast = ", ".join(s.target for s in sc.price_sources)
    return f"Hardware prices ({forecast}: forecast P10-P90)"  # the others move ±20 % (page text says so)


# ---- optimiser -------------------------------------------------------------------------------------
# The Celery task solving a run (planner.designs.tasks), enqueued by name.
OPTIMIZE_TASK = "planner.tasks.optimize_design_run"


def optimizer_run_start(*, design: Design, user: Any = None, time_limit_s: float | None = None,
                        keep_purchases: bool | None = None) -> OptimizerRun:
    """Create the run and its BackgroundJob; a Celery worker solves it (planner.tasks.optimize_design_run)."""
    design_scenario(design.scenario)  # fail here, not in the worker, on an invalid scenario
    params: dict[str, Any] = {}
    if time_limit_s is not None:
        params["time_limit_s"] = float(time_limit_s)
    if keep_purchases is not None:
        params["keep_purchases"] = bool(keep_purchases)
    with transaction.atomic():
        run = OptimizerRun.objects.create(design=design, params=params,
                                          created_by=user if getattr(user, "is_authenticated", False) else None)
        job = job_start(kind="optimize_design", label=f"Optimise {design.name}", task=OPTIMIZE_TASK,
                        params={"run_id": run.pk}, user=user, unit="steps")
        run.job = job
        run.save(update_fields=["job"])
    return run


def optimizer_run_execute(run_id: int, job_id: int | None = None) -> OptimizerRun:
    """Solve one optimiser run and store its result (called by the task and by the command)."""
    from planner.designs.optimize import optimize_design

    run = OptimizerRun.objects.select_related("design").get(pk=run_id)
    run.status = OptimizerRun.Status.RUNNING
    run.save(update_fields=["status"])
    if job_id:
        job_running(job_id, total=3, message="Building the mixed-integer program from the catalog")
    try:
        cat = catalog_from_db()
        sc = design_scenario(run.design.scenario, cat)
        o = sc.optimize
        limit = float(run.params.get("time_limit_s", o.time_limit_s))
        keep = bool(run.params.get("keep_purchases", o.keep_purchases))
        if job_id:
            job_progress(job_id, done=1, message=f"Solving with HiGHS (time limit {limit:g} s, gap "
                                                   f"{o.mip_rel_gap:.2%})")
        res = optimize_design(sc.design, sc.catalog, node_types=o.node_types, storage_systems=o.storage_systems,
                              max_count_per_year=o.max_count_per_year, time_limit_s=limit,
                              mip_rel_gap=o.mip_rel_gap, keep_purchases=keep)
        if job_id:
            job_progress(job_id, done=2, message=f"{res.status}: storing the plan and its evaluation")
    except (ScenarioError, CatalogImportError) as exc:
        run.status, run.message, run.finished_at = OptimizerRun.Status.FAILED, str(exc), timezone.now()
        run.save(update_fields=["status", "message", "finished_at"])
        if job_id:
            job_failed(job_id, message=str(exc), result_url=reverse("designs:run", args=[run.pk]))
        return run
    run.inputs_sha256 = inputs_sha256(run.design.scenario, cat, [s.to_dict() for s in sc.price_sources])
    run.result = res.to_dict()
    run.status = res.status
    run.message = res.message
    run.finished_at = timezone.now()
    run.save(update_fields=["inputs_sha256", "result", "status", "message", "finished_at"])
    if job_id:
        url = reverse("designs:run", args=[run.pk])
        job_progress(job_id, done=3)
        job_succeeded(job_id, result={"run_id": run.pk, "status": res.status, "npv_usd": res.npv_usd},
                      result_url=url, message=res.message)
    return run


def optimizer_run_fail(run_id: int, job_id: int | None, message: str) -> None:
    OptimizerRun.objects.filter(pk=run_id).update(status=OptimizerRun.Status.FAILED, message=message,
                                                  finished_at=timezone.now())
    if job_id:
        job_failed(job_id, message=message, result_url=reverse("designs:run", args=[run_id]))


def plan_as_scenario(run: OptimizerRun) -> dict[str, Any]:
    """The run's design with the optimiser's purchases (added to its own if keep_purchases)."""
    data = json.loads(json.dumps(run.design.scenario))
    keep = bool(run.params.get("keep_purchases", (data.get("optimize") or {}).get("keep_purchases", False)))
    bought = [{k: v for k, v in p.items() if v not in (None, 0, 0.0)} for p in (run.result or {}).get("purchases", [])]
    data["purchases"] = (list(data.get("purchases") or []) if keep else []) + bought
    data["name"] = f"{run.design.name} (optimised, run #{run.pk})"
    status = run_status(run.status, run.result, run.design.scenario, run.message)["label"]
    data["description"] = (f"The purchases optimiser run #{run.pk} ({status[:1].lower() + status[1:]}) chose for "
                           f"\"{run.design.name}\""
                           + (" on top of its own" if keep else "") + ". " + str(data.get("description") or "")).strip()
    return data


@transaction.atomic
def optimizer_run_save_design(*, run: OptimizerRun, user: Any = None) -> Design:
    """Save the optimised plan as a design of its own (evaluated), so it can be compared."""
    if run.result_design_id:
        return run.result_design  # type: ignore[return-value]
    if run.status not in (OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP):
        raise ScenarioError([f"optimiser run #{run.pk} has no plan to save (status {run.status})"])
    data = plan_as_scenario(run)
    text = f"# Saved from optimiser run #{run.pk} of design #{run.design_id}\n" + yaml.safe_dump(
        data, sort_keys=False, width=110)
    design = design_create(text=text, user=user)
    design_evaluate(design=design, user=user)
    run.result_design = design
    run.save(update_fields=["result_design"])
    return design


def design_explanation(design: Design, evaluation: DesignEvaluation) -> dict[str, Any] | None:
    """The design page's 'why these nodes' card: of the years with genomes to serve, the one the plan buys the most
    nodes in (else the last), explained with the performance model (planner.designs.explain); None for the
    typed-in cost model."""
    from planner.designs.capacity import pipeline_model
    from planner.designs.explain import explain_year, year_to_explain

    try:
        sc = design_scenario(design.scenario)
    except ScenarioError:
        return None
    pm = pipeline_model(sc.design, sc.catalog)
    if pm is None:
        return None
    years = [y for y in evaluation.result.get("years", []) if (y.get("genomes_per_day_demand") or 0) > 0
             and y.get("storage_utilisation")]
    if not years:
        return None
    year, why_year = year_to_explain(sc.design.purchases, [int(y["year"]) for y in years])
    out = explain_year(sc.design, sc.catalog, pm, next(y for y in years if int(y["year"]) == year),
                       sc.optimize.node_types)
    out["why_year"] = why_year
    out["arch_rules"] = {n: pm.arch_rule(n) for n in sc.catalog.node_types}
    return out


def design_unit_losses(data: dict[str, Any]) -> dict[tuple[int, str], tuple[float, int]]:
    """What one unit fewer takes from each met check of a scenario (planner.designs.binding), for the year table's
    "binds" marker; empty when the scenario no longer reads against the catalog."""
    from planner.designs.binding import unit_losses

    try:
        sc = design_scenario(data)
    except ScenarioError:
        return {}
    return unit_losses(sc.design, sc.catalog)
