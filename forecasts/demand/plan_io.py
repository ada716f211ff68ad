"""Sequencing plans to and from dicts, YAML and CSV (pure core, no Django)."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import fields
from datetime import date
from typing import Any

import yaml

from forecasts.demand.sequencing import (
    Assay,
    AssayShare,
    CountPoint,
    Instrument,
    MonthFigures,
    NodeType,
    PlanDiffRow,
    PlanValueError,
    SequencingPlan,
    Stage,
    YearFigures,
    assay_label,
    compare_plans,
    monthly_figures,
    node_type_label,
    weekly_output,
    yearly_figures,
)
from planner.web.textfiles import yaml_load


def _date(v: Any, where: str = "date", path: str = "") -> date:
    """A date field (a YAML date or ISO text); PlanValueError naming the field when it is no date."""
    if isinstance(v, date):
        return v
    try:
        return date.fromisoformat(str(v))
    except ValueError:
        raise PlanValueError(f"{where}: expected a date such as 2015-01-01, got {str(v)[:40]!r}", path) from None


# The keys each level of a plan accepts; an unknown key is named, not silently ignored (a typo
# such as "runs_per_weak" would otherwise leave the default in place).
KEYS = {
    "plan": {"name", "department", "start", "end", "interpolation", "reference_node", "node_types", "instruments",
             "assays", "notes"},
    "node type": {"clock_ghz", "arch_factor", "description"},
    "instrument": {"model", "runs_per_week", "counts", "run_mix"},
    "count": {"date", "count"},
    "run mix": {"assay", "samples_per_run"},
    "assay": {"kind", "coverage", "core_hours_per_sample", "node_type", "reanalysis_rate", "description", "stages"},
    "stage": {"name", "gb_per_sample", "retention_months", "files_per_sample"},
}


def _check_keys(what: str, where: str, d: Any, path: str = "") -> None:
    if not isinstance(d, dict):
        raise PlanValueError(f"{where}: expected a mapping of {', '.join(sorted(KEYS[what]))}", path)
    unknown = sorted(set(map(str, d)) - KEYS[what])
    if unknown:
        raise PlanValueError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(map(repr, unknown))} (a{'n' if what[0] in 'aeiou' else ''} {what} takes "
                             f"{', '.join(sorted(KEYS[what]))})",
                             f"{path}.{unknown[0]}" if path else unknown[0])


def _mapping(d: dict[str, Any], key: str, words: str) -> dict[Any, Any]:
    """The plan's ``key`` section as a mapping (absent: empty); a list or a number there is named, not a
    Python error."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise PlanValueError(f"{key}: expected a mapping of {words} by name, got a {type(v).__name__}", key)
    return v


def _list(d: Any, key: str, where: str, path: str) -> list[Any]:
    """``d[key]`` as a list (absent: empty); anything else is named with its field."""
    v = d.get(key) if isinstance(d, dict) else None
    if v is None:
        return []
    if not isinstance(v, list):
        raise PlanValueError(f"{where}: {key} must be a list, got a {type(v).__name__}",
                             f"{path}.{key}" if path else key)
    return v


def _check_all_keys(d: dict[str, Any]) -> None:
    _check_keys("plan", "plan", d)
    for n, v in _mapping(d, "node_types", "node types").items():
        _check_keys("node type", f"node type {n}", v, f"node_types.{n}")
    for k, i in enumerate(_list(d, "instruments", "plan", "")):
        where = f"instrument {k + 1} ({i.get('model', '?') if isinstance(i, dict) else '?'})"
        at = f"instruments[{k}]"
        _check_keys("instrument", where, i, at)
        for j, c in enumerate(_list(i, "counts", where, at)):
            _check_keys("count", f"{where}, counts", c, f"{at}.counts[{j}]")
        for j, r in enumerate(_list(i, "run_mix", where, at)):
            _check_keys("run mix", f"{where}, run_mix", r, f"{at}.run_mix[{j}]")
    for n, a in _mapping(d, "assays", "assays").items():
        _check_keys("assay", f"assay {n}", a, f"assays.{n}")
        for j, s in enumerate(_list(a, "stages", f"assay {n}", f"assays.{n}")):
            _check_keys("stage", f"assay {n}, stages", s, f"assays.{n}.stages[{j}]")


