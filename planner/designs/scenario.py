"""Scenario files (YAML or JSON): catalog reference, demand, constraints, costs -> Design (pure core).

See docs/scenario-format.md. Validation collects every problem, each naming its field path,
e.g. ``purchases[2].node_type: unknown node type 'xeon'``, and raises :class:`ScenarioError`.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from planner.designs.capacity import (
    DEFAULT_PIPELINE,
    CostParams,
    Design,
    DesignEvaluation,
    InventoryItem,
    PriceIndex,
    Purchase,
    YearDemand,
    evaluate_design,
)
from planner.designs.prices import PriceResolver, PriceSource, parse_price_trends, parse_prices
from planner.designs.uncertainty import Uncertainty, parse_uncertainty
from planner.hardware.catalog import Catalog, CatalogError, load_catalog
from planner.hardware.design_model import DEFAULT_RHO_MAX, PipelineModel
from planner.web.textfiles import UploadTextError, upload_text, yaml_load
from planner.web.yaml_lines import with_lines

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CATALOG = REPO_ROOT / "fixtures" / "catalog.yaml"

_TOP_KEYS = {
    "name", "description", "catalog", "pipeline", "horizon", "reference_core", "existing", "purchases",
    "demand", "constraints", "costs", "optimize", "demand_band", "prices", "price_trends", "uncertainty",
}
_DEMAND_KEYS = {"year", "core_hours", "storage_tb", "genomes_per_day", "ingest_tb_per_day", "files",
                "bandwidth_gbps", "note"}
_CONSTRAINT_KEYS = {"utilisation_target", "fullness_limit", "flash_days", "flash_system", "budgets_usd",
                    "genomics_share", "metadata_scan_hours", "metadata_ops_per_file", "turnaround_hours",
                    "storage_utilisation_max", "off"}
# demand fields each year must give, unless listed under constraints.off (then that check is off)
REQUIRED_DEMAND = ("core_hours", "storage_tb", "genomes_per_day", "ingest_tb_per_day", "files")
_COST_KEYS = {"power_usd_per_kwh", "pue", "support_pct_per_year", "discount_rate",
              "maintenance_days_per_year"}
_OPT_KEYS = {"node_types", "storage_systems", "max_count_per_year", "time_limit_s", "mip_rel_gap",
             "keep_purchases", "service_level"}

# Upper bounds on what a scenario may say (docs/scenario-format.md). Far above any real centre, they stop a typo
# (an extra run of zeros) from evaluating into a twenty-digit bill or a solver model it cannot hold.
MAX_COUNT = 100_000  # nodes, or storage units, in one purchase or inventory line
MAX_FLASH_TB = 1_000_000  # flash TB bought in one purchase line (1 EB)
MAX_LIFETIME_YEARS = 100
FIRST_YEAR, LAST_YEAR = 1900, 2200  # the horizon's years
MAX_HORIZON_YEARS = 100
DEMAND_MAX = {  # per demand field: (the most, in its unit)
    "core_hours": (1e12, "core-hours a year"), "storage_tb": (1e8, "TB"), "genomes_per_day": (1e6, "genomes a day"),
    "ingest_tb_per_day": (1e6, "TB a day"), "files": (1e15, "files"), "bandwidth_gbps": (1e7, "Gb/s"),
}
MAX_BUDGET_USD = 1e12
MAX_TIME_LIMIT_S = 86_400.0


class ScenarioError(ValueError):
    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


@dataclass(slots=True)
class OptimizeOptions:
    node_types: list[str] | None = None  # candidate node types; None: every one in the catalog
    storage_systems: list[str] | None = None  # candidate storage; None: every non-archive one
    max_count_per_year: int = 5000
    time_limit_s: float = 10.0
    mip_rel_gap: float = 1e-3
    keep_purchases: bool = False  # True: the scenario's purchases are fixed, the optimiser adds to them
    service_level: float | None = None  # e.g. 0.9: hold, jointly, on 90% of the demand paths each year


@dataclass(slots=True)
class Scenario:
    design: Design
    catalog: Catalog
    optimize: OptimizeOptions = field(default_factory=OptimizeOptions)
    description: str = ""
    source_path: str = ""
    # price_trends resolved against forecasts: what was forecast (for the record) and the P10 / P90
    # price indices of the forecast items (for the sensitivity's "prices" bar)
    price_sources: list[PriceSource] = field(default_factory=list)
    price_bounds: tuple[PriceIndex, PriceIndex] | None = None
    uncertainty: Uncertainty | None = None  # where the joint demand paths come from (planner.designs.uncertainty)


class _V:
    """Collects errors with field paths while reading values."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def err(self, path: str, msg: str) -> None:
        self.errors.append(f"{path}: {msg}")

    def num(self, raw: dict[str, Any], key: str, path: str, default: float | None = None, *,
            lo: float | None = None, hi: float | None = None, required: bool = False,
            unit: str = "") -> float | None:
        """``raw[key]`` as a float within [lo, hi]; with ``unit``, a value above ``hi`` is refused as
        'at most 1,000,000 TB' (a limit in words, not 1e+06)."""
        if key not in raw or raw[key] is None:
            if required:
                self.err(f"{path}.{key}" if path else key, "required")
            return default
        val = raw[key]
        where = f"{path}.{key}" if path else key
        if isinstance(val, str):  # PyYAML reads 36.8e6 (no exponent sign) as a string
            with contextlib.suppress(ValueError):
                val = float(val.replace("_", ""))
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            self.err(where, f"expected a number, got {val!r}")
            return default
        if not math.isfinite(val):  # YAML's .inf / .nan: nan passes every bound, inf breaks the solver
            self.err(where, f"expected a finite number, got {val!r}")
            return default
        if lo is not None and val < lo:
            self.err(where, f"must be >= {lo:g}, got {val!r}")
        if hi is not None and val > hi:
            self.err(where, f"at most {hi:,.0f} {unit}, got {val:,g}" if unit else f"must be <= {hi:g}, got {val!r}")
        return float(val)

    def integer(self, raw: dict[str, Any], key: str, path: str, *, required: bool = True,
                default: int = 0, positive: bool = False, lo: int | None = None, hi: int | None = None,
                most: str = "") -> int:
        """``raw[key]`` as an int; above ``hi`` (or below ``lo``) it is refused naming the limit: 'at most
        100,000 nodes in one purchase line' with ``most`` the words after the number."""
        val = raw.get(key)
        where = f"{path}.{key}" if path else key
        if val is None:
            if required:
                self.err(where, "required")
            return default
        whole = isinstance(val, int) or (isinstance(val, float) and val.is_integer())
        if isinstance(val, bool) or not whole:
            self.err(where, f"expected an integer, got {val!r}")
            return default
        if positive and val <= 0:
            self.err(where, f"must be > 0, got {val!r}")
        elif val < 0:
            self.err(where, f"must be >= 0, got {val!r}")
        elif hi is not None and val > hi:
            self.err(where, f"at most {hi:,}{' ' + most if most else ''}, got {int(val)}")
            return default
        elif lo is not None and val < lo:
            self.err(where, f"at least {lo:,}, got {int(val)}")
            return default
        return int(val)

    def mapping(self, raw: Any, path: str, allowed: set[Any]) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.err(path, f"expected a mapping, got {type(raw).__name__}")
            return {}
        for key in sorted(set(raw) - allowed, key=str):
            self.err(f"{path}.{key}" if path else str(key), "unknown field")
        return raw

    def items(self, raw: Any, path: str) -> list[Any]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.err(path, f"expected a list, got {type(raw).__name__}")
            return []
        return raw


