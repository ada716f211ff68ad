"""Per-genome cost model: CPU hours, wall core-hours and genomes/day, each with the rule used.

Pure core. Every derived number is a :class:`Derived` carrying a human-readable ``rule`` so a
planner can see whether it was measured ("benchmark: ...") or derived ("scaled from ...").

Conventions (seed 000, section 6):
- ``cpu_hours`` per genome: CPU time consumed, summed over the pipeline's jobs.
- ``wall_core_hours`` per genome: core-hours the jobs held their cores (the paper's "wall hours").
- CPU efficiency of a storage system = cpu_hours / wall_core_hours (0.46 on spinning disk,
  0.84 on flash + GSS): IO-starved jobs hold cores without using them.
- Between node types CPU hours scale linearly with clock x architecture factor (the paper's
  "strict linear clock frequency comparison"), using base clocks.
- Batch throughput (seed 001): genomes/day = 24 / batch run time (h) x samples in the batch.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from forecasts.units import HOURS_PER_DAY
from planner.hardware.catalog import Benchmark, Catalog, StorageSystem


class NoBenchmarkError(LookupError):
    """No benchmark of the pipeline exists to measure or scale from."""


@dataclass(frozen=True, slots=True)
class Derived:
    value: float
    unit: str
    rule: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _cite(b: Benchmark) -> str:
    return f"benchmark: {b.pipeline} on {b.node_type}/{b.storage_system} ({b.source})"


def _bench_wall(b: Benchmark, catalog: Catalog) -> float | None:
    """Wall core-hours per sample of a benchmark: measured, or batch run time x cores / samples per node."""
    if b.wall_core_hours_per_sample:
        return b.wall_core_hours_per_sample
    if b.batch_hours and b.samples_per_node and not b.saturated:
        return b.batch_hours * catalog.node(b.node_type).cores_per_node / b.samples_per_node
    return None


class CostModel:
    """Cached per-genome lookups over one catalog (a design evaluation calls these many times)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._cache: dict[tuple[str, ...], Derived] = {}

    # ---- storage -------------------------------------------------------------------------------
    def cpu_efficiency(self, storage_name: str) -> Derived:
        key = ("eff", storage_name)
        if key in self._cache:
            return self._cache[key]
        st = self.catalog.storage(storage_name)
        own = [b for b in self.catalog.benchmarks if b.storage_system == storage_name and b.cpu_efficiency]
        if own:
            val = sum(b.cpu_efficiency or 0.0 for b in own) / len(own)
            rule = f"measured on {storage_name}: mean CPU/wall of {len(own)} benchmark(s) ({own[0].source})"
        elif st.cpu_efficiency:
            val, rule = st.cpu_efficiency, f"catalog value for {storage_name}"
        else:
            val, rule = self._kind_efficiency(st)
        out = Derived(val, "cpu_hours/wall_core_hours", rule)
        self._cache[key] = out
        return out

    def _kind_efficiency(self, st: StorageSystem) -> tuple[float, str]:
        same = [
            b for b in self.catalog.benchmarks
            if b.cpu_efficiency and self.catalog.storage(b.storage_system).kind == st.kind
        ]
        if same:
            val = sum(b.cpu_efficiency or 0.0 for b in same) / len(same)
            names = sorted({b.storage_system for b in same})
            return val, f"{st.kind} storage without own benchmark: efficiency of {', '.join(names)}"
        fallback = {"disk": 0.46, "flash": 0.84, "hybrid": 0.84, "archive": 0.46}[st.kind]
        return fallback, f"default for {st.kind} storage (Kovatch 2015: 0.46 disk, 0.84 flash)"

    # ---- nodes ---------------------------------------------------------------------------------
    def _nearest(self, node_name: str, benches: list[Benchmark]) -> str:
        target = self.catalog.node(node_name)
        cands = sorted({b.node_type for b in benches})

        def key(name: str) -> tuple[float, float, str]:
            n = self.catalog.node(name)
            return (abs(n.first_year - target.first_year), abs(math.log(n.core_ghz / target.core_ghz)), name)

        return min(cands, key=key)

    def _scale(self, src_name: str, dst_name: str) -> tuple[float, str]:
        src, dst = self.catalog.node(src_name), self.catalog.node(dst_name)
        factor = src.core_ghz / dst.core_ghz
        rule = (
            f"scaled from {src_name} by clock {src.base_clock_ghz:g}->{dst.base_clock_ghz:g} GHz"
            f" x arch {float(src.arch_factor)!r}/{float(dst.arch_factor)!r}"
        )
        return factor, rule

    @staticmethod
    def _pick_storage(benches: list[Benchmark], storage: str, kind_of: dict[str, str]) -> Benchmark:
        """Prefer a benchmark on the same storage, then on the same kind, then any."""
        kind = kind_of[storage]

        def key(b: Benchmark) -> tuple[int, str]:
            return (0 if b.storage_system == storage else 1 if kind_of[b.storage_system] == kind else 2,
                    b.storage_system)

        return min(benches, key=key)

    def cpu_hours_per_sample(self, pipeline: str, node_name: str, storage_name: str) -> Derived:
        key = ("cpu", pipeline, node_name, storage_name)
        if key in self._cache:
            return self._cache[key]
        self.catalog.node(node_name)
        kind_of = {s.name: s.kind for s in self.catalog.storage_systems.values()}
        kind_of.setdefault(storage_name, self.catalog.storage(storage_name).kind)
        benches = [b for b in self.catalog.benchmarks if b.pipeline == pipeline and b.cpu_hours_per_sample]
        if not benches:
            raise NoBenchmarkError(f"no CPU-hour benchmark for pipeline {pipeline!r}")
        own = [b for b in benches if b.node_type == node_name]
        if own:
            b = self._pick_storage(own, storage_name, kind_of)
            rule = _cite(b)
            if b.storage_system != storage_name:
                rule += f"; CPU time taken as storage-independent for {storage_name}"
            out = Derived(float(b.cpu_hours_per_sample or 0.0), "cpu_hours", rule)
        else:
            src = self._nearest(node_name, benches)
            b = self._pick_storage([x for x in benches if x.node_type == src], storage_name, kind_of)
            factor, rule = self._scale(src, node_name)
            out = Derived((b.cpu_hours_per_sample or 0.0) * factor, "cpu_hours", f"{rule} ({_cite(b)})")
        self._cache[key] = out
        return out

    def wall_core_hours_per_sample(self, pipeline: str, node_name: str, storage_name: str) -> Derived:
        """Core-hours held per genome: measured, else CPU hours / CPU efficiency of the storage."""
        key = ("wall", pipeline, node_name, storage_name)
        if key in self._cache:
            return self._cache[key]
        benches = [b for b in self.catalog.benchmarks if b.pipeline == pipeline]
        exact = [
            (w, b) for b in benches
            if b.node_type == node_name and b.storage_system == storage_name
            and (w := _bench_wall(b, self.catalog)) is not None
        ]
        if exact:
            w, b = min(exact, key=lambda wb: wb[0])
            out = Derived(w, "wall_core_hours", _cite(b))
        else:
            eff = self.cpu_efficiency(storage_name)
            try:
                cpu = self.cpu_hours_per_sample(pipeline, node_name, storage_name)
                out = Derived(
                    cpu.value / eff.value, "wall_core_hours",
                    f"CPU hours / efficiency {eff.value:.2f} on {storage_name} [{cpu.rule}; {eff.rule}]",
                )
            except NoBenchmarkError:
                out = self._scaled_wall(pipeline, node_name, storage_name, benches)
        self._cache[key] = out
        return out

    def _scaled_wall(self, pipeline: str, node_name: str, storage_name: str,
                     benches: list[Benchmark]) -> Derived:
        walls = [(w, b) for b in benches if (w := _bench_wall(b, self.catalog)) is not None]
        if not walls:
            raise NoBenchmarkError(f"no benchmark for pipeline {pipeline!r}")
        own = [wb for wb in walls if wb[1].node_type == node_name]
        src_name = node_name if own else self._nearest(node_name, [b for _, b in walls])
        pool = [wb for wb in walls if wb[1].node_type == src_name]
        same = [wb for wb in pool if wb[1].storage_system == storage_name] or pool
        w, b = min(same, key=lambda wb: wb[0])
        factor, rule = (1.0, "same node") if src_name == node_name else self._scale(src_name, node_name)
        eff_ratio = 1.0
        if b.storage_system != storage_name:
            eff_ratio = self.cpu_efficiency(b.storage_system).value / self.cpu_efficiency(storage_name).value
            rule += f"; storage {b.storage_system}->{storage_name} by CPU efficiency ratio {eff_ratio:.2f}"
        return Derived(w * factor * eff_ratio, "wall_core_hours", f"{rule} ({_cite(b)})")

    # ---- throughput ----------------------------------------------------------------------------
    def node_genomes_per_day(self, pipeline: str, node_name: str, storage_name: str,
                             utilisation: float = 1.0) -> float:
        """Genomes/day one node sustains: 24 h x cores x utilisation / wall core-hours per genome."""
        wall = self.wall_core_hours_per_sample(pipeline, node_name, storage_name).value
        return HOURS_PER_DAY * self.catalog.node(node_name).cores_per_node * utilisation / wall

    def batch_genomes_per_day(self, pipeline: str, node_name: str, storage_name: str, nodes: int,
                              samples_per_node: int, storage_units: int = 1) -> Derived:
        """Genomes/day of ``nodes`` x ``samples_per_node`` concurrent samples, under the storage ceiling.

        genomes/day = 24 / T x samples, T the batch run time measured at this samples/node (largest
        unsaturated batch not above the request) or derived from wall core-hours. Beyond the storage
        ceiling C (concurrent samples, x units) throughput degrades as g(C) x (C / samples)^a with
        g(C) = 24 / T x C, a fitted to the saturated runs (H600: a = 2.596 reproduces 156 -> 252/day,
        192 -> 147/day). The rule prints every factor, so its numbers give the figure.
        """
        samples = nodes * samples_per_node
        st = self.catalog.storage(storage_name)
        runs = [
            b for b in self.catalog.benchmarks
            if b.pipeline == pipeline and b.node_type == node_name and b.storage_system == storage_name
            and b.samples_per_node == samples_per_node and not b.saturated and b.batch_hours
        ]
        if runs:
            below = [b for b in runs if b.samples <= samples]
            b = max(below, key=lambda x: x.samples) if below else min(runs, key=lambda x: x.samples)
            hours = b.batch_hours or 0.0
            origin = f"run time from {_cite(b)}"
        else:
            wall = self.wall_core_hours_per_sample(pipeline, node_name, storage_name)
            hours = wall.value * samples_per_node / self.catalog.node(node_name).cores_per_node
            origin = f"run time = wall core-h x samples per node / cores [{wall.rule}]"
        # The rule states every factor with the precision that reproduces the figure (hours to 3
        # decimals, the exponent to 3): past the ceiling the run time applies to the C samples the
        # storage serves well, not to all of them, and the fall multiplies that.
        gpd = HOURS_PER_DAY / hours * samples
        formula = f"24 / {hours:.3f} h x {samples} samples"
        ceiling = (st.ceiling_concurrent_samples or 0.0) * storage_units
        if ceiling and samples > ceiling:
            gpd = HOURS_PER_DAY / hours * ceiling
            formula = (f"24 / {hours:.3f} h x {ceiling:g} samples (the {storage_name} ceiling of {ceiling:g} "
                       f"concurrent samples; {samples} asked)")
            alpha = self.catalog.collapse_exponent(storage_name)
            if alpha is None:
                formula += ": capped at the ceiling"
            else:
                gpd *= (ceiling / samples) ** alpha
                formula += f" x ({ceiling:g}/{samples})^{alpha:.3f} (past the ceiling, fitted to saturated runs)"
        rule = f"{formula} = {gpd:,.1f} genomes/day"
        if st.ceiling_genomes_per_day and gpd > st.ceiling_genomes_per_day * storage_units:
            gpd = st.ceiling_genomes_per_day * storage_units
            rule += f"; capped at {gpd:,.1f} genomes/day by {storage_name}"
        if samples:
            rule += f" (a {HOURS_PER_DAY * samples / gpd:.2f} h run for {samples} samples)"
        rule += f"; {origin}"
        return Derived(gpd, "genomes/day", rule)


def speedup(before_hours: float, after_hours: float) -> float:
    """How many times faster: before / after (2,702 / 562 = 4.8)."""
    return before_hours / after_hours


def cpu_hours_per_sample(catalog: Catalog, pipeline: str, node: str, storage: str) -> Derived:
    return CostModel(catalog).cpu_hours_per_sample(pipeline, node, storage)


def wall_core_hours_per_sample(catalog: Catalog, pipeline: str, node: str, storage: str) -> Derived:
    return CostModel(catalog).wall_core_hours_per_sample(pipeline, node, storage)


def batch_genomes_per_day(catalog: Catalog, pipeline: str, node: str, storage: str, nodes: int,
                          samples_per_node: int, storage_units: int = 1) -> Derived:
    return CostModel(catalog).batch_genomes_per_day(
        pipeline, node, storage, nodes, samples_per_node, storage_units
    )
