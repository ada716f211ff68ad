"""Prices per year (planner.designs.prices, capacity, optimize, sensitivity): pure core, no database.

A falling storage price makes the optimiser buy storage only when it is needed; a rising one makes it
buy ahead; exhaustive enumeration checks the optimum under a price trend.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.designs.capacity import CostParams, Design, PriceIndex, Purchase, YearDemand, evaluate_design
from planner.designs.optimize import optimize_design
from planner.designs.prices import SeriesForecast
from planner.designs.scenario import ScenarioError, scenario_from_dict
from planner.designs.sensitivity import tornado
from planner.hardware.catalog import Catalog, load_catalog
from planner.hardware.costmodel import CostModel

ROOT = Path(__file__).resolve().parents[2]
YEARS = (2015, 2016, 2017)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT / "fixtures" / "catalog.yaml")


def storage_only(index: dict[int, float] | None, costs: CostParams | None = None) -> Design:
    """Storage demand that needs one more ibm-gss26 unit (800 TB plannable) each year."""
    return Design(
        name="storage", start_year=2015, end_year=2017, flash_days=0,
        demand={y: YearDemand(y, storage_tb=700 + 800 * i) for i, y in enumerate(YEARS)},
        costs=costs or CostParams(power_usd_per_kwh=0.0, support_pct_per_year=0.0, discount_rate=0.0),
        prices=PriceIndex(storage={"ibm-gss26": index}) if index else PriceIndex(),
    )


def bought(res: Any) -> list[tuple[int, str, int]]:
    return [(p.year, p.storage_system or p.node_type, p.count) for p in res.purchases]


def test_a_purchase_pays_the_price_of_its_year(catalog: Catalog) -> None:
    design = replace(storage_only({2015: 1.0, 2016: 0.8, 2017: 0.64}, CostParams(support_pct_per_year=10.0)),
                     purchases=[Purchase(2015, storage_system="ibm-gss26", count=1),
                                Purchase(2017, storage_system="ibm-gss26", count=2)])
    ev = evaluate_design(design, catalog)
    assert ev.year(2015).capex_usd == pytest.approx(450_000)
    assert ev.year(2016).capex_usd == 0
    assert ev.year(2017).capex_usd == pytest.approx(2 * 450_000 * 0.64)
    # support is a share of the price paid
    assert ev.year(2017).support_usd == pytest.approx(0.10 * (450_000 + 2 * 450_000 * 0.64))
    assert ev.price_index["storage"]["ibm-gss26"] == {2015: 1.0, 2016: 0.8, 2017: 0.64}


def test_a_missing_year_holds_the_previous_multiplier() -> None:
    idx = PriceIndex(storage={"s": {2015: 0.9, 2017: 0.7}})
    assert [idx.multiplier("storage", "s", y) for y in (2014, 2015, 2016, 2017, 2018)] == [0.9, 0.9, 0.9, 0.7, 0.7]
    assert idx.multiplier("node", "s", 2016) == 1.0


def test_with_a_falling_price_the_optimiser_defers_storage_not_yet_needed(catalog: Catalog) -> None:
    res = optimize_design(storage_only({2015: 1.0, 2016: 0.8, 2017: 0.64}), catalog, node_types=[],
                          storage_systems=["ibm-gss26"], mip_rel_gap=0.0)
    assert res.status == "optimal"
    assert bought(res) == [(2015, "ibm-gss26", 1), (2016, "ibm-gss26", 1), (2017, "ibm-gss26", 1)]
    assert res.npv_usd == pytest.approx(450_000 * (1.0 + 0.8 + 0.64))


def test_with_a_rising_price_the_optimiser_buys_ahead(catalog: Catalog) -> None:
    res = optimize_design(storage_only({2015: 1.0, 2016: 1.1, 2017: 1.2}), catalog, node_types=[],
                          storage_systems=["ibm-gss26"], mip_rel_gap=0.0)
    assert bought(res) == [(2015, "ibm-gss26", 3)]


def _enumerate(design: Design, catalog: Catalog, systems: list[str], most: int) -> float:
    model = CostModel(catalog)
    keys = [(s, y) for s in systems for y in YEARS]
    best = math.inf
    for combo in itertools.product(range(most + 1), repeat=len(keys)):
        plan = [Purchase(y, storage_system=s, count=c) for (s, y), c in zip(keys, combo, strict=True) if c]
        ev = evaluate_design(replace(design, purchases=plan), catalog, model)
        if ev.feasible:
            best = min(best, ev.npv_usd)
    return best


def test_under_a_price_trend_the_optimum_matches_exhaustive_enumeration(catalog: Catalog) -> None:
    systems = ["ddn-sfa12k", "ibm-gss26"]
    design = storage_only(None, CostParams(discount_rate=0.05))
    design.prices = PriceIndex(storage={"ibm-gss26": {2015: 1.0, 2016: 0.7, 2017: 0.5},
                                        "ddn-sfa12k": {2015: 1.0, 2016: 0.95, 2017: 0.9}})
    res = optimize_design(design, catalog, node_types=[], storage_systems=systems, mip_rel_gap=0.0)
    assert res.status == "optimal"
    assert all(p.count < 3 for p in res.purchases)  # the optimum lies inside the enumerated box
    assert res.npv_usd == pytest.approx(_enumerate(design, catalog, systems, 3), rel=1e-9)
    assert res.evaluation is not None and res.evaluation.npv_usd == pytest.approx(res.npv_usd, rel=1e-9)


def test_a_budget_binds_on_the_year_price(catalog: Catalog) -> None:
    # 2016's budget buys one unit only at the lower 2016 price
    design = replace(storage_only({2015: 1.0, 2016: 0.8, 2017: 0.64}), budgets_usd={2016: 400_000})
    res = optimize_design(design, catalog, node_types=[], storage_systems=["ibm-gss26"], mip_rel_gap=0.0)
    assert res.status == "optimal"
    assert (2016, "ibm-gss26", 1) in bought(res)


# ---- scenario format ---------------------------------------------------------------------------------
def base_scenario() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "fixtures" / "scenarios" / "minerva_optimised.yaml").read_text())
    data["catalog"] = "fixtures/catalog.yaml"
    return data


DISK = {2013: 52.0, 2014: 41.0, 2015: 34.0, 2016: 29.0, 2017: 26.0, 2018: 23.0, 2019: 20.5}


def resolver(series: str | int, years: list[int]) -> SeriesForecast:
    if series not in ("Disk price", 7):
        raise LookupError(f"no price series named {series!r}")
    return SeriesForecast("Disk price", "USD/TB", dict(DISK), {y: v * 0.8 for y, v in DISK.items()},
                          {y: v * 1.25 for y, v in DISK.items()}, series_id=7, fit_id=12,
                          observed={2013, 2014, 2015})


def test_an_explicit_price_index_is_accepted_by_the_core(catalog: Catalog) -> None:
    data = base_scenario() | {"prices": {"storage": {"disk": {"price_index": {2014: 1, 2016: 0.7}},
                                                     "ibm-gss26": {"usd_per_tb": 300}},
                                         "nodes": {"haswell": {"price_usd": {2015: 5000, 2016: 4400}}}}}
    sc = scenario_from_dict(data)
    p = sc.design.prices
    assert p.multiplier("storage", "ddn-sfa12k", 2015) == 1.0 and p.multiplier("storage", "ddn-sfa12k", 2017) == 0.7
    assert p.multiplier("storage", "ibm-gss26", 2019) == pytest.approx(300 * 1000 / 450_000)  # $/TB x usable TB
    assert p.multiplier("node", "haswell", 2016) == pytest.approx(4400 / 4214)  # catalog price (sourced) 4,214
    assert "flash-gss" not in p.storage and "ivy-bridge" not in p.nodes


def test_price_trends_resolve_into_multipliers_with_a_record(catalog: Catalog) -> None:
    data = base_scenario() | {"price_trends": {"storage": {"kind": "disk", "series": "Disk price"}}}
    sc = scenario_from_dict(data, price_resolver=resolver)
    assert sorted(sc.design.prices.storage) == ["ddn-sfa10k", "ddn-sfa12k", "ibm-gss26", "lustre-dell"]
    assert sc.design.prices.multiplier("storage", "ibm-gss26", 2019) == pytest.approx(20.5 / 41.0)
    (src,) = sc.price_sources
    assert (src.series, src.fit_id, src.percentile, src.base_year) == ("Disk price", 12, "median", 2014)
    assert src.years[0] == {"year": 2014, "value": 41.0, "multiplier": 1.0, "p10_multiplier": pytest.approx(0.8),
                                 "p90_multiplier": pytest.approx(1.25), "observed": True}
    assert src.years[-1]["observed"] is False
    assert "median of fit #12" in src.label
    low, high = sc.price_bounds  # type: ignore[misc]
    assert low.multiplier("storage", "ibm-gss26", 2018) == pytest.approx(0.8 * 23 / 41)
    assert high.multiplier("storage", "ibm-gss26", 2018) == pytest.approx(1.25 * 23 / 41)
    # a base year other than the first horizon year, and the P90 as the design's price
    data["price_trends"]["storage"] |= {"base_year": 2013, "percentile": "p90"}
    sc = scenario_from_dict(data, price_resolver=resolver)
    assert sc.design.prices.multiplier("storage", "ibm-gss26", 2014) == pytest.approx(1.25 * 41 / 52)


@pytest.mark.parametrize(("trends", "field"), [
    ({"storage": {"kind": "tape", "series": "Disk price"}}, "price_trends.storage.kind"),
    ({"storage": {"kind": "disk", "series": "Tape price"}}, "price_trends.storage.series"),
    ({"storage": {"kind": "disk"}}, "price_trends.storage.series"),
    ({"storage": [{"kind": "disk", "series": "Disk price", "percentile": "p50"}]},
     "price_trends.storage[0].percentile"),
    ({"storage": {"kind": "disk", "system": "ibm-gss26", "series": "Disk price"}}, "price_trends.storage"),
    ({"nodes": {"node_type": "xeon", "series": 7}}, "price_trends.nodes.node_type"),
    ({"nodes": {"series": 7, "colour": "red"}}, "price_trends.nodes.colour"),
    ({"storage": {"kind": "disk", "series": "Disk price", "base_year": 2001}}, "price_trends.storage.series"),
])
def test_price_trend_errors_name_the_field(trends: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        scenario_from_dict(base_scenario() | {"price_trends": trends}, price_resolver=resolver)
    assert any(e.startswith(f"{field}:") for e in exc.value.errors), exc.value.errors


@pytest.mark.parametrize(("prices", "field"), [
    ({"storage": {"disk": {"price_index": {2015: -1}}}}, "prices.storage.disk.price_index.2015"),
    ({"storage": {"disk": {"price_usd": 1000}}}, "prices.storage.disk.price_usd"),
    ({"storage": {"ibm-gss26": {}}}, "prices.storage.ibm-gss26"),
    ({"nodes": {"haswell": {"usd_per_tb": 3}}}, "prices.nodes.haswell.usd_per_tb"),
    ({"nodes": {"xeon": {"price_index": 1}}}, "prices.nodes.xeon"),
    ({"nodes": {"all": {"price_index": {"next": 1}}}}, "prices.nodes.all.price_index.next"),
])
def test_price_table_errors_name_the_field(prices: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        scenario_from_dict(base_scenario() | {"prices": prices})
    assert any(e.startswith(f"{field}:") for e in exc.value.errors), exc.value.errors


def test_price_trends_without_stored_forecasts_say_how_to_resolve_them() -> None:
    with pytest.raises(ScenarioError, match="price_trends: a price forecast needs the stored forecasts"):
        scenario_from_dict(base_scenario() | {"price_trends": {"storage": {"kind": "disk", "series": "x"}}})


def test_an_item_priced_twice_is_an_error() -> None:
    data = base_scenario() | {"prices": {"storage": {"ibm-gss26": {"price_index": 0.9}}},
                              "price_trends": {"storage": {"kind": "disk", "series": "Disk price"}}}
    with pytest.raises(ScenarioError, match=r"price_trends.storage: ibm-gss26 already priced"):
        scenario_from_dict(data, price_resolver=resolver)


def test_the_tornado_prices_bar_uses_the_forecast_interval(catalog: Catalog) -> None:
    design = storage_only({2015: 1.0, 2016: 0.8, 2017: 0.64})
    bounds = (PriceIndex(storage={"ibm-gss26": {2015: 0.9, 2016: 0.6, 2017: 0.4}}),
              PriceIndex(storage={"ibm-gss26": {2015: 1.1, 2016: 1.0, 2017: 0.9}}))
    seen: list[Catalog] = []

    def cost(d: Design, c: Catalog) -> tuple[float | None, str]:
        seen.append(c)
        return float(sum(d.unit_price_usd(c, "storage", "ibm-gss26", y) for y in YEARS)), "optimal"

    t = tornado(design, catalog, cost=cost, factors=("prices",), price_bounds=bounds)
    (bar,) = t.bars
    assert bar.low_usd == pytest.approx(450_000 * (0.9 + 0.6 + 0.4))
    assert bar.high_usd == pytest.approx(450_000 * (1.1 + 1.0 + 0.9))
    assert "forecast P10-P90" in bar.label
    # items without a forecast still move by +-20 %; the forecast ones keep their catalog price
    low_catalog = seen[1]
    assert low_catalog.node("haswell").price_usd == pytest.approx(0.8 * 4214)
    assert low_catalog.storage("ibm-gss26").price_usd == 450_000
    t_plain = tornado(design, catalog, cost=cost, factors=("prices",))
    assert t_plain.bars[0].low_usd == pytest.approx(0.8 * 450_000 * (1.0 + 0.8 + 0.64))
