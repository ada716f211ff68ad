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


def _date(v: Any) -> date:
    return v if isinstance(v, date) else date.fromisoformat(str(v))


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


def _check_keys(what: str, where: str, d: Any) -> None:
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected a mapping of {', '.join(sorted(KEYS[what]))}")
    unknown = sorted(set(map(str, d)) - KEYS[what])
    if unknown:
        raise ValueError(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                         f"(a {what} takes {', '.join(sorted(KEYS[what]))})")


def _check_all_keys(d: dict[str, Any]) -> None:
    _check_keys("plan", "plan", d)
    for n, v in (d.get("node_types") or {}).items():
        _check_keys("node type", f"node type {n}", v)
    for k, i in enumerate(d.get("instruments") or [], start=1):
        where = f"instrument {k} ({i.get('model', '?') if isinstance(i, dict) else '?'})"
        _check_keys("instrument", where, i)
        for c in i.get("counts") or []:
            _check_keys("count", f"{where}, counts", c)
        for r in i.get("run_mix") or []:
            _check_keys("run mix", f"{where}, run_mix", r)
    for n, a in (d.get("assays") or {}).items():
        _check_keys("assay", f"assay {n}", a)
        for s in a.get("stages") or []:
            _check_keys("stage", f"assay {n}, stages", s)


def _department(v: Any) -> str | None:
    """The plan's ``department`` key: a department code (text), or none when absent, null or blank.  Whether
    the code names a department is the Django service's check (forecasts.demand.plans)."""
    if v is None:
        return None
    if not isinstance(v, str):  # YAML reads 042 as a number: a code is text, quoted if it looks like one
        raise ValueError(f"department must be a department code such as ggs (quoted if it looks like a number), "
                         f"not {str(v)[:40]!r}")
    return v.strip() or None


class PlanFieldError(ValueError):
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


def check_range(key: str, value: float, where: str) -> None:
    """PlanFieldError unless ``value`` lies in the range of the field ``key`` (NaN and infinities never do)."""
    words, lo, hi, open_lo, hint = RANGES[key]
    inside = (lo < value if open_lo else lo <= value) and value <= hi
    if not inside:
        span = (f"more than {_bound(lo)} and at most {_bound(hi)}" if open_lo
                else f"between {_bound(lo)} and {_bound(hi)}")
        raise PlanFieldError(f"{where}: {words}: {span}{hint}, got {value:g}")


def check_ranges(plan: SequencingPlan) -> None:
    """Every number of ``plan`` inside its field's range (RANGES); the first one outside is named."""
    for n, t in plan.node_types.items():
        check_range("clock_ghz", t.clock_ghz, f"node type {node_type_label(n)}")
        check_range("arch_factor", t.arch_factor, f"node type {node_type_label(n)}")
    for ins in plan.instruments:
        check_range("runs_per_week", ins.runs_per_week, ins.model)
        for c in ins.counts:
            check_range("count", c.count, f"{ins.model}, from {c.date.isoformat()}")
        for share in ins.run_mix:
            check_range("samples_per_run", share.samples_per_run,
                        f"{ins.model}, {assay_label(plan, share.assay) if share.assay in plan.assays else share.assay}")
    for n, a in plan.assays.items():
        where = f"assay {assay_label(plan, n)}"
        check_range("core_hours_per_sample", a.core_hours_per_sample, where)
        check_range("reanalysis_rate", a.reanalysis_rate, where)
        if a.coverage is not None:
            check_range("coverage", a.coverage, where)
        for s in a.stages:
            check_range("gb_per_sample", s.gb_per_sample, f"{where}, stage {s.name}")
            check_range("files_per_sample", s.files_per_sample, f"{where}, stage {s.name}")
            if s.retention_months is not None:
                check_range("retention_months", s.retention_months, f"{where}, stage {s.name}")


def _num(row: Any, key: str, where: str, default: float | None = None) -> float:
    """``row[key]`` as a number; ValueError naming the row and the field when it is missing (and has no default)
    or is not a number (a range such as "8-12", a mapping), never Python's own words."""
    if key not in row or row[key] is None:
        if default is None:
            raise ValueError(f"{where}: missing field {key!r}")
        return default
    v = row[key]
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueError(f"{where}: {key} must be a single number, not {str(v)[:40]!r}")
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"{where}: {key} must be a single number, not {str(v)[:40]!r}") from None


def _check_dates_ascend(counts: list[CountPoint], where: str) -> None:
    """Count dates in ascending order, each once: a date out of order is most often a typed year (2062 for
    2026), and two counts on one date leave the instruments on it undecided."""
    for a, b in zip(counts, counts[1:], strict=False):
        if b.date == a.date:
            raise ValueError(f"{where}: {a.date.isoformat()} is given twice ({a.count:g} and {b.count:g} "
                             "instruments); give each date once")
        if b.date < a.date:
            raise ValueError(f"{where}: {b.date.isoformat()} comes after {a.date.isoformat()}; "
                             "give the dates in order")


def plan_from_dict(d: dict[str, Any], *, ranges: bool = True) -> SequencingPlan:
    """Build a plan from the YAML schema in the module docstring (dates as ISO strings or dates).

    ``ranges``: check every number against its field's range (RANGES), as everything coming in is; a version
    stored before the ranges were checked is read with ``ranges=False`` so its page still opens."""
    _check_all_keys(d)
    node_types = {
        n: NodeType(n, float(v["clock_ghz"]), float(v.get("arch_factor", 1.0)), str(v.get("description", "")))
        for n, v in d["node_types"].items()
    }
    assays = {
        n: Assay(
            name=n,
            kind=str(v.get("kind", "custom")),
            core_hours_per_sample=float(v["core_hours_per_sample"]),
            node_type=str(v.get("node_type", d["reference_node"])),
            stages=[
                Stage(
                    str(s["name"]),
                    float(s["gb_per_sample"]),
                    None if s.get("retention_months") is None else int(s["retention_months"]),
                    float(s.get("files_per_sample", 0.0)),
                )
                for s in v.get("stages", [])
            ],
            coverage=None if v.get("coverage") is None else float(v["coverage"]),
            reanalysis_rate=float(v.get("reanalysis_rate", 0.0)),
            description=str(v.get("description", "")),
        )
        for n, v in d["assays"].items()
    }
    instruments = []
    for k, i in enumerate(d["instruments"], start=1):
        where = f"instrument {k} ({i.get('model', '?')})"
        instruments.append(Instrument(
            model=str(i["model"]),
            runs_per_week=_num(i, "runs_per_week", where),
            counts=[CountPoint(_date(c["date"]), _num(c, "count", f"{where}, counts")) for c in i["counts"]],
            run_mix=[AssayShare(str(r["assay"]), _num(r, "samples_per_run", f"{where}, run_mix"))
                     for r in i["run_mix"]],
        ))
    if ranges:
        for k, ins in enumerate(instruments, start=1):
            _check_dates_ascend(ins.counts, f"instrument {k} ({ins.model}), counts")
    plan = SequencingPlan(
        name=str(d["name"]),
        start=_date(d["start"]),
        end=_date(d["end"]),
        reference_node=str(d["reference_node"]),
        node_types=node_types,
        instruments=instruments,
        assays=assays,
        interpolation=str(d.get("interpolation", "linear")),
        notes=str(d.get("notes", "")),
        department=_department(d.get("department")),
    )
    if ranges:
        check_ranges(plan)
    plan.validate()
    return plan


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
    return plan_from_dict(yaml.safe_load(text))


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
