"""Hardware catalog: node types, storage systems and pipeline benchmarks (pure core, no Django).

Units are in the field names: ``clock_ghz``, ``memory_gb``, ``price_usd``, ``power_w``,
``usable_tb`` (decimal TB, 10**12 bytes), ``throughput_gbps`` (GB/s, decimal).

Benchmark hours (the Minerva paper's convention, seed 000 section 6):
``cpu_hours_per_sample`` is consumed CPU time per genome summed over all pipeline jobs;
``wall_core_hours_per_sample`` is the core-hours the jobs held their cores ("blocked" hours,
the paper's "wall hours"): CPU efficiency = cpu_hours / wall_core_hours.
Batch benchmarks (Dell EMC, seed 001) instead give the run time of a batch of
``samples`` genomes run ``samples_per_node`` to a node: genomes/day = 24 / run time x samples.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from planner.hardware import limits
from planner.web.textfiles import yaml_load

STORAGE_KINDS = ("disk", "flash", "hybrid", "archive")
DEFAULT_FULLNESS_LIMIT = 0.80  # GPFS degrades above 80 % full (seed 000, section 7.2)


class CatalogError(ValueError):
    """A catalog file is malformed; the message names the offending entry and field."""


@dataclass(frozen=True, slots=True)
class NodeType:
    name: str
    cpu_model: str
    sockets: int
    cores_per_node: int
    base_clock_ghz: float
    all_core_clock_ghz: float
    arch_factor: float  # work per core per GHz relative to the reference architecture (1.0)
    memory_gb: float
    local_flash_tb: float
    gpus: int
    price_usd: float
    power_w: float  # typical draw at load
    rack_units: float
    support_pct_per_year: float  # yearly support as % of price
    lifetime_years: int
    first_year: int  # first year it can be bought
    flops_per_cycle_per_core: float  # double precision, for peak TF
    last_year: int | None = None  # last year it can be bought (end of sale); None: no limit
    source: str = ""
    assumptions: str = ""
    price_source: str = ""  # where price_usd comes from (vendor list, condo page, procurement, estimate)
    price_date: str = ""  # when that price held, e.g. "2013-09"

    @property
    def peak_gflops(self) -> float:
        return self.cores_per_node * self.base_clock_ghz * self.flops_per_cycle_per_core

    @property
    def core_ghz(self) -> float:
        """Clock x architecture: the work rate of one core relative to a 1 GHz reference core."""
        return self.base_clock_ghz * self.arch_factor


@dataclass(frozen=True, slots=True)
class StorageSystem:
    name: str
    kind: str  # one of STORAGE_KINDS
    raw_tb: float  # per unit
    usable_tb: float  # per unit, after RAID / erasure coding, before the fullness limit
    price_usd: float  # per unit
    power_w: float  # per unit
    throughput_gbps: float  # per unit; aggregate grows linearly with units
    metadata_iops: float  # per unit
    fullness_limit: float = DEFAULT_FULLNESS_LIMIT
    cpu_efficiency: float | None = None  # CPU h / wall core-h of IO-bound pipelines on it
    ceiling_concurrent_samples: float | None = None  # per unit; beyond it throughput degrades
    ceiling_genomes_per_day: float | None = None  # per unit
    tested_max_concurrent_samples: float | None = None  # ran this many without saturating
    support_pct_per_year: float = 8.0
    lifetime_years: int = 5
    first_year: int = 2010
    last_year: int | None = None  # end of sale; None: no limit
    source: str = ""
    assumptions: str = ""
    price_source: str = ""  # where price_usd comes from
    price_date: str = ""  # when that price held, e.g. "2013-09"


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One measured pipeline run; ``None`` where the source does not give the number."""

    pipeline: str
    sample_type: str
    node_type: str
    storage_system: str
    source: str
    samples: int = 1
    nodes: int | None = None
    samples_per_node: int | None = None
    cpu_hours_per_sample: float | None = None
    wall_core_hours_per_sample: float | None = None
    wall_hours_per_batch: float | None = None  # run time of the whole batch, hours
    genomes_per_day: float | None = None  # measured
    saturated: bool = False  # the storage was past its ceiling in this run
    note: str = ""

    @property
    def cpu_efficiency(self) -> float | None:
        if self.cpu_hours_per_sample and self.wall_core_hours_per_sample:
            return self.cpu_hours_per_sample / self.wall_core_hours_per_sample
        return None

    @property
    def batch_hours(self) -> float | None:
        """Batch run time: as measured, else derived from genomes/day = 24 / T x samples."""
        if self.wall_hours_per_batch:
            return self.wall_hours_per_batch
        if self.genomes_per_day:
            return 24.0 * self.samples / self.genomes_per_day
        return None


