"""Sequencer plans in the database: import (YAML, or a counts CSV onto an existing plan), new
versions on edit, derived figures, comparison, and the combined projection with a usage trend.

The arithmetic is the pure core's (``forecasts/demand/sequencing.py``); this module loads and stores.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from forecasts.accounting.models import Department
from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.plan_io import counts_from_csv, plan_from_dict, plan_to_dict
from forecasts.demand.sequencing import (
    SequencingPlan,
    YearFigures,
    compare_plans,
    monthly_figures,
    node_type_label,
    yearly_figures,
)
from forecasts.units import TB_PER_PB, convert_core_hours
from planner.web.textfiles import UploadTextError, nul_at, nul_problem, upload_text, yaml_error, yaml_load
from planner.web.yaml_lines import field_lines, path_line


class PlanError(ValueError):
    """A plan that cannot be read or saved; the message names the file or field. ``path``: the document field
    it is about ("" when none), which a reader of the plan's text turns into a line."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


def plan_parse(text: str, *, name: str = "the plan") -> SequencingPlan:
    """A plan from its YAML text; a refusal names the file, the line of the field it is about (of the nearest
    enclosing one for a missing field) and the reason: ``plan.yaml line 14: instrument 1 (...): ...``."""
    try:
        data = yaml_load(text)
    except yaml.YAMLError as exc:
        raise PlanError(yaml_error(name, exc)) from None
    if not isinstance(data, dict):
        raise PlanError(f"{name} line 1: expected a mapping with name, start, end, instruments, assays")
    try:
        return plan_from_document(data, name=name)
    except PlanError as exc:
        line = path_line(exc.path, field_lines(text)) if exc.path else None
        said = str(exc)
        if line is None or not said.startswith(f"{name}: "):
            raise
        raise PlanError(f"{name} line {line}: {said[len(name) + 2:]}", exc.path) from None


def plan_from_document(data: dict[str, Any], *, name: str | None = "the plan") -> SequencingPlan:
    """Every way a plan comes in (upload, editor, API, command) reads its document here: every number is
    checked against its field's range (plan_io.RANGES).  ``name`` starts a refusal's message (None: the message
    alone, as the editor shows it beside its fields).

    A document without a ``department`` key keeps the department of the latest version of its name (a new
    version of a plan is still that department's sequencing unless it says otherwise); ``department: null``
    (or blank) says it names none.  A code that is no department is refused with the code named."""
    where = "" if name is None else f"{name}: "
    nul = nul_problem(data)  # YAML's "\0" escape (or JSON's "\u0000"): no database text can hold it
    if nul:
        raise PlanError(f"{where}{nul}", nul_at(data) or "")
    if "department" not in data and isinstance(data.get("name"), str):
        current = latest_version(data["name"])
        if current is not None and current.department_id is not None:
            data = {**data, "department": current.department.code}
    try:
        plan = plan_from_dict(data)
    except KeyError as exc:
        raise PlanError(f"{where}missing field {exc.args[0]!r}") from exc
    except (TypeError, ValueError) as exc:
        raise PlanError(f"{where}{exc}", getattr(exc, "path", "")) from exc
    try:
        plan_department(plan.department, name=name or "the plan")
    except PlanError as exc:
        exc.path = "department"
        raise
    return plan


def plan_department(code: str | None, *, name: str = "the plan") -> Department | None:
    """The department a plan's ``department`` code names (None for none); PlanError, one line naming the code
    and the codes there are, when no department has it."""
    if code is None:
        return None
    row = Department.objects.filter(code=code).first()
    if row is not None:
        return row
    known = list(Department.objects.order_by("code").values_list("code", flat=True)[:21])
    listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
    raise PlanError(f"{name}: unknown department {code[:60]!r}: "
                    + (f"the department codes are {listed}" if known else "no departments are recorded yet"))


