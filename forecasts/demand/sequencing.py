"""Bottom-up sequencer rollout plans: instruments -> samples -> core-hours, TB, files (pure core).

The Minerva method (SC15, section 5): demand is projected from the sequencing facility's
instrument rollout, not only extrapolated from usage.  A plan says how many instruments of
each model run over time, how often they run and which assays a run carries; each assay says
what one sample costs in compute and in storage per pipeline stage.  From that, per month and
per calendar year: samples, genomes per day, core-hours (on the reference node and on any
other node type), new and retained TB per stage, daily ingest, file counts.

Units (see ``forecasts/units.py``): storage in decimal TB (1 TB = 1000 GB = 10**12 bytes);
compute in core-hours (allocated cores x hours) on the node type an assay's figure was
measured on, converted to other node types linearly by clock x architecture factor
(``convert_core_hours``, the paper's "strict linear clock frequency comparison").

Modelling choices:

- Instrument counts are interpolated **linearly** between dated points (``interpolation:
  linear``; a fleet grows by installs spread over the years) or held until the next point
  (``step``); before the first point and after the last the nearest count holds.  A month's
  count is the value at its 15th day.
- Runs per week are per instrument; a month has days/7 weeks.
- Re-analysis: ``reanalysis_rate`` is the share of the assay's cohort (all samples sequenced
  in earlier months of the plan) re-run per year; it costs compute like a new sample.  Its
  outputs replace the earlier versions, so it adds no retained storage and no ingest.
- Retention ``R`` months: data written in month k is held through month k+R-1 (``null`` =
  forever).  Retained TB and files are what is held at the end of a month.
- ``genomes_per_day`` counts samples of assays of kind ``whole_genome``.

YAML schema (``plan_to_yaml`` / ``plan_from_yaml``)::

    name: str
    department: <code>         # optional: the department whose sequencing this is (a department code; the
                               # Django service checks it exists); absent or null = not said
    start: YYYY-MM-DD          # first month of the plan (day ignored)
    end: YYYY-MM-DD            # last month of the plan (start and end in 1970-2199, at most 100 years apart)
    interpolation: linear|step
    reference_node: <node type name>
    node_types: {<name>: {clock_ghz: float, arch_factor: float, description: str}}
    instruments:
      - model: str
        runs_per_week: float   # per instrument
        counts: [{date: YYYY-MM-DD, count: float}, ...]   # dates in ascending order, each once
        run_mix: [{assay: <assay name>, samples_per_run: float}, ...]
    assays:
      <name>:
        kind: whole_genome|exome|rna_seq|custom
        coverage: float|null   # sequencing depth (x), informative
        core_hours_per_sample: float   # on node_type, the whole pipeline for one sample
        node_type: <node type name>
        reanalysis_rate: float # share of the cohort re-run per year
        stages: [{name: raw|fastq|bam|vcf|..., gb_per_sample: float,
                  retention_months: int|null, files_per_sample: float}, ...]
    notes: str

CSV helpers write and read the instrument count schedule (``model,date,count``) and the yearly
figures (one row per year, nested dicts flattened as ``field:key`` columns).
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from forecasts.units import DAYS_PER_YEAR, TB_PER_PB, convert_core_hours

GB_PER_TB = 1000.0
ASSAY_KINDS = ("whole_genome", "exome", "rna_seq", "custom")
INTERPOLATIONS = ("linear", "step")
KIND_WORDS = {"whole_genome": "whole genome", "exome": "exome", "rna_seq": "RNA-seq"}


def node_type_label(name: str) -> str:
    """A node type as the hardware catalog names it (amd-interlagos): plans key them as amd_interlagos, and the
    stored documents keep that key."""
    return name.replace("_", "-")


def _assay_words(assay: Assay) -> str:
    words = KIND_WORDS.get(assay.kind)
    if words is None:
        return assay.name.replace("_", " ")
    return f"{words} {assay.coverage:g}x" if assay.coverage and assay.kind != "rna_seq" else words


def assay_label(plan: SequencingPlan, name: str) -> str:
    """An assay in words (wgs_30x of kind whole_genome at 30x: 'whole genome 30x'); two assays that would read
    the same keep their names in brackets."""
    words = _assay_words(plan.assays[name])
    twins = sum(1 for a in plan.assays.values() if _assay_words(a) == words)
    return f"{words} ({name})" if twins > 1 else words


@dataclass(frozen=True)
class NodeType:
    """A compute node type: per-core clock (GHz) and work per core per GHz relative to the reference."""

    name: str
    clock_ghz: float
    arch_factor: float = 1.0
    description: str = ""


@dataclass(frozen=True)
class CountPoint:
    date: date
    count: float


@dataclass(frozen=True)
class AssayShare:
    assay: str
    samples_per_run: float


@dataclass
class Instrument:
    """A sequencer model: how many over time, runs per week each, and the samples a run carries."""

    model: str
    counts: list[CountPoint]
    runs_per_week: float
    run_mix: list[AssayShare]

    def count_on(self, d: date, interpolation: str = "linear") -> float:
        """Instruments in service on ``d`` (see the module docstring for the rule)."""
        pts = sorted(self.counts, key=lambda p: p.date)
        if not pts:
            return 0.0
        if d <= pts[0].date:
            return pts[0].count
        for a, b in zip(pts, pts[1:], strict=False):
            if a.date <= d < b.date:
                if interpolation == "step":
                    return a.count
                frac = (d - a.date).days / (b.date - a.date).days
                return a.count + frac * (b.count - a.count)
        return pts[-1].count


@dataclass(frozen=True)
class Stage:
    """Data one sample leaves at a pipeline stage (decimal GB) and how long it is kept."""

    name: str
    gb_per_sample: float
    retention_months: int | None = None  # None = kept forever
    files_per_sample: float = 0.0


@dataclass
class Assay:
    """One kind of sample: compute on a named node type and data per stage."""

    name: str
    kind: str
    core_hours_per_sample: float
    node_type: str
    stages: list[Stage]
    coverage: float | None = None
    reanalysis_rate: float = 0.0
    description: str = ""


class PlanValueError(ValueError):
    """A value of a plan refused. ``path`` is the field of the plan document it is about
    (``instruments[0].runs_per_week``; "" for the plan as a whole), so a reader of a YAML file can name its
    line (planner.web.yaml_lines)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