def _department(v: Any) -> str | None:
    """The plan's ``department`` key: a department code (text), or none when absent, null or blank.  Whether
    the code names a department is the Django service's check (forecasts.demand.plans)."""
    if v is None:
        return None
    if not isinstance(v, str):  # YAML reads 042 as a number: a code is text, quoted if it looks like one
        raise PlanValueError(f"department must be a department code such as ggs (quoted if it looks like a "
                             f"number), not {str(v)[:40]!r}", "department")
    return v.strip() or None


class PlanFieldError(PlanValueError):
    """A number out of its field's range: one line naming the row (instrument, assay, stage) and the field in
    the words the editor labels it with, never the document's key."""


# Each number a plan holds, in the editor's words, with the range a real sequencing core stays inside (generous:
# the bounds catch a percent typed as a share, a slip of the exponent, a sign, not an unusual core).
# key: (words, lowest, highest, lowest excluded, hint)
RANGES: dict[str, tuple[str, float, float, bool, str]] = {
    "runs_per_week": ("runs per week per instrument", 0, 50, False, ""),
    "count": ("instruments", 0, 1000, False, ""),
    "samples_per_run": ("samples per run", 0, 10_000, False, ""),
    "core_hours_per_sample": ("core-hours per sample", 0, 1_000_000, False, ""),
    "reanalysis_rate": ("re-analysed share per year", 0, 1, False, " (0.25 for 25 %)"),
    "coverage": ("coverage (x)", 0, 100_000, False, ""),
    "gb_per_sample": ("GB per sample", 0, 100_000, False, ""),
    "files_per_sample": ("files per sample", 0, 10_000_000, False, ""),
    "retention_months": ("retention in months", 0, 1200, False, " (blank: kept for ever)"),
    "clock_ghz": ("clock, GHz", 0, 10, True, ""),
    "arch_factor": ("architecture factor", 0, 100, True, ""),
}


def _bound(v: float) -> str:
    return f"{v:,g}" if abs(v) < 1e6 else f"{v:,.0f}"


def check_range(key: str, value: float, where: str, path: str = "") -> None:
    """PlanFieldError unless ``value`` lies in the range of the field ``key`` (NaN and infinities never do);
    ``path``: the field in the plan document, for its line."""
    words, lo, hi, open_lo, hint = RANGES[key]
    inside = (lo < value if open_lo else lo <= value) and value <= hi
    if not inside:
        span = (f"more than {_bound(lo)} and at most {_bound(hi)}" if open_lo
                else f"between {_bound(lo)} and {_bound(hi)}")
        raise PlanFieldError(f"{where}: {words}: {span}{hint}, got {value:g}", path)


# The years a plan may cover: its figures are computed month by month (a plan ending in 9999 held a web worker
# for hours); a century is far beyond any procurement horizon.
PLAN_YEARS = (1970, 2199)
PLAN_MAX_YEARS = 100


def check_span(plan: SequencingPlan) -> None:
    """PlanValueError unless the plan's start and end lie in PLAN_YEARS and at most PLAN_MAX_YEARS apart."""
    for key, when in (("start", plan.start), ("end", plan.end)):
        if not PLAN_YEARS[0] <= when.year <= PLAN_YEARS[1]:
            raise PlanValueError(f"{key}: {when.isoformat()} is outside the years a plan can cover "
                                 f"({PLAN_YEARS[0]}-{PLAN_YEARS[1]})", key)
    if plan.end.year - plan.start.year >= PLAN_MAX_YEARS:
        raise PlanValueError(f"end: {plan.end.isoformat()} is {plan.end.year - plan.start.year} years after the start; "
                             f"a plan covers at most {PLAN_MAX_YEARS} years", "end")