def latest_version(name: str) -> SequencerPlan | None:
    return SequencerPlan.objects.filter(name=name).order_by("-version").first()


@transaction.atomic
def plan_save(plan: SequencingPlan, *, user: Any = None, note: str = "", source: str = "command",
              parent: SequencerPlan | None = None) -> tuple[SequencerPlan, bool]:
    """Store ``plan`` as a new version of its name unless the latest version is identical.

    Returns (row, created).  Versions are never edited in place.
    """
    document = plan_to_dict(plan)
    department = plan_department(plan.department, name=plan.name)
    current = latest_version(plan.name)
    if current is not None and current.document == document:
        return current, False
    row = SequencerPlan.objects.create(
        name=plan.name,
        department=department,
        version=(current.version + 1) if current else 1,
        parent=parent or current,
        document=document,
        note=note,
        source=source,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    return row, True


def plan_import_file(path: str | Path, *, base: str | None = None, user: Any = None,
                     source: str = "command", department: str | None = None) -> tuple[SequencerPlan, bool]:
    """Import a YAML plan, or a ``model,date,count`` CSV that replaces the instrument counts of
    the latest version of the plan named ``base``.  ``department``: the code of the department whose
    sequencing a YAML plan is, when neither the file nor the plan's latest version names one."""
    p = Path(path)
    try:  # the upload page's rule: not UTF-8, or a NUL byte, is refused with its line; a byte-order mark is dropped
        text = upload_text(p.read_bytes(), p.name)
    except OSError as exc:
        raise PlanError(f"{p}: cannot read: {exc.strerror}") from exc
    except UploadTextError as exc:
        raise PlanError(str(exc)) from None
    if p.suffix.lower() == ".csv":
        return plan_import_counts_csv(text, base=base, user=user, source=source, name=p.name)
    plan = plan_parse(text, name=p.name)
    if department is not None and plan.department is None:
        plan = dataclasses.replace(plan, department=department)
    return plan_save(plan, user=user, note=f"imported from {p.name}", source=source)


def plan_import_counts_csv(text: str, *, base: str | None, user: Any = None, source: str = "command",
                           name: str = "the CSV") -> tuple[SequencerPlan, bool]:
    if not base:
        raise PlanError(f"{name}: a counts CSV (model,date,count) updates an existing plan: give its name "
                        "(--plan NAME)")
    current = latest_version(base)
    if current is None:
        raise PlanError(f"{name}: no plan named {base!r}; import its YAML first")
    try:
        counts = counts_from_csv(text)
    except KeyError as exc:
        raise PlanError(f"{name}: expected columns model,date,count: {exc}") from exc
    except ValueError as exc:  # "line N: reason"
        said = str(exc)
        raise PlanError(f"{name} {said}" if said.startswith("line ") else f"{name}: {said}") from exc
    doc = dict(current.document)
    models = {i["model"] for i in doc["instruments"]}
    unknown = set(counts) - models
    if unknown:
        raise PlanError(f"{name}: unknown instrument model(s) {', '.join(sorted(unknown))}; "
                        f"the plan has {', '.join(sorted(models))}")
    doc["instruments"] = [
        {**i, "counts": [{"date": c.date.isoformat(), "count": c.count} for c in counts[i["model"]]]}
        if i["model"] in counts else i
        for i in doc["instruments"]
    ]
    plan = plan_from_document(doc, name=name)
    return plan_save(plan, user=user, note=f"instrument counts from {name}", source=source, parent=current)


def plan_of(row: SequencerPlan) -> SequencingPlan:
    """A stored version's plan; its numbers were checked when it came in (a version stored before the ranges
    were checked is shown as it is, not refused)."""
    return plan_from_dict(row.document, ranges=False)


def plan_span(row: SequencerPlan) -> tuple[int, int]:
    """The plan's first and last year, from its stored document (no parse of the whole plan)."""
    return int(str(row.document["start"])[:4]), int(str(row.document["end"])[:4])


def plan_years(row_or_plan: SequencerPlan | SequencingPlan) -> list[YearFigures]:
    plan = plan_of(row_or_plan) if isinstance(row_or_plan, SequencerPlan) else row_or_plan
    return yearly_figures(plan)


def plan_summary(row: SequencerPlan) -> dict[str, Any]:
    """What the import command prints and the API returns: the yearly figures that matter."""
    plan = plan_of(row)
    years = yearly_figures(plan)
    ref = plan.node_types[plan.reference_node]
    return {
        "plan": row.pk,
        "name": row.name,
        "version": row.version,
        "reference_node": plan.reference_node,
        "reference_clock_ghz": ref.clock_ghz,
        "convention": core_hour_convention(plan),
        "years": [
            {
                "year": y.year,
                "instruments_end": round(y.instruments_end, 3),
                "samples": round(y.samples_total, 1),
                "genomes_per_day_peak": round(y.genomes_per_day_peak, 2),
                "core_hours_ref": round(y.core_hours_ref, 1),
                "core_hours_by_node": {k: round(v, 1) for k, v in y.core_hours_by_node.items()},
                "new_tb": round(y.new_tb_total, 2),
                "stored_pb": round(y.stored_pb_total, 4),
                "daily_ingest_tb_peak": round(y.daily_ingest_tb_peak, 3),
            }
            for y in years
        ],
    }


def core_hour_convention(plan: SequencingPlan) -> str:
    ref = plan.node_types[plan.reference_node]
    return (f"core-hours on the reference core {node_type_label(plan.reference_node)} ({ref.clock_ghz:g} GHz, "
            f"arch factor {ref.arch_factor:g}); other node types converted linearly by clock x architecture factor")


def plan_monthly_by_assay(plan: SequencingPlan) -> dict[str, Any]:
    """Monthly reference core-hours split by assay (new samples + re-analysis), for stacking."""
    months = monthly_figures(plan)
    ref_by_assay: dict[str, list[float]] = {n: [] for n in plan.assays}
    # per-assay core-hours: recompute shares from samples (re-analysis shares follow the cohort)
    from forecasts.demand.sequencing import _to_ref  # the same conversion the core uses

    cohort = {n: 0.0 for n in plan.assays}
    for m in months:
        days = (date(m.month.year + (m.month.month == 12), m.month.month % 12 + 1, 1) - m.month).days
        for n, a in plan.assays.items():
            re_run = a.reanalysis_rate * cohort[n] * days / 365.0
            ref_by_assay[n].append((m.samples[n] + re_run) * _to_ref(plan, a))
        for n in plan.assays:
            cohort[n] += m.samples[n]
    return {"months": [m.month.isoformat() for m in months], "core_hours_ref": ref_by_assay,
            "stored_pb": [m.stored_tb_total / TB_PER_PB for m in months]}


def plans_compare(a: SequencerPlan, b: SequencerPlan) -> list[dict[str, Any]]:
    return [
        {"year": r.year, "metric": r.metric, "a": r.a, "b": r.b, "delta": r.delta, "change": r.change}
        for r in compare_plans(plan_of(a), plan_of(b))
    ]


def trend_holds_sequencing(fit: ForecastFit, department: Department | None) -> bool:
    """Whether ``fit``'s trend already holds the sequencing of a plan of ``department``, so the plan's
    core-hours added on top of it would count that sequencing twice.

    With the plan's department D: a fit of all but D, or of another single department, holds none of it; a fit
    of D, of every department, or of all but another department holds it.  A plan that names no department:
    a fit without one department is taken to leave its sequencing out and any other to hold it (the rule
    before plans named their department)."""
    if department is None:
        return fit.exclude_department_id is None
    if fit.exclude_department_id is not None:
        return fit.exclude_department_id != department.pk
    if fit.department_id is not None:
        return fit.department_id == department.pk
    return True


def newest_fit_without(department: Department) -> ForecastFit | None:
    """The newest core-hours fit of all but ``department`` (any cluster: the combined projection's choice)."""
    return (ForecastFit.objects.filter(metric="core_hours", exclude_department=department)
            .select_related("cluster", "exclude_department").order_by("-created_at", "-pk").first())


def combined_default_fit(plan_row: SequencerPlan | None) -> ForecastFit | None:
    """The core-hours trend the combined projection starts from: the newest fit of all but the plan's
    department when the plan names one and such a fit exists, else the newest fit without any one department,
    else the newest core-hours fit."""
    core = ForecastFit.objects.filter(metric="core_hours")
    if plan_row is not None and plan_row.department is not None:
        own = newest_fit_without(plan_row.department)
        if own is not None:
            return own
    return core.exclude(exclude_department=None).first() or core.first()


def combined_overlap(plan_row: SequencerPlan | None, core_fit: ForecastFit | None) -> str | None:
    """Why plan + trend counts the plan's sequencing twice, when the plan names its department and the trend
    holds it (None otherwise: a plan that names none is left to the page's convention note, as before)."""
    if plan_row is None or core_fit is None or plan_row.department is None:
        return None
    dept = plan_row.department
    if not trend_holds_sequencing(core_fit, dept):
        return None
    other = newest_fit_without(dept)
    instead = (f"choose #{other.pk} ({other.series_label}) instead" if other is not None
               else f"fit one on the forecasts page (Department: all but {dept.code}) and choose it")
    return (f"Counted twice: trend #{core_fit.pk} ({core_fit.series_label}) holds department {dept.code}'s "
            f"core-hours, and plan '{plan_row}' is department {dept.code}'s sequencing: for plan + trend, "
            f"{instead}.")


def combined_storage_overlap(plan_row: SequencerPlan | None, storage_fit: ForecastFit | None) -> str | None:
    """Why plan + storage trend counts the plan's data twice: a PB-stored trend is of whole file systems (no
    per-department storage series), so it holds the data of the department the plan names."""
    if plan_row is None or storage_fit is None or plan_row.department is None:
        return None
    code = plan_row.department.code
    return (f"Counted twice: storage trend #{storage_fit.pk} ({storage_fit.series_label}) holds every "
            f"department's data on the scanned file systems, department {code}'s too, and plan '{plan_row}' adds "
            f"department {code}'s sequencing data held on top of it; there is no storage trend without a "
            f"department, so read the total PB as an upper bound, or compare the plan alone.")


def combined_projection(
    *, plan_row: SequencerPlan | None, core_fit: ForecastFit | None, storage_fit: ForecastFit | None = None,
    cluster_clock_ghz: float | None = None, cluster_arch_factor: float = 1.0, mode: str = "both",
) -> dict[str, Any]:
    """Per year: genomics from the plan plus everything else from the trend (``mode='both'``), or the
    trend alone (``'trend'``) or the plan alone (``'plan'``).

    A plan covers its own years only: with ``'both'``, a trend year outside them has the trend alone
    (``trend_only``, listed in ``trend_only_years``), so its total leaves the plan's sequencing out.

    Core-hours are on the plan's reference core; the trend's core-hours (on the cluster's cores,
    ``cluster_clock_ghz``, defaulting to the reference clock) are converted linearly.  The
    trend's p10/p90 are carried; the plan is a scenario without its own spread, so it shifts
    the trend's quantiles.  PB: plan storage held at year end plus the storage trend's.
    """
    if mode not in ("both", "trend", "plan"):
        raise ValueError("mode must be both, trend or plan")
    plan = plan_of(plan_row) if plan_row else None
    ref_name = plan.reference_node if plan else None
    ref_clock = plan.node_types[plan.reference_node].clock_ghz if plan else (cluster_clock_ghz or 1.0)
    ref_arch = plan.node_types[plan.reference_node].arch_factor if plan else 1.0
    clock = cluster_clock_ghz or ref_clock
    factor = convert_core_hours(1.0, from_clock_ghz=clock, to_clock_ghz=ref_clock,
                                from_arch_factor=cluster_arch_factor, to_arch_factor=ref_arch)
    plan_years_ = {y.year: y for y in yearly_figures(plan)} if plan and mode != "trend" else {}
    trend_ch = {y["year"]: y for y in core_fit.yearly} if core_fit and mode != "plan" else {}
    trend_pb = {y["year"]: y for y in storage_fit.yearly} if storage_fit and mode != "plan" else {}
    rows = []
    for year in sorted(set(plan_years_) | set(trend_ch) | set(trend_pb)):
        py = plan_years_.get(year)
        t = trend_ch.get(year)
        s = trend_pb.get(year)
        plan_ch = py.core_hours_ref if py else 0.0
        plan_pb = py.stored_pb_total if py else 0.0
        row = {
            "year": year,
            "plan_core_hours_ref": plan_ch,
            "trend_core_hours_ref": {k: t[k] * factor for k in ("median", "p10", "p90")} if t else None,
            "plan_stored_pb": plan_pb,
            "trend_stored_pb": {k: s[k] for k in ("median", "p10", "p90")} if s else None,
            # a trend year with fewer than 12 months (observed + forecast) is not a year's total
            "partial": bool((t and not t.get("complete", True)) or (py is not None and py.months < 12)),
            # a year outside the plan has no plan figure (not zero genomics); a stock with neither source, no figure
            "in_plan": py is not None,
            # plan + trend, but this year has only the trend: the plan's sequencing is missing from its total
            "trend_only": bool(plan_years_ and t and py is None),
            "has_storage": py is not None or s is not None,
            # a year with neither a plan year nor a core-hours trend year (only the storage trend reaches it): no
            # core-hours figure, never a total of 0
            "has_core_hours": py is not None or t is not None,
        }
        row["core_hours_ref"] = {k: plan_ch + (row["trend_core_hours_ref"][k] if t else 0.0)
                                 for k in ("median", "p10", "p90")}
        row["stored_pb"] = {k: plan_pb + (s[k] if s else 0.0) for k in ("median", "p10", "p90")}
        rows.append(row)
    convention = (
        core_hour_convention(plan) if plan
        else "core-hours on the cluster's own cores (no plan: no reference core chosen)"
    )
    if core_fit and plan:
        convention += f"; usage trend converted from {clock:g} GHz cores (x {factor:.4f})"
    beyond = [r["year"] for r in rows if r["trend_only"]]
    return {
        "mode": mode,
        # which years the plan covers and which totals leave it out (the page says both, never a silent drop)
        "plan_years": (min(plan_years_), max(plan_years_)) if plan_years_ else None,
        "trend_only_years": beyond,
        "plan_department": plan_row.department.code if plan_row and plan_row.department_id else None,
        "reference_node": ref_name,
        "reference_clock_ghz": ref_clock,
        "convention": convention,
        "storage_convention": "decimal PB (10^15 bytes) held at year end",
        "plan": plan_row.pk if plan_row else None,
        "core_fit": core_fit.pk if core_fit else None,
        "storage_fit": storage_fit.pk if storage_fit else None,
        "years": rows,
    }


def plan_belongs_to(row: SequencerPlan, fit: ForecastFit) -> bool:
    """Whether ``fit``'s series holds the sequencing ``row`` describes: a plan of department D goes with a fit
    of D, or of every department (of the fit's clusters); a plan naming no department with a whole-site
    series only (a single department's, or one leaving a department out, may or may not hold it)."""
    if fit.external_series_id is not None:
        return False
    if row.department_id is None:
        return fit.department_id is None and fit.exclude_department_id is None
    if fit.department_id is not None:
        return fit.department_id == row.department_id
    return fit.exclude_department_id is None
