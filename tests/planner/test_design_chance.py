"""The chance a design is enough: probabilities are direct counts over the paths, joint per year."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from forecasts.demand.paths import DemandPaths
from planner.designs.chance import available_from_evaluation, chances


def _paths(core: np.ndarray, storage: np.ndarray | None = None, genomes: np.ndarray | None = None) -> DemandPaths:
    z = np.zeros_like(core)
    return DemandPaths(years=[2027, 2028][: core.shape[1]], core_hours=core,
                       storage_tb=storage if storage is not None else z,
                       genomes_per_day=genomes if genomes is not None else z, ingest_tb_per_day=z)


def test_probability_and_expected_shortfall_on_known_paths() -> None:
    core = np.array([[80.0], [90.0], [100.0], [110.0], [130.0]])
    report = chances(years=[2027], available={"core_hours": {2027: 100.0}}, demand=_paths(core))
    c = report.year(2027).constraints[0]
    assert c.probability == 0.6  # 80, 90, 100 fit
    assert c.expected_shortfall == 20.0  # (10 + 30) / 2
    assert report.year(2027).all_constraints == 0.6


def test_all_constraints_is_counted_path_by_path_not_multiplied() -> None:
    core = np.array([[1.0], [3.0], [1.0], [3.0]])
    storage = np.array([[1.0], [3.0], [3.0], [1.0]])  # the same paths short on both in rows 1
    report = chances(years=[2027], available={"core_hours": {2027: 2.0}, "storage_tb": {2027: 2.0}},
                     demand=_paths(core, storage))
    assert report.probability("core_hours", 2027) == 0.5
    assert report.probability("storage_tb", 2027) == 0.5
    assert report.year(2027).all_constraints == 0.25  # row 0 only; 0.5 x 0.5 by coincidence here
    core2 = np.array([[1.0], [3.0], [1.0], [3.0]])
    report2 = chances(years=[2027], available={"core_hours": {2027: 2.0}, "storage_tb": {2027: 2.0}},
                      demand=_paths(core2, core2.copy()))  # perfectly correlated: joint = 0.5, not 0.25
    assert report2.year(2027).all_constraints == 0.5


def test_a_constraint_with_no_demand_on_any_path_is_not_judged() -> None:
    report = chances(years=[2027], available={"core_hours": {2027: 1.0}, "genomes_per_day": {2027: 0.0}},
                     demand=_paths(np.array([[0.5]])))
    assert [c.constraint for c in report.year(2027).constraints] == ["core_hours"]


def test_every_year_needs_the_same_path_to_hold_in_each_year() -> None:
    core = np.array([[1.0, 3.0], [3.0, 1.0], [1.0, 1.0]])
    report = chances(years=[2027, 2028], available={"core_hours": {2027: 2.0, 2028: 2.0}}, demand=_paths(core))
    assert report.probability("core_hours", 2027) == report.probability("core_hours", 2028) == 2 / 3
    assert report.every_year == 1 / 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=40), st.floats(0, 1e6, allow_nan=False))
def test_probability_equals_a_direct_count(values: list[float], capacity: float) -> None:
    core = np.array(values)[:, None]
    report = chances(years=[2027], available={"core_hours": {2027: capacity}}, demand=_paths(core))
    if not np.any(core > 0):
        assert report.year(2027).constraints == []
        return
    # a capacity short by float rounding only (within 1e-12 relative, chance.py) counts as enough
    expected = sum(v <= capacity * (1 + 1e-12) for v in values) / len(values)
    assert abs(report.probability("core_hours", 2027) - expected) < 1e-12


def test_capacity_is_read_from_an_evaluation_dict() -> None:
    ev = {"years": [{"year": 2027, "normalised_core_hours_at_target": 5.0, "plannable_tb": 6.0,
                     "genomes_per_day_capacity": 7.0, "flash_tb": 8.0}]}
    assert available_from_evaluation(ev) == {"core_hours": {2027: 5.0}, "storage_tb": {2027: 6.0},
                                             "genomes_per_day": {2027: 7.0}, "flash_tb": {2027: 8.0}}
