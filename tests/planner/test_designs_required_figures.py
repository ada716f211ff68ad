"""A plan bought for a service level states the design's own yearly figures as "required", as the design page does.

Found on a QA walk: on a design with typed-in demand, the run page's year table read 1,982,703 core-hours and 11.9
genomes/day required in 2021 where the design page read 2,000,000 and 12: the run's single-figure checks used the
median of the drawn paths, which differs from the figures the paths are drawn around by sampling noise (and, under
a plan's skewed spread, by the skew). The plan itself is bought on the paths either way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from forecasts.demand.paths import PlanSpread, Spread, around_figures
from planner.designs.capacity import CostParams, Design, YearDemand
from planner.designs.confidence import design_on_paths, plan_for_service_level
from planner.hardware.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
YEARS = [2015, 2016]  # years the catalog sells haswell in


def _design() -> Design:
    return Design(name="typed", start_year=YEARS[0], end_year=YEARS[-1], flash_days=0,
                  demand={y: YearDemand(y, core_hours=2.0e6, files=1e7) for y in YEARS},
                  costs=CostParams(discount_rate=0.05))


def _paths() -> object:
    return around_figures(years=YEARS, figures={"core_hours": [2.0e6, 2.0e6], "genomes_per_day": [12.0, 12.0]},
                          sigma_per_year={"core_hours": 0.12}, n_paths=200, seed=0,
                          plan_spread=PlanSpread(instruments=Spread(0.8, 1.25)))


def test_the_single_figure_checks_keep_the_typed_in_figures_and_take_the_median_only_where_none_is_typed() -> None:
    demand = _paths()
    assert np.median(demand.core_hours[:, 0]) != pytest.approx(2.0e6, rel=1e-4)  # the draw's median is not it
    on = design_on_paths(_design(), demand)
    assert [on.demand[y].core_hours for y in YEARS] == [2.0e6, 2.0e6]
    # genomes/day are typed in as 0 here: the paths' median stands in for them
    assert on.demand[2015].genomes_per_day == pytest.approx(float(np.median(demand.genomes_per_day[:, 0])))
    assert on.demand[2015].files == 1e7


def test_the_plan_s_required_core_hours_are_the_design_s() -> None:
    catalog = load_catalog(ROOT / "fixtures" / "catalog.yaml")
    design = _design()
    demand = around_figures(years=YEARS, figures={"core_hours": [2.0e6, 2.0e6]},
                            sigma_per_year={"core_hours": 0.12}, n_paths=100, seed=0)
    result, _ = plan_for_service_level(design, catalog, demand, 0.9, node_types=["haswell"],
                                       storage_systems=["ibm-gss26"], mip_rel_gap=0.0)
    assert result.evaluation is not None
    for y in result.evaluation.years:
        required = next(c.required for c in y.checks if c.name == "core_hours")
        assert required == pytest.approx(2.0e6)