def check_ranges(plan: SequencingPlan) -> None:
    """Every number of ``plan`` inside its field's range (RANGES); the first one outside is named."""
    for n, t in plan.node_types.items():
        check_range("clock_ghz", t.clock_ghz, f"node type {node_type_label(n)}", f"node_types.{n}.clock_ghz")
        check_range("arch_factor", t.arch_factor, f"node type {node_type_label(n)}", f"node_types.{n}.arch_factor")
    for k, ins in enumerate(plan.instruments):
        at = f"instruments[{k}]"
        check_range("runs_per_week", ins.runs_per_week, ins.model, f"{at}.runs_per_week")
        for j, c in enumerate(ins.counts):
            check_range("count", c.count, f"{ins.model}, from {c.date.isoformat()}", f"{at}.counts[{j}].count")
        for j, share in enumerate(ins.run_mix):
            check_range("samples_per_run", share.samples_per_run,
                        f"{ins.model}, {assay_label(plan, share.assay) if share.assay in plan.assays else share.assay}",
                        f"{at}.run_mix[{j}].samples_per_run")
    for n, a in plan.assays.items():
        where, at = f"assay {assay_label(plan, n)}", f"assays.{n}"
        check_range("core_hours_per_sample", a.core_hours_per_sample, where, f"{at}.core_hours_per_sample")
        check_range("reanalysis_rate", a.reanalysis_rate, where, f"{at}.reanalysis_rate")
        if a.coverage is not None:
            check_range("coverage", a.coverage, where, f"{at}.coverage")
        for j, s in enumerate(a.stages):
            st = f"{at}.stages[{j}]"
            check_range("gb_per_sample", s.gb_per_sample, f"{where}, stage {s.name}", f"{st}.gb_per_sample")
            check_range("files_per_sample", s.files_per_sample, f"{where}, stage {s.name}", f"{st}.files_per_sample")
            if s.retention_months is not None:
                check_range("retention_months", s.retention_months, f"{where}, stage {s.name}",
                            f"{st}.retention_months")


def _num(row: Any, key: str, where: str, default: float | None = None, path: str = "") -> float:
    """``row[key]`` as a number; PlanValueError naming the row and the field when it is missing (and has no
    default) or is not a number (a range such as "8-12", a mapping), never Python's own words. ``path``: the
    row's place in the document (the error is about ``path.key``; a missing field about the row)."""
    if key not in row or row[key] is None:
        if default is None:
            raise PlanValueError(f"{where}: missing field {key!r}", path)
        return default
    v = row[key]
    at = f"{path}.{key}" if path else key
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise PlanValueError(f"{where}: {key} must be a single number, not {str(v)[:40]!r}", at)
    try:
        return float(v)
    except ValueError:
        raise PlanValueError(f"{where}: {key} must be a single number, not {str(v)[:40]!r}", at) from None


def _text(row: dict[str, Any], key: str, where: str, path: str) -> str:
    """A required text field (a name, a model); missing is named with its row."""
    if row.get(key) is None:
        raise PlanValueError(f"{where}: missing field {key!r}", path)
    return str(row[key])


def _check_dates_ascend(counts: list[CountPoint], where: str, path: str = "") -> None:
    """Count dates in ascending order, each once: a date out of order is most often a typed year (2062 for
    2026), and two counts on one date leave the instruments on it undecided. ``path``: the counts list."""
    for j, (a, b) in enumerate(zip(counts, counts[1:], strict=False), start=1):
        if b.date == a.date:
            raise PlanValueError(f"{where}: {a.date.isoformat()} is given twice ({a.count:g} and {b.count:g} "
                                 "instruments); give each date once", f"{path}[{j}].date")
        if b.date < a.date:
            raise PlanValueError(f"{where}: {b.date.isoformat()} comes after {a.date.isoformat()}; "
                                 "give the dates in order", f"{path}[{j}].date")


