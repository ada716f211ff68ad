"""Corners raised to the capacities whole units reach: never above what a plan has, and a valid relaxation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from planner.designs.corners import corners
from planner.designs.unit_lattice import Raise, UnitRow, pareto, raised, unit_row
from planner.hardware.catalog import Catalog
from tests.planner.test_hull_cuts import bound, small_flash_model, storage_integer
from tests.planner.test_service_level import _design, _paths, catalog  # noqa: F401 - the fixture


def _reachable(fixed: float, sizes: list[float], top: float) -> list[float]:
    """Every fixed + whole units of ``sizes`` up to ``top``, by brute force."""
    most = [int(top // s) + 1 for s in sizes]
    return sorted({fixed + sum(n * s for n, s in zip(ns, sizes, strict=True))
                   for ns in itertools.product(*(range(m + 1) for m in most))})


def test_a_requirement_is_raised_to_the_least_capacity_whole_units_reach_and_no_further() -> None:
    rng = np.random.default_rng(5)
    for sizes, fixed, upper in (([20.0, 22.0], 0.0, 118.6), ([16.0, 37.5], 30.0, 250.0), ([7.0], 3.0, 60.0)):
        row = UnitRow(fixed, {j: s for j, s in enumerate(sizes)}, upper)
        up = Raise(row)
        assert up.sums is not None
        values = _reachable(fixed, sizes, upper + max(sizes))
        for need in rng.uniform(fixed - 5.0, upper, size=300):
            got = up.of(float(need))
            least = min(v for v in values if v >= need - 1e-9)
            assert need - 1e-9 <= got <= min(least, upper) + 1e-9  # a plan's R (its capacity, capped) is never below
            assert got == pytest.approx(max(min(least, upper), need))  # and it is that capacity exactly


def test_rows_that_are_not_whole_units_are_left_as_they_are() -> None:
    integ = np.array([1, 1, 0, 1], dtype=np.int8)
    lower = np.zeros(4)
    assert unit_row(integ, lower, {0: 20.0, 1: 22.0, 3: -1.0}, 3, 0.0, 100.0) is not None
    assert unit_row(integ, lower, {0: 20.0, 2: 1.0, 3: -1.0}, 3, 0.0, 100.0) is None  # a continuous column
    assert unit_row(integ, lower, {0: 20.0, 1: -22.0, 3: -1.0}, 3, 0.0, 100.0) is None  # a negative coefficient
    assert unit_row(integ, np.array([0.0, -2.0, 0.0, 0.0]), {0: 20.0, 1: 22.0, 3: -1.0}, 3, 0.0, 100.0) is None
    many = Raise(UnitRow(0.0, {0: 1.6, 1: 300.0}, 9_000.0))  # thousands of small units: nearly continuous
    assert many.sums is None and many.of(1234.5) == 1234.5


def test_every_plan_dominates_a_raised_corner() -> None:
    """A plan covering k paths has capacities at or above a corner; on the raised columns they are sums of whole
    units, and its R (the capacities, capped at R's upper bound) dominates a raised corner."""
    rng = np.random.default_rng(8)
    paths = rng.lognormal(0, 0.25, size=(50, 3)) * np.array([100.0, 80.0, 5.0])
    k = 40
    pts = corners(paths, k)
    assert pts is not None
    sizes, upper = [20.0, 22.0], float(paths[:, 1].max())
    up = Raise(UnitRow(0.0, {0: 20.0, 1: 22.0}, upper))
    got = raised(pts, [None, up, None])
    assert not np.array_equal(got, pts) and np.all(pareto(got) == got)
    values = np.array(_reachable(0.0, sizes, upper + 22.0))
    for _ in range(300):
        covered = paths[rng.choice(50, size=k, replace=False)].max(axis=0)
        r = covered.copy()
        r[1] = min(float(values[values >= covered[1] - 1e-9].min()), upper)
        assert np.any(np.all(got <= r[None, :] + 1e-9, axis=1))


def test_the_relaxation_with_raised_corners_stays_below_the_optimum(catalog: Catalog,  # noqa: F811
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process's relaxation built as it builds it, with the corners raised to whole flash units: on
    small instances its LP is at least the LP without raising, and its bound (storage integer, or every
    integer) never exceeds the full model's optimum, solved to the end."""
    import planner.designs.hull_cuts as hc
    import planner.designs.service_level as sl
    from planner.designs.second_core import Relaxation

    monkeypatch.setattr(sl, "MAX_CORNERS", 0)  # the level formulation
    changed = 0
    for seed in (9, 21, 33, 45):
        plain, var, sla = small_flash_model(catalog, seed, ingest_tb_per_genome=6.0)
        sets = sla.joint_sets()
        assert sets and all(len(js.capacity_rows) == len(js.r_cols) for js in sets)
        ups = hc.raised_corners(plain, sets)
        changed += sum(not np.array_equal(u, js.corners) for u, js in zip(ups, sets, strict=True))
        relax = Relaxation.of(plain, sla.pair_hulls(), sets)
        up_arr, _ = hc.with_cuts(relax.arrays, relax.sets)
        monkeypatch.setattr(hc, "RAISE", False)
        flat_arr, _ = hc.with_cuts(Relaxation.of(plain, sla.pair_hulls(), sets).arrays, sets)
        monkeypatch.setattr(hc, "RAISE", True)
        storage = storage_integer(len(up_arr.cost), var)
        optimum = bound(plain, None)
        assert bound(up_arr, storage) <= optimum * (1 + 1e-9)
        assert bound(up_arr, None) <= optimum * (1 + 1e-9)
        none = np.zeros(len(up_arr.cost), dtype=bool)
        assert bound(up_arr, none) >= bound(flat_arr, np.zeros(len(flat_arr.cost), dtype=bool)) * (1 - 1e-7)
    assert changed  # the raising did something on these instances