@dataclass(slots=True)
class Catalog:
    node_types: dict[str, NodeType] = field(default_factory=dict)
    storage_systems: dict[str, StorageSystem] = field(default_factory=dict)
    benchmarks: list[Benchmark] = field(default_factory=list)
    source_path: str = ""
    performance_path: str = ""  # benchmark file of the performance model ("": the default one)
    performance_scale: float = 1.0  # multiplies the model's per-genome work and I/O (sensitivity studies)

    def node(self, name: str) -> NodeType:
        try:
            return self.node_types[name]
        except KeyError:
            raise KeyError(f"unknown node type {name!r}") from None

    def storage(self, name: str) -> StorageSystem:
        try:
            return self.storage_systems[name]
        except KeyError:
            raise KeyError(f"unknown storage system {name!r}") from None

    def pipelines(self) -> list[str]:
        return sorted({b.pipeline for b in self.benchmarks})

    def collapse_exponent(self, storage_name: str) -> float | None:
        """Exponent a of genomes/day = g(C) x (C / n)^a beyond the ceiling C, fitted to saturated runs.

        H600: 156 samples -> 252/day, 192 -> 147/day gives a = ln(252/147) / ln(192/156) = 2.60.
        """
        st = self.storage(storage_name)
        if not st.ceiling_concurrent_samples:
            return None
        exps: list[float] = []
        for sat in self.benchmarks:
            if sat.storage_system != storage_name or not sat.saturated or not sat.genomes_per_day:
                continue
            ref = [
                b for b in self.benchmarks
                if b.storage_system == storage_name and not b.saturated and b.genomes_per_day
                and b.pipeline == sat.pipeline and b.samples_per_node == sat.samples_per_node
                and b.samples <= st.ceiling_concurrent_samples
            ]
            if not ref:
                continue
            best = max(ref, key=lambda b: b.samples)
            g_ceiling = (best.genomes_per_day or 0.0) * st.ceiling_concurrent_samples / best.samples
            if sat.samples > st.ceiling_concurrent_samples and sat.genomes_per_day < g_ceiling:
                exps.append(
                    math.log(g_ceiling / sat.genomes_per_day)
                    / math.log(sat.samples / st.ceiling_concurrent_samples)
                )
        return sum(exps) / len(exps) if exps else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_types": [asdict(n) for n in self.node_types.values()],
            "storage_systems": [asdict(s) for s in self.storage_systems.values()],
            "benchmarks": [asdict(b) for b in self.benchmarks],
        }


def _build(cls: type, raw: Any, where: str) -> Any:
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: expected a mapping, got {type(raw).__name__}")
    names = set(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    unknown = sorted(set(raw) - names)
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(unknown)}")
    missing = [f.name for f in fields(cls) if f.name not in raw
               and f.default is MISSING and f.default_factory is MISSING]
    if missing:  # before: "NodeType.__init__() missing 5 required positional arguments: ..."
        raise CatalogError(f"{where}: missing field(s) {', '.join(missing)}")
    try:
        return cls(**raw)
    except TypeError as exc:
        raise CatalogError(f"{where}: {exc}") from None


NODE_POSITIVE = ("sockets", "cores_per_node", "base_clock_ghz", "all_core_clock_ghz", "arch_factor", "memory_gb",
                 "price_usd", "lifetime_years", "flops_per_cycle_per_core")
STORAGE_POSITIVE = ("raw_tb", "usable_tb", "price_usd", "throughput_gbps", "metadata_iops", "lifetime_years")
_NONNEGATIVE = ("power_w", "rack_units", "support_pct_per_year", "local_flash_tb", "gpus")
# A benchmark's counts and measurements, when given: a negative CPU hours per genome was stored and used.
BENCHMARK_POSITIVE = ("samples", "nodes", "samples_per_node", "cpu_hours_per_sample", "wall_core_hours_per_sample",
                      "wall_hours_per_batch", "genomes_per_day")