def plan_from_dict(d: dict[str, Any], *, ranges: bool = True) -> SequencingPlan:
    """Build a plan from the YAML schema in the module docstring (dates as ISO strings or dates).

    ``ranges``: check every number against its field's range (RANGES), as everything coming in is; a version
    stored before the ranges were checked is read with ``ranges=False`` so its page still opens."""
    _check_all_keys(d)
    for key in ("node_types", "assays", "instruments", "reference_node", "start", "end", "name"):
        if d.get(key) is None:
            raise PlanValueError(f"missing field {key!r}")
    node_types = {
        n: NodeType(n, _num(v, "clock_ghz", f"node type {n}", path=f"node_types.{n}"),
                    _num(v, "arch_factor", f"node type {n}", 1.0, f"node_types.{n}"), str(v.get("description", "")))
        for n, v in d["node_types"].items()
    }
    assays = {n: _assay(n, v, str(d["reference_node"])) for n, v in d["assays"].items()}
    instruments = []
    for k, i in enumerate(d["instruments"]):
        where, at = f"instrument {k + 1} ({i.get('model', '?')})", f"instruments[{k}]"
        instruments.append(Instrument(
            model=_text(i, "model", where, at),
            runs_per_week=_num(i, "runs_per_week", where, path=at),
            counts=[CountPoint(_date(c.get("date"), f"{where}, counts", f"{at}.counts[{j}].date"),
                               _num(c, "count", f"{where}, counts", path=f"{at}.counts[{j}]"))
                    for j, c in enumerate(_list(i, "counts", where, at))],
            run_mix=[AssayShare(_text(r, "assay", f"{where}, run_mix", f"{at}.run_mix[{j}]"),
                                _num(r, "samples_per_run", f"{where}, run_mix", path=f"{at}.run_mix[{j}]"))
                     for j, r in enumerate(_list(i, "run_mix", where, at))],
        ))
    if ranges:
        for k, ins in enumerate(instruments):
            _check_dates_ascend(ins.counts, f"instrument {k + 1} ({ins.model}), counts", f"instruments[{k}].counts")
    plan = SequencingPlan(
        name=str(d["name"]),
        start=_date(d["start"], "start", "start"),
        end=_date(d["end"], "end", "end"),
        reference_node=str(d["reference_node"]),
        node_types=node_types,
        instruments=instruments,
        assays=assays,
        interpolation=str(d.get("interpolation", "linear")),
        notes=str(d.get("notes", "")),
        department=_department(d.get("department")),
    )
    if ranges:
        check_span(plan)
        check_ranges(plan)
    plan.validate()
    return plan


def _assay(n: str, v: dict[str, Any], reference_node: str) -> Assay:
    where, at = f"assay {n}", f"assays.{n}"
    stages = []
    for j, s in enumerate(_list(v, "stages", where, at)):
        st = f"{at}.stages[{j}]"
        name = _text(s, "name", f"{where}, stages", st)
        here = f"{where}, stage {name}"
        months = None if s.get("retention_months") is None else _num(s, "retention_months", here, path=st)
        if months is not None and not months.is_integer():
            raise PlanValueError(f"{here}: retention_months must be a whole number of months, got {months:g}",
                                 f"{st}.retention_months")
        stages.append(Stage(name, _num(s, "gb_per_sample", here, path=st), None if months is None else int(months),
                            _num(s, "files_per_sample", here, 0.0, st)))
    return Assay(
        name=n,
        kind=str(v.get("kind", "custom")),
        core_hours_per_sample=_num(v, "core_hours_per_sample", where, path=at),
        node_type=str(v.get("node_type", reference_node)),
        stages=stages,
        coverage=None if v.get("coverage") is None else _num(v, "coverage", where, path=at),
        reanalysis_rate=_num(v, "reanalysis_rate", where, 0.0, at),
        description=str(v.get("description", "")),
    )


def plan_to_dict(plan: SequencingPlan) -> dict[str, Any]:
    """The plan as plain data following the YAML schema (dates as ISO strings).  ``department`` only when the
    plan names one, so a plan without it is the same document it always was."""
    return {
        "name": plan.name,
        **({"department": plan.department} if plan.department is not None else {}),
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "interpolation": plan.interpolation,
        "reference_node": plan.reference_node,
        "node_types": {
            n: {"clock_ghz": t.clock_ghz, "arch_factor": t.arch_factor, "description": t.description}
            for n, t in plan.node_types.items()
        },
        "instruments": [
            {
                "model": i.model,
                "runs_per_week": i.runs_per_week,
                "counts": [{"date": c.date.isoformat(), "count": c.count} for c in i.counts],
                "run_mix": [{"assay": r.assay, "samples_per_run": r.samples_per_run} for r in i.run_mix],
            }
            for i in plan.instruments
        ],
        "assays": {
            n: {
                "kind": a.kind,
                "coverage": a.coverage,
                "core_hours_per_sample": a.core_hours_per_sample,
                "node_type": a.node_type,
                "reanalysis_rate": a.reanalysis_rate,
                "description": a.description,
                "stages": [
                    {
                        "name": s.name,
                        "gb_per_sample": s.gb_per_sample,
                        "retention_months": s.retention_months,
                        "files_per_sample": s.files_per_sample,
                    }
                    for s in a.stages
                ],
            }
            for n, a in plan.assays.items()
        },
        "notes": plan.notes,
    }