@dataclass
class SequencingPlan:
    name: str
    start: date
    end: date
    reference_node: str
    node_types: dict[str, NodeType]
    instruments: list[Instrument]
    assays: dict[str, Assay]
    interpolation: str = "linear"
    notes: str = ""
    department: str | None = None  # the code of the department whose sequencing this is; None = not said

    @property
    def reference_clock_ghz(self) -> float:
        """The clock of the core the plan's core-hours are on."""
        return self.node_types[self.reference_node].clock_ghz

    def validate(self) -> None:
        """Raise PlanValueError (a ValueError naming the document field it is about) when the plan is
        inconsistent."""
        if self.interpolation not in INTERPOLATIONS:
            raise PlanValueError(f"interpolation must be one of {INTERPOLATIONS}", "interpolation")
        if self.end < self.start:
            raise PlanValueError("plan end is before its start", "end")
        if self.reference_node not in self.node_types:
            raise PlanValueError(f"reference node {self.reference_node!r} is not among node_types", "reference_node")
        if self.department is not None and (not isinstance(self.department, str) or not self.department.strip()):
            raise PlanValueError(f"department must be a department code such as ggs, not {self.department!r}",
                                 "department")
        for a in self.assays.values():
            at = f"assays.{a.name}"
            if a.kind not in ASSAY_KINDS:
                raise PlanValueError(f"assay {a.name}: kind must be one of {ASSAY_KINDS}", f"{at}.kind")
            if a.node_type not in self.node_types:
                raise PlanValueError(f"assay {a.name}: unknown node type {a.node_type!r}", f"{at}.node_type")
            if a.core_hours_per_sample < 0 or a.reanalysis_rate < 0:
                raise PlanValueError(f"assay {a.name}: negative core-hours or re-analysis rate", at)
            for j, s in enumerate(a.stages):
                if not s.gb_per_sample >= 0 or not s.files_per_sample >= 0 or (s.retention_months or 0) < 0:
                    raise PlanValueError(f"assay {a.name}, stage {s.name}: sizes, files and retention must be >= 0",
                                         f"{at}.stages[{j}]")
        for n in self.node_types.values():
            if not n.clock_ghz > 0 or not n.arch_factor > 0:
                raise PlanValueError(f"node type {n.name}: clock_ghz and arch_factor must be > 0",
                                     f"node_types.{n.name}")
        for k, ins in enumerate(self.instruments):
            at = f"instruments[{k}]"
            if not math.isfinite(ins.runs_per_week) or ins.runs_per_week < 0:
                raise PlanValueError(f"instrument {ins.model}: runs_per_week must be a number >= 0, "
                                     f"not {ins.runs_per_week}", f"{at}.runs_per_week")
            for j, c in enumerate(ins.counts):  # a negative count would make negative core-hours
                if not math.isfinite(c.count) or c.count < 0:
                    raise PlanValueError(f"instrument {ins.model}: count on {c.date} must be a number >= 0, "
                                         f"not {c.count}", f"{at}.counts[{j}].count")
            for j, share in enumerate(ins.run_mix):
                if share.assay not in self.assays:
                    raise PlanValueError(f"instrument {ins.model}: unknown assay {share.assay!r}",
                                         f"{at}.run_mix[{j}].assay")
                if not math.isfinite(share.samples_per_run) or share.samples_per_run < 0:
                    raise PlanValueError(f"instrument {ins.model}: samples_per_run of {share.assay} must be >= 0",
                                         f"{at}.run_mix[{j}].samples_per_run")