def number_problems(values: dict[str, Any], positive: tuple[str, ...]) -> dict[str, str]:
    """The catalog's rule for an item's numbers, by field: prices, counts, clocks and capacities must be > 0,
    power, rack units, support, flash and GPUs >= 0 (a negative price would make the optimiser buy without
    end), each within what a real machine can have, the last year sold not before the first and usable
    capacity not above raw (:mod:`planner.hardware.limits`). The catalog file, the CSV import, the edit form
    and the API all apply it; ``positive`` (NODE_POSITIVE or STORAGE_POSITIVE) says which kind of item."""
    problems = {}
    for name in positive + _NONNEGATIVE:
        if name not in values or values[name] is None:
            continue
        val = values[name]
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            problems[name] = f"expected a number, got {val!r}"
        elif not math.isfinite(val):  # YAML's .inf / .nan, a CSV's "inf": the optimiser cannot price them
            problems[name] = f"expected a finite number, got {val!r}"
        elif name in positive and val <= 0:
            problems[name] = f"must be > 0, got {val!r}"
        elif val < 0:
            problems[name] = f"must be >= 0, got {val!r}"
    fullness = values.get("fullness_limit") if positive == STORAGE_POSITIVE else None
    if fullness is not None and "fullness_limit" not in problems and (
            isinstance(fullness, bool) or not isinstance(fullness, (int, float)) or not 0 < fullness <= 1):
        # the catalog file's rule and the table's CHECK constraint (an API PUT of 0 answered 500)
        problems["fullness_limit"] = f"must be in (0, 1] (a share of usable capacity), got {fullness!r}"
    ranges, labels = (limits.NODE_RANGES, limits.NODE_LABELS) if positive == NODE_POSITIVE else (
        (limits.STORAGE_RANGES, limits.STORAGE_LABELS) if positive == STORAGE_POSITIVE else ({}, {}))
    checked = {k: v for k, v in values.items() if k not in problems}
    for name, problem in limits.range_problems(checked, ranges, labels).items():
        problems.setdefault(name, problem)
    return problems


def _check_numbers(obj: Any, where: str, positive: tuple[str, ...]) -> None:
    """Negative, zero or impossible prices, counts and capacities are errors naming the field path."""
    for name, problem in number_problems(asdict(obj), positive).items():
        raise CatalogError(f"{where}.{name}: {problem}")


def _check_unique(name: str, before: list[str], where: str, noun: str) -> None:
    """A second item of the same name silently replaced the first (its cores, its price): refused."""
    if name in before:
        raise CatalogError(f"{where}.name: duplicate {noun} {name!r} (also {where.split('[')[0]}"
                           f"[{before.index(name)}])")


def catalog_from_dict(data: dict[str, Any], source_path: str = "") -> Catalog:
    cat = Catalog(source_path=source_path)
    perf = data.get("performance_model")
    if perf is not None:
        if not isinstance(perf, str):
            raise CatalogError(f"performance_model: expected a path to a benchmark file, got {perf!r}")
        base = Path(source_path).parent if source_path and source_path != "database" else Path.cwd()
        cat.performance_path = str((base / perf).resolve())
    for i, raw in enumerate(data.get("node_types") or []):
        node = _build(NodeType, raw, f"node_types[{i}]")
        _check_numbers(node, f"node_types[{i}]", NODE_POSITIVE)
        _check_unique(node.name, [n.name for n in cat.node_types.values()], f"node_types[{i}]", "node type")
        cat.node_types[node.name] = node
    for i, raw in enumerate(data.get("storage_systems") or []):
        st = _build(StorageSystem, raw, f"storage_systems[{i}]")
        _check_numbers(st, f"storage_systems[{i}]", STORAGE_POSITIVE)
        _check_unique(st.name, [x.name for x in cat.storage_systems.values()], f"storage_systems[{i}]",
                      "storage system")
        if st.kind not in STORAGE_KINDS:
            raise CatalogError(f"storage_systems[{i}].kind: {st.kind!r} not in {STORAGE_KINDS}")
        if not 0 < st.fullness_limit <= 1:
            raise CatalogError(f"storage_systems[{i}].fullness_limit: must be in (0, 1]")
        cat.storage_systems[st.name] = st
    seen: dict[tuple[str, str, str, int], int] = {}  # a benchmark's key -> its index
    for i, raw in enumerate(data.get("benchmarks") or []):
        bench = _build(Benchmark, raw, f"benchmarks[{i}]")
        _check_numbers(bench, f"benchmarks[{i}]", BENCHMARK_POSITIVE)
        key = (bench.pipeline, bench.node_type, bench.storage_system, bench.samples)
        if key in seen:  # the database keeps one row per key: the second silently replaced the first
            raise CatalogError(f"benchmarks[{i}].pipeline: duplicate benchmark {bench.pipeline!r} on "
                               f"{bench.node_type} with {bench.storage_system}, {bench.samples} sample"
                               f"{'' if bench.samples == 1 else 's'} (also benchmarks[{seen[key]}])")
        seen[key] = i
        if bench.node_type not in cat.node_types:
            raise CatalogError(f"benchmarks[{i}].node_type: unknown node type {bench.node_type!r}")
        if bench.storage_system not in cat.storage_systems:
            raise CatalogError(
                f"benchmarks[{i}].storage_system: unknown storage system {bench.storage_system!r}"
            )
        cat.benchmarks.append(bench)
    return cat


