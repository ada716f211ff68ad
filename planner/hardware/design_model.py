"""The calibrated performance model as designs see it: catalog items -> model inputs -> rates (pure core).

:class:`PipelineModel` maps the catalog's node types and storage systems onto the performance model
(planner.hardware.performance) with the parameters fitted to the benchmarks
(planner.hardware.calibration), and serves the per-option rates designs and the optimiser use
(planner.hardware.rates). Rules, in the order they apply:

- Node types: cores, clock and memory from the catalog (one clock per node type). The pipeline's
  arch factor is the fitted one where the node type was benchmarked (an Interlagos core does 0.57
  of an Ivy Bridge core's GATK work per GHz), the catalog's otherwise.
- Storage, per catalog unit: a benchmarked system's fitted rates divided by the catalog units it
  was made of (``units`` in the benchmark file). Others: the catalog's metadata IOPS x the mean
  fitted/catalog ratio of the systems of the same kind this pipeline was benchmarked on. Flash systems hold working sets
  on their usable TB (less the days of ingest kept there); hybrid systems on their fitted cache;
  disk systems hold none (their genomes run at disk speed, which the utilisation levels price).
- Storage utilisation levels: 10 %, 40 % and 70 % busy, capped at the design's rho_max (default 0.7).
  A design runs its pipeline tier at one of them in a year; lower levels mean shorter turnaround
  and fewer core-hours per genome but more storage per genome/day.

The fit is made once per benchmark file (and re-made when the file changes), so the first
evaluation in a process pays ~0.3 s and later ones reuse it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.hardware.calibration import Fit, LooTable, fit, leave_one_out
from planner.hardware.perf_inputs import DEFAULT_BENCHMARKS, BenchmarkSet, load_benchmarks
from planner.hardware.performance import Node, Pipeline, Storage
from planner.hardware.rates import OptionRate, option_rate, tier_genomes_per_day_per_unit

DEFAULT_RHO_MAX = 0.7
BASE_LEVELS = (0.1, 0.4, 0.7)
_FITS: dict[tuple[str, float], Fit] = {}
_LOO: dict[tuple[str, float], LooTable] = {}


def fitted_benchmarks(path: str | Path = DEFAULT_BENCHMARKS) -> Fit:
    """The calibration of ``path``, cached per file and modification time."""
    p = Path(path)
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _FITS:
        _FITS.clear()
        _FITS[key] = fit(load_benchmarks(p))
    return _FITS[key]


def fitted_leave_one_out(path: str | Path = DEFAULT_BENCHMARKS) -> LooTable:
    """The leave-one-out table of ``path`` (one refit per used observation, ~1.5 s CPU), cached like the fit."""
    p = Path(path)
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _LOO:
        _LOO.clear()
        _LOO[key] = leave_one_out(load_benchmarks(p), fitted_benchmarks(p))
    return _LOO[key]


def remember_calibration(path: str | Path, fitted: Fit, loo: LooTable | None = None) -> None:
    """Seed this process's cache with a fit (and leave-one-out) of ``path`` made elsewhere: the Django shell
    shares them between processes through a file (planner.hardware.fit_cache)."""
    p = Path(path)
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _FITS:
        _FITS.clear()
        _FITS[key] = fitted
    if loo is not None and key not in _LOO:
        _LOO.clear()
        _LOO[key] = loo


def utilisation_levels(rho_max: float = DEFAULT_RHO_MAX) -> list[float]:
    """The storage utilisation levels a design may run its pipeline tier at: BASE_LEVELS up to rho_max,
    and rho_max itself. Three levels keep the optimiser fast (each is one binary per year)."""
    return sorted({lv for lv in BASE_LEVELS if lv < rho_max - 1e-9} | {round(rho_max, 6)})


@dataclass(frozen=True, slots=True)
class TierTerms:
    """One storage system as the pipeline tier, per catalog unit."""

    name: str
    kind: str
    unit: Storage
    working_set_tb_per_unit: float | None  # fast capacity for working sets; None: no bound (disk)
    holds_ingest: bool  # a flash tier also keeps the days of ingest (flash_days)
    rule: str

    def genomes_per_day_per_unit(self, pipeline: Pipeline, rho: float) -> float:
        return tier_genomes_per_day_per_unit(pipeline, self.unit, rho)


REFERENCE_CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog.yaml"
_REFERENCE: dict[str, Any] = {}


def _reference_storage(name: str) -> Any:
    """A benchmarked storage system as the reference catalog rates it (the catalog the benchmark file's system
    names come from). A site's own catalog lacks these systems; without their rating the fitted/catalog ratio
    of a kind fell back to 1, so the same scenario planned a flash system at 1/0.29 = 3.4x the operations a
    catalog holding flash-gss gives it (session 25)."""
    if "catalog" not in _REFERENCE:
        from planner.hardware.catalog import CatalogError, load_catalog

        try:
            _REFERENCE["catalog"] = load_catalog(REFERENCE_CATALOG)
        except (CatalogError, OSError):
            _REFERENCE["catalog"] = None
    cat = _REFERENCE["catalog"]
    return cat.storage_systems.get(name) if cat is not None else None


class PipelineModel:
    """Per-option rates of one catalog pipeline, with the fitted parameters."""

    def __init__(self, catalog: Any, pipeline_name: str, calibration: Fit | None = None) -> None:
        self.catalog = catalog
        self.calibration = calibration or fitted_benchmarks(getattr(catalog, "performance_path", "")
                                                            or DEFAULT_BENCHMARKS)
        bset: BenchmarkSet = self.calibration.fitted
        self.fitted = bset
        pid = bset.aliases.get(pipeline_name, pipeline_name)
        if pid not in bset.pipelines:
            raise KeyError(f"no performance model for pipeline {pipeline_name!r}")
        self.pipeline_name = pipeline_name
        self.pipeline: Pipeline = bset.pipelines[pid]
        scale = float(getattr(catalog, "performance_scale", 1.0) or 1.0)
        if scale != 1.0:  # a sensitivity study: every genome needs scale x the work and I/O
            self.pipeline = replace(self.pipeline, work_ghz_core_hours=self.pipeline.work_ghz_core_hours * scale,
                                    io_mops=self.pipeline.io_mops * scale)
        self._nodes: dict[str, Node] = {}
        self._tiers: dict[str, TierTerms] = {}
        self._options: dict[tuple[str, float, float], OptionRate] = {}
        self._kind_ratio = self._kind_ratios()

    @staticmethod
    def supports(catalog: Any, pipeline_name: str) -> bool:
        try:
            cal = fitted_benchmarks(getattr(catalog, "performance_path", "") or DEFAULT_BENCHMARKS)
        except (OSError, ValueError):
            return False
        b = cal.fitted
        return b.aliases.get(pipeline_name, pipeline_name) in b.pipelines

    @staticmethod
    def names(catalog: Any) -> list[str]:
        """The catalog pipeline names the performance model serves (its aliases)."""
        try:
            cal = fitted_benchmarks(getattr(catalog, "performance_path", "") or DEFAULT_BENCHMARKS)
        except (OSError, ValueError):
            return []
        return sorted(cal.fitted.aliases)

    # ---- catalog -> model ------------------------------------------------------------------------
    def node(self, name: str) -> Node:
        if name not in self._nodes:
            item = self.catalog.node(name)
            fitted = self.fitted.nodes.get(name)
            arch = fitted.arch_factor if fitted is not None else float(item.arch_factor)
            self._nodes[name] = Node(name, int(item.cores_per_node), float(item.base_clock_ghz), arch,
                                     float(item.memory_gb))
        return self._nodes[name]

    def arch_rule(self, name: str) -> str:
        fitted = self.fitted.nodes.get(name)
        if fitted is None:
            return f"catalog arch factor {float(self.catalog.node(name).arch_factor):g} (no benchmark)"
        if any(p.path == f"nodes.{name}.arch_factor" for p in self.calibration.parameters):
            p = self.calibration.parameter(f"nodes.{name}.arch_factor")
            return f"fitted arch factor {p.value:.3f} ({p.low:.3f}-{p.high:.3f})"
        return f"arch factor {fitted.arch_factor:g} (benchmark reference)"

    def _kind_ratios(self) -> dict[str, float]:
        """Fitted / catalog operations rate of the systems this pipeline was benchmarked on, by kind."""
        pid = self.fitted.aliases.get(self.pipeline_name, self.pipeline_name)
        benched = {o.storage for o in self.fitted.observations if o.pipeline == pid and o.storage}
        logs: dict[str, list[float]] = {}
        for name, st in self.fitted.storages.items():
            if name not in benched:
                continue
            item = self.catalog.storage_systems.get(name) or _reference_storage(name)
            if item is None:
                continue
            per_unit = (st.fast_kiops if st.fast_tb is None or (st.fast_tb or 0) > 0 else st.slow_kiops)
            per_unit /= self.fitted.units.get(name, 1.0)
            if item.metadata_iops > 0 and per_unit > 0:
                logs.setdefault(item.kind, []).append(math.log(per_unit * 1000.0 / item.metadata_iops))
        return {k: math.exp(sum(v) / len(v)) for k, v in logs.items()}

    def tier(self, name: str) -> TierTerms:
        if name in self._tiers:
            return self._tiers[name]
        item = self.catalog.storage(name)
        fitted = self.fitted.storages.get(name)
        if fitted is not None:
            u = self.fitted.units.get(name, 1.0)
            unit = Storage(name, fitted.slow_kiops / u, fitted.fast_kiops / u,
                           None if fitted.fast_tb is None else fitted.fast_tb / u, fitted.hit_exponent)
            rule = f"fitted to benchmarks on {name} (per catalog unit: 1/{u:g} of the benchmarked system)"
        else:
            ratio = self._kind_ratio.get(item.kind, 1.0)
            kiops = float(item.metadata_iops) / 1000.0 * ratio
            fast = float(item.usable_tb) if item.kind == "flash" else 0.0
            unit = Storage(name, kiops, kiops if item.kind == "flash" else 0.0, fast)
            rule = (f"catalog metadata IOPS {float(item.metadata_iops):,.0f} x {ratio:.2f} "
                    f"(fitted/catalog of the {item.kind} systems this pipeline was benchmarked on)"
                    if item.kind in self._kind_ratio else
                    f"catalog metadata IOPS {float(item.metadata_iops):,.0f} as rated (no {item.kind} system "
                    f"was benchmarked with this pipeline)")
        if item.kind == "flash":
            ws_tb: float | None = float(item.usable_tb)
        elif unit.fast_tb is not None and unit.fast_tb > 0 and unit.fast_kiops > 0:
            ws_tb = unit.fast_tb
        elif unit.fast_tb is None:
            ws_tb = None
        else:
            ws_tb = None
        terms = TierTerms(name, item.kind, unit, ws_tb, item.kind == "flash", rule)
        self._tiers[name] = terms
        return terms

    # ---- rates -----------------------------------------------------------------------------------
    def option(self, node_name: str, rho: float, core_share: float) -> OptionRate:
        key = (node_name, rho, core_share)
        if key not in self._options:
            self._options[key] = option_rate(self.pipeline, self.node(node_name), "", rho, core_share)
        return self._options[key]

    def tier_genomes_per_day_per_unit(self, name: str, rho: float) -> float:
        return self.tier(name).genomes_per_day_per_unit(self.pipeline, rho)

    @property
    def working_set_gb(self) -> float:
        return self.pipeline.working_set_gb