@dataclass
class MonthFigures:
    """Derived figures for one month (see the module docstring for units and rules)."""

    month: date
    instruments: float
    samples: dict[str, float]
    samples_total: float
    reanalysed_total: float
    genomes_per_day: float
    core_hours_ref: float  # on the plan's reference node type
    new_tb: dict[str, float]  # by stage
    stored_tb: dict[str, float]  # by stage, held at month end after retention
    stored_tb_total: float
    daily_ingest_tb: float
    new_files: float
    stored_files: float


@dataclass
class YearFigures:
    """Calendar-year figures: flows summed over the year's months, stocks at its last month."""

    year: int
    months: int
    instruments_end: float
    samples: dict[str, float]
    samples_total: float
    reanalysed_total: float
    genomes_per_day_mean: float
    genomes_per_day_peak: float
    core_hours_ref: float
    core_hours_by_node: dict[str, float]
    new_tb: dict[str, float]
    new_tb_total: float
    stored_tb: dict[str, float]
    stored_tb_total: float
    stored_pb_total: float
    daily_ingest_tb_mean: float
    daily_ingest_tb_peak: float
    flash_week_tb: float  # a week of ingest at the year's peak daily rate
    new_files: float
    stored_files: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _months(start: date, end: date) -> list[date]:
    out, y, m = [], start.year, start.month
    while (y, m) <= (end.year, end.month):
        out.append(date(y, m, 1))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def _to_ref(plan: SequencingPlan, assay: Assay) -> float:
    """Core-hours per sample of ``assay`` expressed on the plan's reference node."""
    src, ref = plan.node_types[assay.node_type], plan.node_types[plan.reference_node]
    return convert_core_hours(
        assay.core_hours_per_sample,
        from_clock_ghz=src.clock_ghz,
        to_clock_ghz=ref.clock_ghz,
        from_arch_factor=src.arch_factor,
        to_arch_factor=ref.arch_factor,
    )


def monthly_figures(plan: SequencingPlan) -> list[MonthFigures]:
    """Derive every month of the plan."""
    plan.validate()
    months = _months(plan.start, plan.end)
    stage_names = list(dict.fromkeys(s.name for a in plan.assays.values() for s in a.stages))
    cohort = {name: 0.0 for name in plan.assays}
    history: list[dict[str, float]] = []  # samples per assay per month, for retention windows
    out: list[MonthFigures] = []
    for i, month in enumerate(months):
        days = calendar.monthrange(month.year, month.month)[1]
        mid = month.replace(day=15)
        samples = {name: 0.0 for name in plan.assays}
        n_instruments = 0.0
        for ins in plan.instruments:
            count = ins.count_on(mid, plan.interpolation)
            n_instruments += count
            runs = count * ins.runs_per_week * days / 7.0
            for share in ins.run_mix:
                samples[share.assay] += runs * share.samples_per_run
        history.append(samples)
        reanalysed = {n: a.reanalysis_rate * cohort[n] * days / DAYS_PER_YEAR for n, a in plan.assays.items()}
        core_hours = sum((samples[n] + reanalysed[n]) * _to_ref(plan, a) for n, a in plan.assays.items())
        new_tb = dict.fromkeys(stage_names, 0.0)
        stored_tb = dict.fromkeys(stage_names, 0.0)
        new_files = stored_files = 0.0
        for n, a in plan.assays.items():
            for s in a.stages:
                new_tb[s.name] += samples[n] * s.gb_per_sample / GB_PER_TB
                new_files += samples[n] * s.files_per_sample
                first = 0 if s.retention_months is None else max(0, i - s.retention_months + 1)
                held = sum(h[n] for h in history[first : i + 1])
                stored_tb[s.name] += held * s.gb_per_sample / GB_PER_TB
                stored_files += held * s.files_per_sample
        for n in plan.assays:
            cohort[n] += samples[n]
        wgs = sum(samples[n] for n, a in plan.assays.items() if a.kind == "whole_genome")
        out.append(
            MonthFigures(
                month=month,
                instruments=n_instruments,
                samples=samples,
                samples_total=sum(samples.values()),
                reanalysed_total=sum(reanalysed.values()),
                genomes_per_day=wgs / days,
                core_hours_ref=core_hours,
                new_tb=new_tb,
                stored_tb=stored_tb,
                stored_tb_total=sum(stored_tb.values()),
                daily_ingest_tb=sum(new_tb.values()) / days,
                new_files=new_files,
                stored_files=stored_files,
            )
        )
    return out