def _yaml_off(con: Any) -> Any:
    """``constraints.off`` as a YAML file writes it: YAML 1.1 (PyYAML) reads the bare key ``off:`` as the
    boolean false, and the web's JSON copy of the mapping as the string "false", so the documented key was
    refused as ``constraints.False: unknown field`` (even the error's own hint, ``constraints.off: [files]``,
    failed). Either spelling of that key is taken as ``off``."""
    if not isinstance(con, dict) or "off" in con:
        return con
    for key in (False, "false"):
        if key in con:
            return {("off" if type(k) is type(key) and k == key else k): val for k, val in con.items()}
    return con


def read_scenario_file(path: str | Path) -> dict[str, Any]:
    """YAML (or JSON by suffix); a syntax error is one line: ``file:line:column: ...``."""
    p = Path(path)
    try:
        text = upload_text(p.read_bytes(), str(p))  # not UTF-8, or a NUL byte: refused with its line
    except OSError as exc:
        raise ScenarioError([f"{p}: cannot read ({exc.strerror})"]) from None
    except UploadTextError as exc:
        raise ScenarioError([str(exc)]) from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else yaml_load(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError([f"{p}:{exc.lineno}:{exc.colno}: JSON syntax error: {exc.msg}"]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{p}:{mark.line + 1}:{mark.column + 1}" if mark else str(p)
        raise ScenarioError([f"{where}: YAML syntax error: {exc.problem or exc.context}"]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([f"{p}: YAML syntax error: {exc}"]) from None
    if not isinstance(data, dict):
        raise ScenarioError([f"{p}: expected a mapping at the top level"])
    return data


def _catalog(raw: Any, base: Path | None, v: _V) -> Catalog | None:
    if isinstance(raw, Catalog):
        return raw
    if raw is None:
        return load_catalog(DEFAULT_CATALOG)
    if not isinstance(raw, str):
        v.err("catalog", "expected a path to a catalog YAML")
        return None
    for cand in ([base / raw] if base else []) + [REPO_ROOT / raw, Path(raw)]:
        if cand.is_file():
            try:
                return load_catalog(cand)
            except CatalogError as exc:
                v.err("catalog", str(exc))
                return None
    v.err("catalog", f"file not found: {raw!r}")
    return None


def _ref(v: _V, cat: Catalog, path: str, raw: dict[str, Any], year: int | None,
         allow_flash: bool = False) -> tuple[str | None, str | None]:
    node, st = raw.get("node_type"), raw.get("storage_system")
    given = [k for k in ("node_type", "storage_system", "flash_tb") if raw.get(k) is not None]
    if len(given) != 1:
        want = "node_type, storage_system or flash_tb" if allow_flash else "node_type or storage_system"
        v.err(path, f"give exactly one of {want}")
    if node is not None and node not in cat.node_types:
        v.err(f"{path}.node_type", f"unknown node type {node!r}")
        node = None
    if st is not None and st not in cat.storage_systems:
        v.err(f"{path}.storage_system", f"unknown storage system {st!r}")
        st = None
    if year is not None:
        item = cat.node_types[node] if node else cat.storage_systems[st] if st else None
        if item is not None and year < item.first_year:
            v.err(f"{path}.year", f"{node or st} is not available before {item.first_year}")
        if item is not None and item.last_year is not None and year > item.last_year:
            v.err(f"{path}.year", f"{node or st} is not sold after {item.last_year}")
    return node, st


def _units(node: str | None, storage: str | None, line: str) -> str:
    what = "nodes" if node else "storage units" if storage else "nodes or storage units"
    return f"{what} in one {line} line"


def scenario_from_dict(data: dict[str, Any], base_dir: str | Path | None = None,
                       catalog: Catalog | None = None, price_resolver: PriceResolver | None = None) -> Scenario:
    """Validate a scenario mapping into a Design.  ``price_resolver`` looks up the forecast of a price
    series named under ``price_trends`` (the Django layer passes one reading stored forecasts)."""
    v = _V()
    data = v.mapping(data, "", _TOP_KEYS)
    cat = catalog or _catalog(data.get("catalog"), Path(base_dir) if base_dir else None, v)
    if cat is None:
        raise ScenarioError(v.errors)
    horizon = v.mapping(data.get("horizon"), "horizon", {"start_year", "end_year"})
    start = v.integer(horizon, "start_year", "horizon", lo=FIRST_YEAR, hi=LAST_YEAR)
    end = v.integer(horizon, "end_year", "horizon", lo=FIRST_YEAR, hi=LAST_YEAR)
    if start and end and end < start:
        v.err("horizon.end_year", f"must be >= start_year {start}")
    elif start and end and end - start + 1 > MAX_HORIZON_YEARS:
        v.err("horizon.end_year", f"at most {MAX_HORIZON_YEARS} years from start_year {start}, got {end}")
        end = start + MAX_HORIZON_YEARS - 1
    years = set(range(start, end + 1)) if start and end else set()
    ref = v.mapping(data.get("reference_core"), "reference_core", {"clock_ghz", "arch_factor", "note"})
    pipeline = data.get("pipeline", DEFAULT_PIPELINE)
    if pipeline not in cat.pipelines() and not PipelineModel.supports(cat, pipeline):
        # a catalog of a site's own hardware has no benchmark rows: its pipeline is the performance model's
        served = ", ".join(sorted(set(cat.pipelines()) | set(PipelineModel.names(cat))))
        v.err("pipeline", f"no benchmark or performance model for pipeline {pipeline!r} (known: {served})")

    existing: list[InventoryItem] = []
    for i, raw in enumerate(v.items(data.get("existing"), "existing")):
        path = f"existing[{i}]"
        raw = v.mapping(raw, path, {"node_type", "storage_system", "count", "purchase_year",
                                    "lifetime_years", "note"})
        node, st = _ref(v, cat, path, raw, None)
        life = v.integer(raw, "lifetime_years", path, required=False, hi=MAX_LIFETIME_YEARS, most="years") or None
        count = v.integer(raw, "count", path, positive=True, hi=MAX_COUNT, most=_units(node, st, "inventory"))
        existing.append(InventoryItem(v.integer(raw, "purchase_year", path), node, st, count, life))

    purchases: list[Purchase] = []
    for i, raw in enumerate(v.items(data.get("purchases"), "purchases")):
        path = f"purchases[{i}]"
        raw = v.mapping(raw, path, {"year", "node_type", "storage_system", "count", "flash_tb", "note"})
        year = v.integer(raw, "year", path)
        if years and year not in years:
            v.err(f"{path}.year", f"{year} outside the horizon {start}..{end}")
        node, st = _ref(v, cat, path, raw, year, allow_flash=True)
        flash = v.num(raw, "flash_tb", path, 0.0, lo=0.0, hi=MAX_FLASH_TB,
                      unit="TB of flash in one purchase line") or 0.0
        if "flash_tb" in raw and flash == 0.0 and isinstance(raw["flash_tb"], (int, float)):
            v.err(f"{path}.flash_tb", "must be > 0, got 0")
        flash_line = "flash_tb" in raw and raw.get("node_type") is None and raw.get("storage_system") is None
        # a flash line with a bad flash_tb has one error, not a second one asking for a count it never needs
        count = v.integer(raw, "count", path, required=not flash_line, positive=not flash_line, hi=MAX_COUNT,
                          most=_units(node, st, "purchase"))
        purchases.append(Purchase(year, node, st, count, flash))

    con = v.mapping(_yaml_off(data.get("constraints")), "constraints", _CONSTRAINT_KEYS)
    off: set[str] = set()
    for j, name in enumerate(v.items(con.get("off"), "constraints.off")):
        if name not in REQUIRED_DEMAND and name != "bandwidth_gbps":
            v.err(f"constraints.off[{j}]", f"expected one of {', '.join(REQUIRED_DEMAND)}, got {name!r}")
        else:
            off.add(str(name))
    demand: dict[int, YearDemand] = {}
    for i, raw in enumerate(v.items(data.get("demand"), "demand")):
        path = f"demand[{i}]"
        raw = v.mapping(raw, path, _DEMAND_KEYS)
        year = v.integer(raw, "year", path)
        if year in demand:
            v.err(f"{path}.year", f"duplicate year {year}")
        elif years and year and year not in years:  # was ignored: a year typed past the horizon checked nothing
            v.err(f"{path}.year", f"{year} outside the horizon {start}..{end}")
        for k in REQUIRED_DEMAND:
            if k not in off and raw.get(k) is None and isinstance(raw, dict) and raw:
                v.err(f"{path}.{k}", "required (or turn the check off: constraints.off: [" + k + "])")
        vals = {k: v.num(raw, k, path, 0.0, lo=0.0, hi=DEMAND_MAX[k][0], unit=DEMAND_MAX[k][1]) or 0.0
                for k in _DEMAND_KEYS - {"year", "note"}}
        demand[year] = YearDemand(year=year, **vals)
    for y in sorted(years - set(demand)):
        v.err("demand", f"no entry for year {y}")

    budgets: dict[int, float] = {}
    for key, val in v.mapping(con.get("budgets_usd"), "constraints.budgets_usd",
                              {str(y) for y in years} | set(years)).items():
        b = v.num({str(key): val}, str(key), "constraints.budgets_usd", None, lo=0.0, hi=MAX_BUDGET_USD, unit="USD")
        if b is not None:
            budgets[int(key)] = b
    flash_system = con.get("flash_system", "flash-gss")
    if flash_system not in cat.storage_systems:
        # the default names the study's flash: a site catalog without it needs flash_system only to buy flash_tb
        if "flash_system" in con:
            v.err("constraints.flash_system", f"unknown storage system {flash_system!r}")
        for i, p in enumerate(purchases):
            if p.flash_tb > 0:
                v.err(f"purchases[{i}].flash_tb", f"the catalog has no {flash_system!r}: name the flash system "
                      "its TB are bought in (constraints.flash_system)")
    elif cat.storage(flash_system).kind != "flash":
        v.err("constraints.flash_system", f"{flash_system!r} is a {cat.storage(flash_system).kind} system, "
              "not flash")
    cost_raw = v.mapping(data.get("costs"), "costs", _COST_KEYS)
    d = CostParams()
    costs = CostParams(
        power_usd_per_kwh=v.num(cost_raw, "power_usd_per_kwh", "costs", d.power_usd_per_kwh, lo=0.0) or 0.0,
        pue=v.num(cost_raw, "pue", "costs", d.pue, lo=1.0) or d.pue,
        support_pct_per_year=v.num(cost_raw, "support_pct_per_year", "costs", None, lo=0.0, hi=100.0),
        discount_rate=v.num(cost_raw, "discount_rate", "costs", d.discount_rate, lo=0.0, hi=1.0) or 0.0,
        maintenance_days_per_year=v.num(cost_raw, "maintenance_days_per_year", "costs",
                                        d.maintenance_days_per_year, lo=0.0, hi=364.0) or 0.0,
    )
    opt_raw = v.mapping(data.get("optimize"), "optimize", _OPT_KEYS)
    for key, known in (("node_types", cat.node_types), ("storage_systems", cat.storage_systems)):
        for j, name in enumerate(v.items(opt_raw.get(key), f"optimize.{key}")):
            if name not in known:
                kind = "node type" if key == "node_types" else "storage system"
                v.err(f"optimize.{key}[{j}]", f"unknown {kind} {name!r}")
    oo = OptimizeOptions()
    options = OptimizeOptions(
        node_types=opt_raw.get("node_types"), storage_systems=opt_raw.get("storage_systems"),
        max_count_per_year=v.integer(opt_raw, "max_count_per_year", "optimize", required=False, positive=True,
                                     default=oo.max_count_per_year, hi=MAX_COUNT, most="of an item a year"),
        time_limit_s=v.num(opt_raw, "time_limit_s", "optimize", oo.time_limit_s, lo=0.01, hi=MAX_TIME_LIMIT_S,
                           unit="seconds") or oo.time_limit_s,
        mip_rel_gap=v.num(opt_raw, "mip_rel_gap", "optimize", oo.mip_rel_gap, lo=0.0, hi=1.0) or 0.0,
        keep_purchases=bool(opt_raw.get("keep_purchases", False)),
        service_level=v.num(opt_raw, "service_level", "optimize", None, lo=0.01, hi=1.0),
    )
    uncertainty = parse_uncertainty(data.get("uncertainty"), v.errors)
    horizon_years = sorted(years)
    prices = parse_prices(v, data.get("prices"), cat, horizon_years)
    sources, bounds = parse_price_trends(v, data.get("price_trends"), cat, horizon_years, start, prices,
                                         price_resolver)
    ref_clock = v.num(ref, "clock_ghz", "reference_core", 3.5, lo=0.01) or 3.5
    design = Design(
        name=str(data.get("name", "scenario")), start_year=start, end_year=end,
        reference_clock_ghz=ref_clock,
        reference_arch_factor=v.num(ref, "arch_factor", "reference_core", 1.0, lo=0.01) or 1.0,
        existing=existing, purchases=purchases, demand=demand,
        utilisation_target=v.num(con, "utilisation_target", "constraints", 0.85, lo=0.01, hi=1.0) or 0.85,
        fullness_limit=v.num(con, "fullness_limit", "constraints", None, lo=0.01, hi=1.0),
        flash_days=v.num(con, "flash_days", "constraints", 7.0, lo=0.0) or 0.0,
        flash_system=str(flash_system), budgets_usd=budgets, costs=costs, pipeline=str(pipeline),
        genomics_share=v.num(con, "genomics_share", "constraints", 1.0, lo=0.0, hi=1.0) or 0.0,
        metadata_scan_hours=v.num(con, "metadata_scan_hours", "constraints", 24.0, lo=0.01) or 24.0,
        metadata_ops_per_file=v.num(con, "metadata_ops_per_file", "constraints", 1.0, lo=0.001) or 1.0,
        prices=prices,
        turnaround_hours=v.num(con, "turnaround_hours", "constraints", None, lo=0.01),
        storage_utilisation_max=v.num(con, "storage_utilisation_max", "constraints", DEFAULT_RHO_MAX, lo=0.01,
                                      hi=0.99) or DEFAULT_RHO_MAX,
        checks_off=frozenset(off),
    )
    if design.turnaround_hours is not None and not PipelineModel.supports(cat, design.pipeline):
        v.err("constraints.turnaround_hours", f"needs a performance model of pipeline {design.pipeline!r} "
              "(fixtures/benchmarks/genomics.yaml)")
    if v.errors:
        raise ScenarioError(v.errors)
    return Scenario(design, cat, options, str(data.get("description", "")), price_sources=sources,
                    price_bounds=bounds, uncertainty=uncertainty)


def load_scenario(path_or_dict: str | Path | dict[str, Any], price_resolver: PriceResolver | None = None) -> Scenario:
    """A scenario from a YAML/JSON file path or an already-parsed mapping."""
    if isinstance(path_or_dict, dict):
        return scenario_from_dict(path_or_dict, price_resolver=price_resolver)
    p = Path(path_or_dict)
    data = read_scenario_file(p)
    try:
        sc = scenario_from_dict(data, base_dir=p.parent, price_resolver=price_resolver)
    except ScenarioError as exc:  # each field error with the line it is on
        raise ScenarioError(with_lines(exc.errors, p.read_bytes().decode("utf-8-sig"))) from None
    sc.source_path = str(p)
    return sc


def evaluate_scenario(path_or_dict: str | Path | dict[str, Any],
                      price_resolver: PriceResolver | None = None) -> DesignEvaluation:
    sc = load_scenario(path_or_dict, price_resolver)
    return evaluate_design(sc.design, sc.catalog)


def optimize_scenario(path_or_dict: str | Path | dict[str, Any], time_limit_s: float | None = None,
                      mip_rel_gap: float | None = None, price_resolver: PriceResolver | None = None) -> Any:
    """Cost-minimal purchase plan for the scenario (returns planner.designs.optimize.OptimizationResult)."""
    from planner.designs.optimize import optimize_design

    sc = load_scenario(path_or_dict, price_resolver)
    o = sc.optimize
    return optimize_design(
        sc.design, sc.catalog, node_types=o.node_types, storage_systems=o.storage_systems,
        max_count_per_year=o.max_count_per_year,
        time_limit_s=o.time_limit_s if time_limit_s is None else time_limit_s,
        mip_rel_gap=o.mip_rel_gap if mip_rel_gap is None else mip_rel_gap,
        keep_purchases=o.keep_purchases,
    )
