"""Benchmark observations and performance-model inputs from YAML (pure core, no Django).

Schema: fixtures/benchmarks/genomics.yaml (documented at its top and in docs/performance-model.md).
Every problem is reported on one line naming the file and the field path (or line and column for
a YAML syntax error); nothing raises a traceback at a user.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from planner.hardware.performance import MODES, Node, Pipeline, Stage, Storage
from planner.web.textfiles import UploadTextError, upload_text, yaml_load

DEFAULT_BENCHMARKS = Path(__file__).resolve().parents[2] / "fixtures" / "benchmarks" / "genomics.yaml"
KINDS = ("per_genome", "job_hours", "batch")
TRANSFORMS = ("log", "logit")


class InputError(ValueError):
    """A benchmark file is malformed; the message is one line naming the file and field."""


@dataclass(frozen=True, slots=True)
class Prior:
    path: str
    value: float
    sd: float  # in the transformed space
    transform: str  # "log" or "logit"
    source: str = ""


@dataclass(frozen=True, slots=True)
class Tie:
    path: str
    equals: str
    factor: float
    source: str = ""


@dataclass(frozen=True, slots=True)
class Observation:
    id: str
    kind: str  # per_genome | job_hours | batch
    pipeline: str
    node: str
    measured: dict[str, float]
    source: dict[str, Any]
    storage: str = ""
    concurrency: str | float = 1.0  # per_genome: a number or an ``extras.`` path
    stage: str = ""
    threads: int = 1
    work: str = ""  # job_hours: ``extras.`` path of the job's work
    nodes: int = 0
    samples_per_node: int = 0
    rel_sd: float = 0.05  # relative measurement uncertainty
    use: bool = True
    note: str = ""
    # interval (censored) statements: quantity -> (low, high), e.g. a run time "between 11 and 13
    # hours"; inside the interval costs nothing, outside costs log distance / rel_sd
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)

    def cite(self) -> str:
        s = self.source
        where = str(s.get("where", ""))
        page = f", p. {s['page']}" if s.get("page") is not None and "p. " not in where else ""
        return f"seed {s.get('seed', '?')}, {where}{page}"


@dataclass(slots=True)
class BenchmarkSet:
    nodes: dict[str, Node]
    storages: dict[str, Storage]
    pipelines: dict[str, Pipeline]
    extras: dict[str, float]
    priors: list[Prior]
    ties: list[Tie]
    observations: list[Observation]
    sources: dict[str, str] = field(default_factory=dict)  # "nodes.x" -> source text
    source_path: str = ""
    aliases: dict[str, str] = field(default_factory=dict)  # catalog pipeline name -> pipeline id
    units: dict[str, float] = field(default_factory=dict)  # storage -> catalog units it was made of

    def used(self) -> list[Observation]:
        return [o for o in self.observations if o.use]


def read_yaml(path: str | Path) -> Any:
    """Parse YAML; a syntax error becomes one line: ``file:line:column: message``."""
    p = Path(path)
    try:  # not UTF-8, or a NUL byte, named with its line (was Python's UnicodeDecodeError); a byte-order mark dropped
        text = upload_text(p.read_bytes(), str(p))
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    except UploadTextError as exc:
        raise InputError(str(exc)) from None
    try:
        return yaml_load(text)  # a key given twice is refused, not the last value kept
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark else str(p)
        raise InputError(f"{where}: YAML syntax error: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{p}: YAML syntax error: {exc}") from None


SECTIONS = ("nodes", "storages", "pipelines", "extras")


def split_path(bset: BenchmarkSet, path: str) -> tuple[str, str, str]:
    """(section, item name, field) of ``section.item.field``; item names may contain dots."""
    section, _, rest = path.partition(".")
    if section not in SECTIONS:
        raise KeyError(f"unknown parameter path {path!r} (starts with one of {', '.join(SECTIONS)})")
    if section == "extras":
        if rest not in bset.extras:
            raise KeyError(f"unknown parameter path {path!r}")
        return section, rest, ""
    items: dict[str, Any] = getattr(bset, section)
    names = [k for k in items if rest.startswith(k + ".")]
    if not names:
        raise KeyError(f"unknown parameter path {path!r}")
    name = max(names, key=len)
    return section, name, rest[len(name) + 1:]


def get_value(bset: BenchmarkSet, path: str) -> float:
    section, name, fld = split_path(bset, path)
    if section == "extras":
        return bset.extras[name]
    obj = getattr(bset, section)[name]
    if section == "pipelines" and fld.startswith("stages."):
        stage_name, _, sub = fld[len("stages."):].rpartition(".")
        try:
            obj = obj.stage(stage_name)
        except KeyError:
            raise KeyError(f"unknown parameter path {path!r}") from None
        fld = sub
    if not hasattr(obj, fld) or not isinstance(getattr(obj, fld), (int, float)):
        raise KeyError(f"unknown parameter path {path!r}")
    return float(getattr(obj, fld))


class _R:
    """Reads typed values, raising InputError with the file and field path."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, msg: str) -> InputError:
        return InputError(f"{self.where}: {path}: {msg}")

    def map(self, raw: Any, path: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(path, f"expected a mapping, got {type(raw).__name__}")
        return raw

    def num(self, raw: dict[str, Any], key: str, path: str, *, default: float | None = None,
            positive: bool = False, nonneg: bool = False, hi: float | None = None,
            allow_none: bool = False) -> float | None:
        val = raw.get(key, default)
        where = f"{path}.{key}"
        if val is None:
            if allow_none:
                return None
            raise self.fail(where, "required")
        if isinstance(val, str):
            try:
                val = float(val.replace("_", ""))
            except ValueError:
                raise self.fail(where, f"expected a number, got {val!r}") from None
        if isinstance(val, bool) or not isinstance(val, (int, float)) or not math.isfinite(val):
            raise self.fail(where, f"expected a number, got {val!r}")
        if positive and val <= 0:
            raise self.fail(where, f"must be > 0, got {val!r}")
        if nonneg and val < 0:
            raise self.fail(where, f"must be >= 0, got {val!r}")
        if hi is not None and val > hi:
            raise self.fail(where, f"must be <= {hi:g}, got {val!r}")
        return float(val)

    def req(self, raw: dict[str, Any], key: str, path: str, **kw: Any) -> float:
        out = self.num(raw, key, path, **kw)
        assert out is not None
        return out

    def whole(self, raw: dict[str, Any], key: str, path: str, default: int | None = None) -> int:
        val = raw.get(key, default)
        if val is None:
            raise self.fail(f"{path}.{key}", "required")
        if isinstance(val, bool) or not isinstance(val, int) or val <= 0:
            raise self.fail(f"{path}.{key}", f"expected a positive whole number, got {val!r}")
        return val

    def text(self, raw: dict[str, Any], key: str, path: str, choices: tuple[str, ...] | None = None,
             default: str | None = None) -> str:
        val = raw.get(key, default)
        if not isinstance(val, str) or not val:
            raise self.fail(f"{path}.{key}", "required (a name)" if val is None else f"expected a name, got {val!r}")
        if choices and val not in choices:
            raise self.fail(f"{path}.{key}", f"expected one of {', '.join(choices)}, got {val!r}")
        return val


def _stage(r: _R, raw: Any, path: str) -> Stage:
    m = r.map(raw, path)
    return Stage(
        name=r.text(m, "name", path),
        work_share=r.req(m, "work_share", path, nonneg=True, hi=1.0),
        io_share=r.req(m, "io_share", path, nonneg=True, hi=1.0),
        jobs=r.whole(m, "jobs", path, 1), threads=r.whole(m, "threads", path, 1),
        parallel_fraction=r.req(m, "parallel_fraction", path, default=1.0, nonneg=True, hi=1.0),
    )


def _pipeline(r: _R, name: str, raw: Any, path: str) -> Pipeline:
    m = r.map(raw, path)
    stages = tuple(_stage(r, s, f"{path}.stages[{i}]") for i, s in enumerate(m.get("stages") or []))
    if not stages:
        raise r.fail(f"{path}.stages", "at least one stage is required")
    for key in ("work_share", "io_share"):
        total = sum(getattr(s, key) for s in stages)
        if abs(total - 1.0) > 1e-6:
            raise r.fail(f"{path}.stages", f"{key} must add up to 1, got {total:g}")
    return Pipeline(
        name=name, stages=stages,
        work_ghz_core_hours=r.req(m, "work_ghz_core_hours", path, positive=True),
        io_mops=r.req(m, "io_mops", path, nonneg=True),
        working_set_gb=r.req(m, "working_set_gb", path, nonneg=True),
        mode=r.text(m, "mode", path, MODES, "shared"),
        memory_gb_per_sample=r.req(m, "memory_gb_per_sample", path, default=0.0, nonneg=True),
        memory_gb_per_slot=r.req(m, "memory_gb_per_slot", path, default=0.0, nonneg=True),
    )


def benchmarks_from_dict(data: Any, where: str = "<benchmarks>") -> BenchmarkSet:
    r = _R(where)
    top = r.map(data, "top level")
    sources: dict[str, str] = {}
    nodes: dict[str, Node] = {}
    for name, raw in r.map(top.get("nodes") or {}, "nodes").items():
        path = f"nodes.{name}"
        m = r.map(raw, path)
        nodes[name] = Node(name, r.whole(m, "cores", path), r.req(m, "clock_ghz", path, positive=True),
                           r.req(m, "arch_factor", path, default=1.0, positive=True),
                           r.req(m, "memory_gb", path, default=0.0, nonneg=True))
        sources[path] = str(m.get("source", ""))
    storages: dict[str, Storage] = {}
    units: dict[str, float] = {}
    for name, raw in r.map(top.get("storages") or {}, "storages").items():
        path = f"storages.{name}"
        m = r.map(raw, path)
        storages[name] = Storage(name, r.req(m, "slow_kiops", path, positive=True),
                                 r.req(m, "fast_kiops", path, default=0.0, nonneg=True),
                                 r.num(m, "fast_tb", path, nonneg=True, allow_none=True),
                                 r.req(m, "hit_exponent", path, default=1.0, positive=True))
        sources[path] = str(m.get("source", ""))
        units[name] = r.req(m, "units", path, default=1.0, positive=True)
    pipelines = {name: _pipeline(r, name, raw, f"pipelines.{name}")
                 for name, raw in r.map(top.get("pipelines") or {}, "pipelines").items()}
    for name, raw in (top.get("pipelines") or {}).items():
        sources[f"pipelines.{name}"] = str(raw.get("source", ""))
    extras = {str(k): r.req({"v": v}, "v", f"extras.{k}", positive=True)
              for k, v in r.map(top.get("extras") or {}, "extras").items()}
    aliases: dict[str, str] = {}
    for name, raw in (top.get("pipelines") or {}).items():
        for j, alias in enumerate(raw.get("catalog_names") or []):
            if not isinstance(alias, str) or alias in aliases:
                raise r.fail(f"pipelines.{name}.catalog_names[{j}]", f"expected a new pipeline name, got {alias!r}")
            aliases[alias] = name
    bset = BenchmarkSet(nodes, storages, pipelines, extras, [], [], [], sources, where, aliases, units)
    for i, raw in enumerate(top.get("parameters") or []):
        path = f"parameters[{i}]"
        m = r.map(raw, path)
        target = r.text(m, "path", path)
        try:
            get_value(bset, target)
        except KeyError as exc:
            raise r.fail(f"{path}.path", str(exc.args[0])) from None
        transform = r.text(m, "transform", path, TRANSFORMS,
                           "logit" if target.endswith("parallel_fraction") else "log")
        value = r.req(m, "value", path, positive=True, hi=0.999999 if transform == "logit" else None)
        bset.priors.append(Prior(target, value, r.req(m, "sd", path, positive=True), transform,
                                 str(m.get("source", ""))))
    for i, raw in enumerate(top.get("ties") or []):
        path = f"ties[{i}]"
        m = r.map(raw, path)
        tie = Tie(r.text(m, "path", path), r.text(m, "equals", path),
                  r.req(m, "factor", path, default=1.0, positive=True), str(m.get("source", "")))
        for key, target in (("path", tie.path), ("equals", tie.equals)):
            try:
                get_value(bset, target)
            except KeyError as exc:
                raise r.fail(f"{path}.{key}", str(exc.args[0])) from None
        bset.ties.append(tie)
    seen: set[str] = set()
    for i, raw in enumerate(top.get("observations") or []):
        bset.observations.append(_observation(r, bset, raw, f"observations[{i}]", seen))
    return bset


def _observation(r: _R, bset: BenchmarkSet, raw: Any, path: str, seen: set[str]) -> Observation:
    m = r.map(raw, path)
    oid = r.text(m, "id", path)
    if oid in seen:
        raise r.fail(f"{path}.id", f"duplicate id {oid!r}")
    seen.add(oid)
    kind = r.text(m, "kind", path, KINDS)
    pipeline = r.text(m, "pipeline", path)
    if pipeline not in bset.pipelines:
        raise r.fail(f"{path}.pipeline", f"unknown pipeline {pipeline!r}")
    node = r.text(m, "node", path)
    if node not in bset.nodes:
        raise r.fail(f"{path}.node", f"unknown node {node!r}")
    measured_raw = r.map(m.get("measured") or {}, f"{path}.measured")
    measured = {k: r.req(measured_raw, k, f"{path}.measured", positive=True) for k in measured_raw}
    ranges = _ranges(r, m.get("measured_range"), f"{path}.measured_range")
    if not measured and not ranges:
        raise r.fail(f"{path}.measured", "at least one measured value (or a measured_range) is required")
    src = m.get("source")
    if not isinstance(src, dict) or "seed" not in src:
        raise r.fail(f"{path}.source", "required: {seed, where, page?}")
    storage = ""
    if kind in ("per_genome", "batch"):
        storage = r.text(m, "storage", path)
        if storage not in bset.storages:
            raise r.fail(f"{path}.storage", f"unknown storage {storage!r}")
    conc: str | float = 1.0
    if kind == "per_genome":
        c = m.get("concurrency", 1.0)
        conc = c if isinstance(c, str) else r.req(m, "concurrency", path, positive=True)
        if isinstance(conc, str) and conc.removeprefix("extras.") not in bset.extras:
            raise r.fail(f"{path}.concurrency", f"unknown extras entry {conc!r}")
    stage, work, threads = "", "", 1
    if kind == "job_hours":
        stage = r.text(m, "stage", path)
        try:
            bset.pipelines[pipeline].stage(stage)
        except KeyError as exc:
            raise r.fail(f"{path}.stage", str(exc.args[0])) from None
        work = r.text(m, "work", path)
        if work.removeprefix("extras.") not in bset.extras:
            raise r.fail(f"{path}.work", f"unknown extras entry {work!r}")
        threads = r.whole(m, "threads", path)
    nodes = spn = 0
    if kind == "batch":
        nodes, spn = r.whole(m, "nodes", path), r.whole(m, "samples_per_node", path)
    return Observation(
        id=oid, kind=kind, pipeline=pipeline, node=node, measured=measured, source=dict(src),
        storage=storage, concurrency=conc, stage=stage, threads=threads, work=work, nodes=nodes,
        samples_per_node=spn, rel_sd=r.req(m, "rel_sd", path, default=0.05, positive=True),
        use=bool(m.get("use", True)), note=str(m.get("note", "")), ranges=ranges,
    )


def _ranges(r: _R, raw: Any, path: str) -> dict[str, tuple[float, float]]:
    """``measured_range: {run_hours: [11, 13]}``: each a [low, high] pair, 0 < low <= high."""
    if raw is None:
        return {}
    out: dict[str, tuple[float, float]] = {}
    for key, pair in r.map(raw, path).items():
        where = f"{path}.{key}"
        if not isinstance(pair, list) or len(pair) != 2:
            raise r.fail(where, f"expected [low, high], got {pair!r}")
        lo = r.req({"low": pair[0]}, "low", where, positive=True)
        hi = r.req({"high": pair[1]}, "high", where, positive=True)
        if lo > hi:
            raise r.fail(where, f"low {lo:g} is above high {hi:g}")
        out[str(key)] = (lo, hi)
    return out


def load_benchmarks(path: str | Path = DEFAULT_BENCHMARKS) -> BenchmarkSet:
    return benchmarks_from_dict(read_yaml(path), str(path))