def _sum_dicts(ds: Iterable[dict[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for d in ds:
        for k, v in d.items():
            out[k] = out.get(k, 0.0) + v
    return out


def yearly_figures(plan: SequencingPlan, monthly: list[MonthFigures] | None = None) -> list[YearFigures]:
    """Aggregate the monthly figures by calendar year; core-hours converted to every node type."""
    monthly = monthly if monthly is not None else monthly_figures(plan)
    ref = plan.node_types[plan.reference_node]
    out: list[YearFigures] = []
    for year in sorted({m.month.year for m in monthly}):
        ms = [m for m in monthly if m.month.year == year]
        last = ms[-1]
        ch = sum(m.core_hours_ref for m in ms)
        new_tb = _sum_dicts(m.new_tb for m in ms)
        peak_ingest = max(m.daily_ingest_tb for m in ms)
        days = sum(calendar.monthrange(m.month.year, m.month.month)[1] for m in ms)
        out.append(
            YearFigures(
                year=year,
                months=len(ms),
                instruments_end=last.instruments,
                samples=_sum_dicts(m.samples for m in ms),
                samples_total=sum(m.samples_total for m in ms),
                reanalysed_total=sum(m.reanalysed_total for m in ms),
                genomes_per_day_mean=sum(m.genomes_per_day for m in ms) / len(ms),
                genomes_per_day_peak=max(m.genomes_per_day for m in ms),
                core_hours_ref=ch,
                core_hours_by_node={
                    name: convert_core_hours(
                        ch,
                        from_clock_ghz=ref.clock_ghz,
                        to_clock_ghz=nt.clock_ghz,
                        from_arch_factor=ref.arch_factor,
                        to_arch_factor=nt.arch_factor,
                    )
                    for name, nt in plan.node_types.items()
                },
                new_tb=new_tb,
                new_tb_total=sum(new_tb.values()),
                stored_tb=dict(last.stored_tb),
                stored_tb_total=last.stored_tb_total,
                stored_pb_total=last.stored_tb_total / TB_PER_PB,
                daily_ingest_tb_mean=sum(new_tb.values()) / days,
                daily_ingest_tb_peak=peak_ingest,
                flash_week_tb=7 * peak_ingest,
                new_files=sum(m.new_files for m in ms),
                stored_files=last.stored_files,
            )
        )
    return out


def weekly_output(plan: SequencingPlan, on: date) -> dict[str, float]:
    """Instrument output per week on a date: samples, raw TB (stage 'raw') and footprint TB (all stages)."""
    samples = {n: 0.0 for n in plan.assays}
    instruments = 0.0
    for ins in plan.instruments:
        count = ins.count_on(on, plan.interpolation)
        instruments += count
        for share in ins.run_mix:
            samples[share.assay] += count * ins.runs_per_week * share.samples_per_run
    raw = sum(
        samples[n] * s.gb_per_sample for n, a in plan.assays.items() for s in a.stages if s.name == "raw"
    )
    total = sum(samples[n] * s.gb_per_sample for n, a in plan.assays.items() for s in a.stages)
    return {
        "instruments": instruments,
        "samples": sum(samples.values()),
        "raw_tb": raw / GB_PER_TB,
        "footprint_tb": total / GB_PER_TB,
    }


@dataclass
class PlanDiffRow:
    """One metric of one year in two plans: b - a, and b / a - 1 (None when a is 0)."""

    year: int
    metric: str
    a: float
    b: float
    delta: float
    change: float | None


DIFF_METRICS = (
    "instruments_end",
    "samples_total",
    "genomes_per_day_peak",
    "core_hours_ref",
    "new_tb_total",
    "stored_tb_total",
    "daily_ingest_tb_peak",
    "new_files",
    "stored_files",
)


def compare_plans(
    a: SequencingPlan, b: SequencingPlan, metrics: Iterable[str] = DIFF_METRICS
) -> list[PlanDiffRow]:
    """Year-by-year differences of two plans over the years both cover.

    Core-hours are compared on each plan's own reference node; give both plans the same
    reference node for a like-for-like comparison.
    """
    ya = {y.year: y for y in yearly_figures(a)}
    yb = {y.year: y for y in yearly_figures(b)}
    rows: list[PlanDiffRow] = []
    for year in sorted(set(ya) & set(yb)):
        for m in metrics:
            va, vb = float(getattr(ya[year], m)), float(getattr(yb[year], m))
            rows.append(PlanDiffRow(year, m, va, vb, vb - va, (vb / va - 1) if va else None))
    return rows
