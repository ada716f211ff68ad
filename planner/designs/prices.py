"""Prices per year in scenarios: explicit tables, price indices, and trends from a price-series forecast
(pure core, no Django).

A design's catalog prices are today's behaviour: the same price every year. A scenario can instead give,
per node type and per storage system (or every system of a storage kind):

- ``prices``: an explicit per-year table (``price_usd`` per node or unit, ``usd_per_tb`` per usable TB of
  storage) or a ``price_index`` per year (a multiplier on the catalog price); a single number means
  every year. The core accepts these directly.
- ``price_trends``: the index comes from a forecast of a price series (e.g. disk $/TB):
  ``multiplier(y) = forecast(y) / forecast(base_year)`` at the chosen percentile, where ``base_year``
  (default: the first horizon year) is the year the catalog price holds. The series is looked up by a
  :data:`PriceResolver` the caller supplies (the Django layer reads stored forecasts); its P10 / P90
  give the sensitivity's price range.

Everything becomes one :class:`planner.designs.capacity.PriceIndex` of multipliers on the Design.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from planner.designs.capacity import PriceIndex
from planner.hardware.catalog import STORAGE_KINDS, Catalog

PERCENTILES = ("median", "p10", "p90")
_ENTRY_KEYS = {"price_index", "price_usd", "usd_per_tb", "note"}
_TREND_STORAGE_KEYS = {"kind", "system", "series", "percentile", "base_year", "note"}
_TREND_NODE_KEYS = {"node_type", "series", "percentile", "base_year", "note"}


class Errors(Protocol):
    """What the scenario validator offers (planner.designs.scenario._V): collect errors with field paths."""

    def err(self, path: str, msg: str) -> None: ...

    def mapping(self, raw: Any, path: str, allowed: set[Any]) -> dict[str, Any]: ...


@dataclass(slots=True)
class SeriesForecast:
    """One price series' yearly values as a resolver returns them (in the series' own units).

    ``observed`` holds the years whose value is history, not forecast (the interval collapses there).
    """

    name: str
    units: str
    median: dict[int, float]
    p10: dict[int, float]
    p90: dict[int, float]
    series_id: int | None = None
    fit_id: int | None = None
    fit_label: str = ""  # e.g. "fit #12: damped trend on log values"
    observed: set[int] = field(default_factory=set)


# series name or id, years needed -> its forecast; raises LookupError with a message a planner understands
PriceResolver = Callable[[str | int, list[int]], SeriesForecast]


@dataclass(slots=True)
class PriceSource:
    """One forecast price, for the record: which items, which series, which fit, which multipliers."""

    group: str  # "nodes" or "storage"
    target: str  # "disk storage", "storage system ibm-gss26", "node type haswell", "every node type"
    items: list[str]
    series: str
    series_id: int | None
    units: str
    fit_id: int | None
    fit_label: str
    percentile: str
    base_year: int
    base_value: float
    years: list[dict[str, Any]]  # {year, value, multiplier, p10_multiplier, p90_multiplier, observed}

    @property
    def label(self) -> str:
        return f"{self.target}: {self.series} ({self.units}), {self.percentile} of fit #{self.fit_id}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"label": self.label}


# The most a ``prices`` entry may say, per form (docs/scenario-format.md): a typo's extra zeros are refused.
PRICE_MAX = {"price_index": (1000.0, "times the catalog price"), "price_usd": (1e9, "USD for one item"),
             "usd_per_tb": (1e6, "USD per TB")}


def _year_table(v: Errors, raw: Any, path: str, years: list[int],
                most: tuple[float, str] | None = None) -> dict[int, float] | None:
    """A number (every horizon year) or {year: number}; positive numbers up to ``most`` (the limit, its unit),
    integer years."""
    def too_big(where: str, val: float) -> bool:
        if not math.isfinite(val):  # YAML's .nan passes every comparison
            v.err(where, f"expected a finite number, got {val!r}")
            return True
        if most is not None and val > most[0]:
            v.err(where, f"at most {most[0]:,.0f} {most[1]}, got {val:,g}")
            return True
        return False

    if isinstance(raw, str):
        with contextlib.suppress(ValueError):
            raw = float(raw.replace("_", ""))
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if raw <= 0:
            v.err(path, f"must be > 0, got {raw!r}")
            return None
        if too_big(path, raw):
            return None
        return {y: float(raw) for y in years}
    if not isinstance(raw, dict) or not raw:
        v.err(path, f"expected a number or a mapping of year: number, got {raw!r}")
        return None
    out: dict[int, float] = {}
    for key, val in raw.items():
        try:
            year = int(str(key))
        except ValueError:
            v.err(f"{path}.{key}", "expected a year")
            continue
        if isinstance(val, str):
            with contextlib.suppress(ValueError):
                val = float(val.replace("_", ""))
        if isinstance(val, bool) or not isinstance(val, (int, float)) or val <= 0:
            v.err(f"{path}.{key}", f"expected a positive number, got {val!r}")
            continue
        if too_big(f"{path}.{key}", val):
            continue
        out[year] = float(val)
    return out or None


def _entry(v: Errors, raw: Any, path: str, years: list[int], *, storage: bool,
           one_item: bool) -> tuple[str, dict[int, float]] | None:
    """One ``prices`` entry, read once: (form, {year: number}) with form price_index / price_usd / usd_per_tb."""
    raw = v.mapping(raw, path, _ENTRY_KEYS if storage else _ENTRY_KEYS - {"usd_per_tb"})
    given = [k for k in ("price_index", "price_usd", "usd_per_tb") if raw.get(k) is not None]
    if len(given) != 1:
        want = "price_index, price_usd or usd_per_tb" if storage else "price_index or price_usd"
        v.err(path, f"give exactly one of {want}")
        return None
    key = given[0]
    if key == "price_usd" and not one_item:
        v.err(f"{path}.price_usd", "a price in USD names one item: give it per node type or storage system, "
                                   "or use price_index" + (" or usd_per_tb" if storage else ""))
        return None
    table = _year_table(v, raw[key], f"{path}.{key}", years, PRICE_MAX[key])
    return (key, table) if table is not None else None


def _multipliers(form: str, table: dict[int, float], catalog_price: float, usable_tb: float) -> dict[int, float]:
    if form == "price_index":
        return dict(table)
    if form == "price_usd":
        return {y: p / catalog_price for y, p in table.items()}
    return {y: p * usable_tb / catalog_price for y, p in table.items()}


def parse_prices(v: Errors, raw: Any, cat: Catalog, years: list[int]) -> PriceIndex:
    """``prices: {nodes: {<node type>|all: ENTRY}, storage: {<system>|<kind>|all: ENTRY}}`` -> PriceIndex.

    The most specific entry wins: a named item over its storage kind over ``all``.
    """
    out = PriceIndex()
    raw = v.mapping(raw, "prices", {"nodes", "storage"})
    nodes = v.mapping(raw.get("nodes"), "prices.nodes", set(cat.node_types) | {"all"})
    node_entries = {k: _entry(v, e, f"prices.nodes.{k}", years, storage=False, one_item=k != "all")
                    for k, e in nodes.items()}
    for name, node in sorted(cat.node_types.items()):
        key = name if name in nodes else "all" if "all" in nodes else None
        parsed = node_entries.get(key) if key is not None else None
        if parsed:
            out.nodes[name] = _multipliers(*parsed, node.price_usd, 0.0)
    storage = v.mapping(raw.get("storage"), "prices.storage", set(cat.storage_systems) | set(STORAGE_KINDS) | {"all"})
    st_entries = {k: _entry(v, e, f"prices.storage.{k}", years, storage=True, one_item=k in cat.storage_systems)
                  for k, e in storage.items()}
    for name, st in sorted(cat.storage_systems.items()):
        key = name if name in storage else st.kind if st.kind in storage else "all" if "all" in storage else None
        parsed = st_entries.get(key) if key is not None else None
        if parsed:
            out.storage[name] = _multipliers(*parsed, st.price_usd, st.usable_tb)
    return out


def _trend_entries(v: Errors, raw: Any, path: str) -> list[tuple[str, Any]]:
    if raw is None:
        return []
    if isinstance(raw, list):
        return [(f"{path}[{i}]", r) for i, r in enumerate(raw)]
    return [(path, raw)]


def parse_price_trends(
    v: Errors, raw: Any, cat: Catalog, years: list[int], start_year: int, prices: PriceIndex,
    resolver: PriceResolver | None,
) -> tuple[list[PriceSource], tuple[PriceIndex, PriceIndex] | None]:
    """Resolve ``price_trends`` into multipliers (added to ``prices``), the record, and P10 / P90 indices.

    ``price_trends: {storage: ENTRY | [ENTRY, ...], nodes: ENTRY | [ENTRY, ...]}`` with
    storage ENTRY ``{kind | system, series, percentile?, base_year?}`` and node ENTRY
    ``{node_type?, series, percentile?, base_year?}`` (no node_type: every node type).
    """
    raw = v.mapping(raw, "price_trends", {"storage", "nodes"})
    if not raw:
        return [], None
    if resolver is None:
        v.err("price_trends", "a price forecast needs the stored forecasts: evaluate through the Designs pages, "
                              "the API or manage.py evaluate_design, or give prices.<nodes|storage>.<name>.price_index")
        return [], None
    sources: list[PriceSource] = []
    low, high = PriceIndex(), PriceIndex()
    for group, keys in (("storage", _TREND_STORAGE_KEYS), ("nodes", _TREND_NODE_KEYS)):
        for path, entry in _trend_entries(v, raw.get(group), f"price_trends.{group}"):
            entry = v.mapping(entry, path, keys)
            if not entry:
                continue
            items, target = _trend_items(v, entry, path, group, cat)
            if not items:
                continue
            taken = prices.storage if group == "storage" else prices.nodes
            clash = [n for n in items if n in taken]
            if clash:
                v.err(path, f"{', '.join(clash)} already priced (prices.{group} or an earlier price_trends entry); "
                            "give one source per item")
                continue
            source = _resolve(v, entry, path, group, target, items, years, start_year, resolver)
            if source is None:
                continue
            sources.append(source)
            for name in items:
                taken[name] = {y["year"]: y["multiplier"] for y in source.years}
                lo_tab = low.storage if group == "storage" else low.nodes
                hi_tab = high.storage if group == "storage" else high.nodes
                lo_tab[name] = {y["year"]: y["p10_multiplier"] for y in source.years}
                hi_tab[name] = {y["year"]: y["p90_multiplier"] for y in source.years}
    return sources, ((low, high) if sources else None)


def _trend_items(v: Errors, entry: dict[str, Any], path: str, group: str, cat: Catalog) -> tuple[list[str], str]:
    if group == "nodes":
        node = entry.get("node_type")
        if node is None:
            return sorted(cat.node_types), "every node type"
        if node not in cat.node_types:
            v.err(f"{path}.node_type", f"unknown node type {node!r}")
            return [], ""
        return [str(node)], f"node type {node}"
    kind, system = entry.get("kind"), entry.get("system")
    if (kind is None) == (system is None):
        v.err(path, "give exactly one of kind or system")
        return [], ""
    if system is not None:
        if system not in cat.storage_systems:
            v.err(f"{path}.system", f"unknown storage system {system!r}")
            return [], ""
        return [str(system)], f"storage system {system}"
    if kind not in STORAGE_KINDS:
        v.err(f"{path}.kind", f"unknown storage kind {kind!r} (known: {', '.join(STORAGE_KINDS)})")
        return [], ""
    items = sorted(n for n, s in cat.storage_systems.items() if s.kind == kind)
    if not items:
        v.err(f"{path}.kind", f"the catalog has no {kind} storage system")
    return items, f"{kind} storage"


def _resolve(v: Errors, entry: dict[str, Any], path: str, group: str, target: str, items: list[str],
             years: list[int], start_year: int, resolver: PriceResolver) -> PriceSource | None:
    series = entry.get("series")
    if series is None or (isinstance(series, str) and not series.strip()):
        v.err(f"{path}.series", "required: the name or id of a stored price series")
        return None
    if isinstance(series, bool) or not isinstance(series, (str, int)):
        v.err(f"{path}.series", f"expected a series name or id, got {series!r}")
        return None
    pct = str(entry.get("percentile", "median"))
    if pct not in PERCENTILES:
        v.err(f"{path}.percentile", f"expected one of {', '.join(PERCENTILES)}, got {pct!r}")
        return None
    base_raw = entry.get("base_year", start_year)
    if isinstance(base_raw, bool) or not isinstance(base_raw, int):
        v.err(f"{path}.base_year", f"expected a year, got {base_raw!r}")
        return None
    base = int(base_raw)
    needed = sorted(set(years) | {base})
    try:
        fc = resolver(series, needed)
    except LookupError as exc:
        v.err(f"{path}.series", str(exc.args[0] if exc.args else exc))
        return None
    missing = [y for y in needed if y not in fc.median or y not in fc.p10 or y not in fc.p90]
    if missing:
        have = sorted(fc.median)
        span = f"{have[0]}-{have[-1]}" if have else "no years"
        v.err(f"{path}.series", f"the forecast of {fc.name!r} covers {span}, not {', '.join(map(str, missing))}: "
                                "fit it with a longer horizon")
        return None
    base_value = fc.median[base]
    if base_value <= 0:
        v.err(f"{path}.base_year", f"{fc.name!r} is {base_value:g} in {base}: cannot index prices on it")
        return None
    chosen = {"median": fc.median, "p10": fc.p10, "p90": fc.p90}[pct]
    rows = [
        {"year": y, "value": chosen[y], "multiplier": chosen[y] / base_value,
         "p10_multiplier": fc.p10[y] / base_value, "p90_multiplier": fc.p90[y] / base_value,
         "observed": y in fc.observed}
        for y in years
    ]
    return PriceSource(group, target, items, fc.name, fc.series_id, fc.units, fc.fit_id, fc.fit_label, pct,
                       base, base_value, rows)