def plan_from_yaml(text: str) -> SequencingPlan:
    return plan_from_dict(yaml_load(text))


def plan_to_yaml(plan: SequencingPlan) -> str:
    return yaml.safe_dump(plan_to_dict(plan), sort_keys=False, allow_unicode=True)


def load_plan(path: str) -> SequencingPlan:
    with open(path, encoding="utf-8") as fh:
        return plan_from_yaml(fh.read())


def counts_to_csv(plan: SequencingPlan) -> str:
    """Instrument count schedule as CSV: ``model,date,count``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "date", "count"])
    for i in plan.instruments:
        for c in i.counts:
            w.writerow([i.model, c.date.isoformat(), repr(c.count)])
    return buf.getvalue()


def counts_from_csv(text: str) -> dict[str, list[CountPoint]]:
    """Parse ``model,date,count`` rows into count points per model (to replace a plan's schedule)."""
    out: dict[str, list[CountPoint]] = {}
    reader = csv.DictReader(io.StringIO(text))
    for row in reader:
        line = reader.line_num
        try:
            when, count = _date(row["date"]), float(row["count"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"line {line}: {exc}") from exc
        if not math.isfinite(count) or count < 0:
            raise ValueError(f"line {line}: count {row['count']!r} for {row['model']} must be a number >= 0")
        try:  # the YAML's range, named with the CSV's line (the plan's check named no line)
            check_range("count", count, f"{row['model']}, from {when.isoformat()}")
        except PlanFieldError as exc:
            raise ValueError(f"line {line}: {exc}") from None
        out.setdefault(row["model"], []).append(CountPoint(when, count))
    return out


def yearly_to_csv(years: list[YearFigures]) -> str:
    """Yearly figures as CSV, one row per year; dict fields flattened to ``field:key`` columns."""
    rows = [_flatten(y.to_dict()) for y in years]
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: repr(v) if isinstance(v, float) else v for k, v in r.items()})
    return buf.getvalue()


def yearly_from_csv(text: str) -> list[YearFigures]:
    """Inverse of ``yearly_to_csv``."""
    names = {f.name: f for f in fields(YearFigures)}
    out: list[YearFigures] = []
    for row in csv.DictReader(io.StringIO(text)):
        kw: dict[str, Any] = {}
        for col, val in row.items():
            if val is None or val == "":
                continue
            if ":" in col:
                fld, key = col.split(":", 1)
                kw.setdefault(fld, {})[key] = float(val)
            elif col in ("year", "months"):
                kw[col] = int(val)
            else:
                kw[col] = float(val)
        for fld in names:
            if fld not in kw and fld in ("samples", "core_hours_by_node", "new_tb", "stored_tb"):
                kw[fld] = {}
        out.append(YearFigures(**kw))
    return out


def _flatten(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update({f"{k}:{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


__all__ = [
    "Assay",
    "AssayShare",
    "CountPoint",
    "Instrument",
    "MonthFigures",
    "NodeType",
    "PlanDiffRow",
    "SequencingPlan",
    "Stage",
    "YearFigures",
    "compare_plans",
    "counts_from_csv",
    "counts_to_csv",
    "load_plan",
    "monthly_figures",
    "plan_from_dict",
    "plan_from_yaml",
    "plan_to_dict",
    "plan_to_yaml",
    "weekly_output",
    "yearly_figures",
    "yearly_from_csv",
    "yearly_to_csv",
]