def load_catalog(path: str | Path) -> Catalog:
    """Load a catalog YAML (keys ``node_types``, ``storage_systems``, ``benchmarks``)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
        text = raw.decode("utf-8-sig")
        data = yaml_load(text)  # a key given twice is refused, not the last value kept
    except OSError as exc:
        raise CatalogError(f"{p}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise CatalogError(f"{p} line {line}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark else str(p)
        raise CatalogError(f"{where}: YAML syntax error: {exc.problem or exc.context}") from None
    if data is None:  # an empty file loaded as nothing and reported success
        raise CatalogError(f"{p} line 1: the file is empty: expected node_types, storage_systems and benchmarks")
    if not isinstance(data, dict):
        raise CatalogError(f"{p}: expected a mapping at the top level")
    try:
        return catalog_from_dict(data, source_path=str(p))
    except CatalogError as exc:
        said = str(exc)
        at = _line_of(text, said.split(":", 1)[0])
        raise CatalogError(f"{p} line {at}: {said}" if at else f"{p}: {said}") from None


def _line_of(text: str, where: str) -> int | None:
    """The line of a field path ('node_types[4].price_usd') in a YAML text, or of its nearest enclosing field
    (a missing field is reported where its item starts); None when the path is not found."""
    steps = [int(part) if part.isdigit() else part
             for part in re.findall(r"[^.\[\]]+", where)]
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for step in steps:
        if isinstance(node, yaml.MappingNode):
            found = [v for k, v in node.value if getattr(k, "value", None) == step]
            key = [k for k, _ in node.value if getattr(k, "value", None) == step]
            if not found:
                break
            line, node = key[0].start_mark.line + 1, found[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            break
    return line


_CSV_NUMERIC = {
    "samples": int, "nodes": int, "samples_per_node": int, "cpu_hours_per_sample": float,
    "wall_core_hours_per_sample": float, "wall_hours_per_batch": float, "genomes_per_day": float,
}


def load_benchmarks_csv(path: str | Path, catalog: Catalog) -> list[Benchmark]:
    """Read extra benchmark rows (header = Benchmark field names) and append them to ``catalog``."""
    added: list[Benchmark] = []
    with Path(path).open(encoding="utf-8", newline="") as fh:
        for i, row in enumerate(csv.DictReader(fh)):
            raw: dict[str, Any] = {}
            for key, val in row.items():
                if val is None or val == "":
                    continue
                if key in _CSV_NUMERIC:
                    raw[key] = _CSV_NUMERIC[key](val)
                elif key == "saturated":
                    raw[key] = val.strip().lower() in ("1", "true", "yes")
                else:
                    raw[key] = val
            added.append(_build(Benchmark, raw, f"row {i + 2}"))
    for i, b in enumerate(added):
        if b.node_type not in catalog.node_types or b.storage_system not in catalog.storage_systems:
            raise CatalogError(f"row {i + 2}: unknown node type or storage system")
    catalog.benchmarks.extend(added)
    return added
