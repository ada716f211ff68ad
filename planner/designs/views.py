"""Design pages: list, design page, editor, comparison with sensitivity, optimiser runs (planners only)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from forecasts.demand.paths import PathsError
from planner.designs import charts, compare_why
from planner.designs.charts_paths import worst_year
from planner.designs.compare_chance import chance_compare
from planner.designs.forecast_links import newer_forecasts
from planner.designs.labels import (
    any_figure,
    check_label,
    compute_capacity_rule,
    constraint_label,
    genomics_applies,
    is_binding,
    reference_core_label,
    run_status,
    typed_prices,
)
from planner.designs.models import Design, OptimizerRun
from planner.designs.scenario import ScenarioError
from planner.designs.services import (
    design_create,
    design_evaluate,
    design_explanation,
    design_latest_evaluation,
    design_latest_evaluations,
    design_latest_versions,
    design_scenario,
    design_sensitivity,
    design_unit_losses,
    optimizer_run_save_design,
    optimizer_run_start,
    plan_as_scenario,
    scenario_parse_text,
)
from planner.designs.services_paths import service_level_run_start
from planner.designs.services_prices import price_sources_summary
from planner.designs.uncertainty import DEFAULT_PATHS
from planner.hardware.services import CatalogImportError
from planner.roles import planner_required
from planner.web.areas import AREAS_BY_SLUG
from planner.web.spreadsheet import safe_writer
from planner.web.textfiles import UploadTextError, upload_text
from planner.web.yaml_lines import with_lines

EXAMPLE = Path(settings.BASE_DIR) / "fixtures" / "scenarios" / "minerva_narrow_flash.yaml"

class ScenarioForm(forms.Form):
    scenario = forms.CharField(widget=forms.Textarea(attrs={"rows": 30, "spellcheck": "false", "class": "code"}),
                               required=False)
    file = forms.FileField(required=False, allow_empty_file=True,  # an empty file: our one-line error
                           help_text="or upload a scenario .yaml / .json")


def _band(scenario: dict[str, Any]) -> dict[str, Any] | None:
    band = scenario.get("demand_band")
    if isinstance(band, dict) and {"years", "low", "high"} <= set(band):
        return band
    return None


def _evaluated(design: Design, request: HttpRequest | None = None) -> Any:
    ev = design_latest_evaluation(design)
    if ev is None:
        try:
            ev = design_evaluate(design=design, user=getattr(request, "user", None))
        except (ScenarioError, CatalogImportError) as exc:
            if request is not None:
                messages.error(request, f"Cannot evaluate {design.name}: {exc}")
            return None
    return ev


def _year_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for y in result["years"]:
        checks = [c | {"label": check_label(c["name"]), "short_label": constraint_label(c["name"])}
                  for c in y["checks"]]
        rows.append(y | {"checks": checks, "failed": sum(not c["passed"] for c in checks)})
    return rows


def _checks_by_name(result: dict[str, Any], losses: dict[tuple[int, str], tuple[float, int]] | None = None,
                    ) -> list[dict[str, Any]]:
    """One row per constraint, one cell per year: the pass/fail grid of the design page. ``losses``
    (services.design_unit_losses): what one unit fewer takes from each check, for its "binds" marker."""
    names: list[str] = []
    for y in result["years"]:
        for c in y["checks"]:
            if c["name"] not in names:
                names.append(c["name"])
    grid = []
    for name in names:
        cells = []
        for y in result["years"]:
            found = next((c for c in y["checks"] if c["name"] == name), None)
            loss, units = (losses or {}).get((int(y["year"]), name), (None, 0))
            fewer = None if loss is None or not found else float(found.get("available") or 0.0) - loss
            cells.append(dict(found, binding=is_binding(found, fewer, units)) if found else None)
        unit = next(c["unit"] for c in cells if c)
        grid.append({"name": name, "label": check_label(name), "unit": unit, "cells": cells})
    return grid


@planner_required
def design_list(request: HttpRequest) -> HttpResponse:
    designs = list(design_latest_versions().annotate(
        run_count=Count("optimizer_runs", distinct=True)).order_by("name"))
    if not designs:
        return render(request, "designs/empty.html", {"area": AREAS_BY_SLUG["designs"]})
    latest = design_latest_evaluations(designs)
    rows = []
    for d in designs:
        ev = latest.get(d.pk)
        peak = None
        if ev and genomics_applies(ev.result["years"]):  # a cluster's compute and storage: no per-genome figures
            peak = max(ev.result["years"], key=lambda y: y["genomes_per_day_capacity"] or 0)
        rows.append({"design": d, "ev": ev, "peak": peak, "runs": d.run_count})
    return render(request, "designs/list.html", {"rows": rows})


@planner_required
def design_detail(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    ev = _evaluated(design, request)
    ctx: dict[str, Any] = {"design": design, "ev": ev, "versions": _history(design),
                           "runs": [{"run": r, "status": run_status(r.status, r.result, design.scenario, r.message)}
                                    for r in design.optimizer_runs.all()[:10]],
                           "newer": design.revisions.order_by("-version").first(),
                           "newer_forecasts": newer_forecasts(design.scenario),
                           # a design with nothing bought states a problem: the plan the optimiser found for it
                           "solved_by": None if design.scenario.get("purchases") else design.optimizer_runs.filter(
                               result_design__isnull=False).select_related("result_design").first()}
    if ev:
        series = [(design.name, ev.result)]
        ctx |= {
            "years": _year_rows(ev.result), "grid": _checks_by_name(ev.result, design_unit_losses(design.scenario)),
            "fig_capacity": charts.capacity_vs_demand(series, _band(design.scenario)),
            "fig_cost": charts.cost_by_kind(series), "fig_genomes": charts.genomes_per_day(series),
            "fig_cpg": charts.cost_per_genome(series), "fig_storage": charts.storage(series),
            "derivations": ev.result.get("derivations", {}),
            "compute_rule": compute_capacity_rule(design.scenario),
            "reference_core": reference_core_label(design.scenario).split(" (")[0],
            "prices": price_sources_summary(ev.price_sources),
            "why": design_explanation(design, ev),
        }
    return render(request, "designs/detail.html", ctx)


def _history(design: Design) -> list[Design]:
    out, cur = [], design
    while cur is not None and len(out) < 50:
        out.append(cur)
        cur = cur.parent
    return out


def _csv_number(v: Any) -> Any:
    """A float to 12 significant digits (52.8448, not the sum's 52.84479999999999); anything else as it is."""
    return float(f"{v:.12g}") if isinstance(v, float) else v


@planner_required
def design_year_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The per-year evaluation table (every constraint with its shortfall) as CSV."""
    design = get_object_or_404(Design, pk=pk)
    ev = _evaluated(design)
    buf = io.StringIO()
    w = safe_writer(buf)
    cols = ["year", "nodes", "cores", "memory_tb", "peak_tf", "normalised_core_hours_at_target", "demand_core_hours",
            "headroom_core_hours", "genomes_per_day_capacity", "genomes_per_day_demand", "plannable_tb",
            "demand_tb", "flash_tb", "flash_days_of_ingest", "metadata_files_capacity", "files", "capex_usd",
            "power_usd", "support_usd", "opex_usd", "tco_usd", "annualised_cost_usd", "core_hours_at_target",
            "cost_per_core_hour_usd", "cost_per_genome_usd"]
    names = [g["name"] for g in _checks_by_name(ev.result)] if ev else []
    w.writerow(cols + [f"{n}_{k}" for n in names for k in ("required", "available", "passed", "shortfall", "unit")])
    for y in (ev.result["years"] if ev else []):
        by = {c["name"]: c for c in y["checks"]}
        extra = []
        for n in names:
            c = by.get(n) or {}
            extra += [c.get("required"), c.get("available"), c.get("passed"), c.get("shortfall"), c.get("unit")]
        w.writerow([_csv_number(v) for v in [y[c] for c in cols] + extra])
    resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="design-{design.pk}-v{design.version}.csv"'
    return resp


SCENARIO_MAX_BYTES = 1 << 20  # a scenario is a few KB of YAML; a larger upload is the wrong file


def _uploaded_text(upload: Any) -> str:
    """The text of an uploaded scenario file, or ScenarioError with one line naming the file and the reason:
    empty, too large, or not text (planner.web.textfiles.upload_text: not UTF-8, or a NUL byte)."""
    name = Path(str(upload.name or "the file")).name
    if not upload.size:
        raise ScenarioError([f"{name}: the file is empty"])
    if upload.size > SCENARIO_MAX_BYTES:
        raise ScenarioError([f"{name}: {upload.size / 1024**2:,.1f} MB is too large for a scenario "
                             f"(at most {SCENARIO_MAX_BYTES // 1024**2} MB of YAML or JSON text)"])
    try:
        return upload_text(upload.read(), name)
    except UploadTextError as exc:
        raise ScenarioError([str(exc)]) from None


@planner_required
def design_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """Edit the scenario as YAML: 'Check' validates, 'Save and evaluate' stores a new version. A bad upload
    comes back as the form with one line naming the file and what is wrong with it; nothing is stored."""
    design = get_object_or_404(Design, pk=pk) if pk else None
    initial = design.scenario_yaml if design else EXAMPLE.read_text(encoding="utf-8")
    form = ScenarioForm(request.POST or None, request.FILES or None, initial={"scenario": initial})
    errors: list[str] = []
    checked = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data.get("file")
        name = Path(str(upload.name or "the file")).name if upload else None
        text = form.cleaned_data["scenario"]
        try:
            if upload:
                text = _uploaded_text(upload)
                form = ScenarioForm(initial={"scenario": text})
            data = scenario_parse_text(text, name=name)
            try:
                sc = design_scenario(data)
            except ScenarioError as exc:  # a valid mapping with wrong fields: say which file they are in
                raise ScenarioError(with_lines(exc.errors, text, name)) from None
            if request.POST.get("action") == "check":
                checked = (f"Valid: {sc.design.start_year}-{sc.design.end_year}, {len(sc.design.purchases)} "
                           f"purchase lines, {len(sc.design.existing)} existing items.")
                form = ScenarioForm(initial={"scenario": text})
            else:
                if design and text == design.scenario_yaml:
                    new = design
                else:
                    new = design_create(text=text, user=request.user, parent=design)
                design_evaluate(design=new, user=request.user)
                messages.success(request, f"Saved {new.name} version {new.version} and evaluated it.")
                return redirect("designs:detail", pk=new.pk)
        except ScenarioError as exc:
            errors = exc.errors
            # an unreadable upload leaves the text area as it was; a readable one shows the file's text
            form = ScenarioForm(initial={"scenario": text})
    return render(request, "designs/edit.html", {"form": form, "design": design, "errors": errors,
                                                 "checked": checked})


@planner_required
@require_POST
def design_reevaluate(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    try:
        ev = design_evaluate(design=design, user=request.user)
        messages.success(request, f"Evaluated on the current catalog (inputs {ev.inputs_sha256[:12]}).")
    except (ScenarioError, CatalogImportError) as exc:
        messages.error(request, str(exc))
    return redirect("designs:detail", pk=pk)


TIME_LIMIT = forms.FloatField(required=False, min_value=0.01, max_value=600)  # as the API's time_limit_s


@planner_required
@require_POST
def design_optimize(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(Design, pk=pk)
    text = (request.POST.get("time_limit_s") or "").strip()
    try:  # a typo must not silently become the default limit, nor an infinite one reach the solver
        limit = TIME_LIMIT.clean(text)
    except ValidationError:
        messages.error(request, f"Cannot optimise: time limit: expected a number of seconds from 0.01 to 600, "
                                f"got {text[:40]!r}")
        return redirect("designs:detail", pk=pk)
    keep = request.POST.get("keep_purchases") == "on"
    alpha = (design.scenario.get("optimize") or {}).get("service_level")
    if alpha and design.scenario.get("uncertainty") and not keep:
        # the scenario asks for a plan holding on that share of its demand paths (docs/scenario-format.md), as
        # optimize_design --service-level buys it; a plan for the median figures alone holds on about half
        try:
            run = service_level_run_start(design=design, alpha=float(alpha), user=request.user)
        except (ScenarioError, CatalogImportError, PathsError) as exc:
            messages.error(request, f"Cannot optimise: {exc}")
            return redirect("designs:detail", pk=pk)
        messages.info(request, f"The scenario asks for a plan holding on {float(alpha):.0%} of its demand paths "
                               "(optimize.service_level): this run buys that plan and the cost of 50-95 %.")
        return redirect("designs:run", pk=run.pk)
    try:
        run = optimizer_run_start(design=design, user=request.user, time_limit_s=limit, keep_purchases=keep)
    except (ScenarioError, CatalogImportError) as exc:
        messages.error(request, f"Cannot optimise: {exc}")
        return redirect("designs:detail", pk=pk)
    return redirect("designs:run", pk=run.pk)


def _fix_hints(result: dict[str, Any], scenario: dict[str, Any]) -> list[str]:
    """What would make an infeasible run feasible, from its minimal shortfalls and budgets."""
    hints = []
    for y, need in sorted((result.get("budget_needed_usd") or {}).items()):
        have = (scenario.get("constraints") or {}).get("budgets_usd", {}).get(str(y))
        hints.append(f"Raise the {y} budget to ${need:,.0f}" + (f" (now ${float(have):,.0f})" if have else "") + ".")
    for s in result.get("shortfalls") or []:
        if s["constraint"] == "budget_usd":
            continue
        hints.append(f"Lower the demand for {constraint_label(s['constraint'])} in {s['year']} by "
                     f"{s['shortfall']:,.4g} {s['unit']} "
                     f"(to {s['required'] - s['shortfall']:,.4g}), or allow node types / storage systems sold in "
                     f"{s['year']} (optimize.node_types, optimize.storage_systems).")
    return hints


def _pct(value: Any) -> str:
    return f"{100 * float(value):g}%"


PARAM_WORDS: dict[str, tuple[str, Any]] = {  # a run's parameters as the page names them
    "time_limit_s": ("time limit", lambda v: f"{float(v):g} s"),
    "keep_purchases": ("keeps the design's purchases", lambda v: "yes" if v else "no"),
    "service_level": ("service level", _pct),
    "levels": ("cost drawn at", lambda v: ", ".join(_pct(x) for x in v) if isinstance(v, list) else v),
    "paths": ("demand paths", lambda v: f"{v:,}" if isinstance(v, int) else v),
    "mip_rel_gap": ("gap asked for", _pct),
}


def _run_params(run: OptimizerRun) -> list[tuple[str, Any]]:
    """The run's parameters as the page prints them, in words. A service-level run started without a path count
    (``paths`` None) uses the scenario's: the page says so, with the count (the one drawn, once done)."""
    out: list[tuple[str, Any]] = []
    for key, value in (run.params or {}).items():
        if key == "kind":  # the lead already says which kind of plan this is
            continue
        if key == "paths" and value is None:
            drawn = ((run.result or {}).get("service_level") or {}).get("paths")
            own = ((run.design.scenario or {}).get("uncertainty") or {}).get("paths", DEFAULT_PATHS)
            out.append((PARAM_WORDS["paths"][0], f"{drawn or own:,} (the scenario's)"))
            continue
        name, words = PARAM_WORDS.get(key, (key.replace("_", " "), lambda v: v))
        try:
            out.append((name, words(value)))
        except (TypeError, ValueError):
            out.append((name, value))
    return out


def _labelled_result(run: OptimizerRun) -> dict[str, Any]:
    """The run's result with words for what the page shows raw: each shortfall's constraint, and the status
    of each service level on the cost-of-confidence curve."""
    res = dict(run.result or {})
    res["shortfalls"] = [s | {"label": constraint_label(s["constraint"])} for s in res.get("shortfalls") or []]
    sl = res.get("service_level")
    if sl:
        curve = [lv | {"status_label": run_status(lv["status"], {"mip_gap": lv.get("mip_gap")}, run.design.scenario,
                                                  lv.get("message", "")),
                       "out_of_sample_worst_year": worst_year(lv.get("out_of_sample"))}
                 for lv in sl.get("curve") or []]
        chosen = next((lv for lv in curve if abs(float(lv["alpha"]) - float(sl["alpha"])) < 1e-9), {})
        res["service_level"] = sl | {"curve": curve,
                                     "out_of_sample_worst_year": worst_year(sl.get("out_of_sample")),
                                     "out_of_sample_every_year": chosen.get("out_of_sample_every_year")}
    return res


@planner_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(OptimizerRun.objects.select_related("design", "job"), pk=pk)
    ctx: dict[str, Any] = {"run": run, "design": run.design, "params": _run_params(run),
                           "status": run_status(run.status, run.result, run.design.scenario, run.message)}
    done = run.status not in (OptimizerRun.Status.QUEUED, OptimizerRun.Status.RUNNING)
    ctx["done"] = done
    if done and run.result:
        res = _labelled_result(run)
        ctx["result"] = res
        ctx["hints"] = _fix_hints(res, run.design.scenario) if run.status == OptimizerRun.Status.INFEASIBLE else []
        if res.get("evaluation"):
            series = [(f"{run.design.name} (optimised)", res["evaluation"])]
            base = design_latest_evaluation(run.design)
            if base:
                series.append((f"{run.design.name} (as given)", base.result))
            losses = design_unit_losses(plan_as_scenario(run))
            ctx |= {"years": _year_rows(res["evaluation"]), "grid": _checks_by_name(res["evaluation"], losses),
                    "fig_capacity": charts.capacity_vs_demand(series, _band(run.design.scenario)),
                    "fig_cost": charts.cost_by_kind(series[:1])}
    return render(request, "designs/run.html", ctx)


@planner_required
@require_POST
def run_save_design(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(OptimizerRun, pk=pk)
    try:
        design = optimizer_run_save_design(run=run, user=request.user)
    except ScenarioError as exc:
        messages.error(request, str(exc))
        return redirect("designs:run", pk=pk)
    messages.success(request, f"Saved the optimised plan as design {design.name}.")
    return redirect("designs:detail", pk=design.pk)


STORAGE_FIGURES = ("plannable_tb", "usable_tb", "demand_tb", "flash_tb")
GENOME_FACTORS = ("sequencers", "per_genome_hours")  # sensitivity bars that move only genomics


def _any_figure(results: list[dict[str, Any]], keys: tuple[str, ...]) -> bool:
    """Whether some year of some result has a non-zero figure for one of ``keys`` (the year table's rule)."""
    return any(any_figure(r.get("years"), keys) for r in results)


def _without_genome_bars(sens: dict[str, Any]) -> dict[str, Any]:
    """A tornado without the bars that scale genomics: for designs with none, they are bars of zero."""
    return sens | {"bars": [b for b in sens.get("bars", []) if b.get("factor") not in GENOME_FACTORS]}


def why_sentence(items: list[dict[str, Any]]) -> str | None:
    """The comparison's sentence (planner.designs.compare_why) for the evaluated designs compared."""
    return compare_why.why_sentence([(i["design"].name, i["ev"].result["years"]) for i in items if i["ev"]])


@planner_required
def compare(request: HttpRequest) -> HttpResponse:
    ids = [int(i) for i in request.GET.getlist("ids") if i.isdigit()][:4]
    designs = {d.pk: d for d in Design.objects.filter(pk__in=ids)}
    chosen = [designs[i] for i in ids if i in designs]
    all_designs = design_latest_versions().order_by("name")
    if len(chosen) < 2:
        return render(request, "designs/compare.html", {"all_designs": all_designs, "items": [], "chosen": chosen})
    items = []
    for i, d in enumerate(chosen):
        ev = _evaluated(d, request)
        sens = None
        if ev:
            try:
                sens = design_sensitivity(ev)
            except (ScenarioError, CatalogImportError) as exc:
                messages.error(request, f"Sensitivity of {d.name}: {exc}")
        items.append({"design": d, "ev": ev, "sens": sens, "tag": f"D{i + 1}",
                      "prices": price_sources_summary(ev.price_sources) if ev else [],
                      "typed_prices": typed_prices(ev.result.get("price_index")) if ev else ""})
    series = [(f"D{it['tag'][1:]} {it['design'].name}", it["ev"].result) for it in items if it["ev"]]
    years = sorted({y["year"] for _, r in series for y in r["years"]})
    table = []
    metrics = [
        ("npv_usd", "Net present cost (capex + opex)", "usd0", None),
        ("capex_usd", "Capex over the horizon", "usd0", None),
        ("opex_usd", "Opex over the horizon", "usd0", None),
        ("feasible", "Meets every constraint every year", "bool", None),
        ("failures", "Constraint-years failed", "int", None),
    ]
    for key, label, fmt, _ in metrics:
        vals = []
        for it in items:
            r = it["ev"].result if it["ev"] else {}
            v = len(r.get("failures", [])) if key == "failures" else r.get(key)
            vals.append(v)
        table.append({"label": label, "fmt": fmt, "values": vals})
    per_year = []
    for y in years:
        row = {"year": y, "cells": []}
        for it in items:
            yy = next((x for x in it["ev"].result["years"] if x["year"] == y), None) if it["ev"] else None
            row["cells"].append(yy and yy | {"checks": [c | {"label": constraint_label(c["name"])}
                                                        for c in yy["checks"]]})
        per_year.append(row)
    cores = [reference_core_label(it["design"].scenario).split(" (")[0] for it in items]
    table.append({"label": "Core-hours counted on", "fmt": "text", "values": cores})
    # figures that apply to none of the designs compared (compute-only designs: genomes, storage) are left out
    genomes = any(genomics_applies(r.get("years")) for _, r in series)
    storage = _any_figure([r for _, r in series], STORAGE_FIGURES)
    ctx = {
        "items": items, "chosen": chosen, "all_designs": all_designs, "table": table, "per_year": per_year,
        "any_forecast_prices": any(it["prices"] for it in items),
        "why": why_sentence(items), "genomes": genomes, "storage": storage, "chance": chance_compare(items),
        "cores_differ": len(set(cores)) > 1, "any_paths": any(it["design"].scenario.get("uncertainty") for it in items),
        "fig_capacity": charts.capacity_vs_demand(series, _band(chosen[0].scenario)),
        "fig_cost": charts.cost_by_kind(series),
        "fig_genomes": charts.genomes_per_day(series) if genomes else None,
        "fig_cpg": charts.cost_per_genome(series) if genomes else None,
        "tornados": [{"id": f"fig-tornado-{i}", "fig": charts.tornado(
            it["sens"] if genomes else _without_genome_bars(it["sens"]), f"{it['tag']} {it['design'].name}")}
            for i, it in enumerate(items) if it["sens"]],
    }
    return render(request, "designs/compare.html", ctx)
