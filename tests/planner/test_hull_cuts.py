"""Corner cuts of a year's joint chance set: valid for every plan, violated by the LP point they cut."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from planner.designs.confidence import design_on_paths
from planner.designs.corners import corners
from planner.designs.highs import highs_for
from planner.designs.hull_cuts import facets, separate, with_cuts
from planner.designs.service_level import ServiceLevel, requirement_paths
from planner.hardware.catalog import Catalog
from tests.planner.test_service_level import _design, _paths, catalog  # noqa: F401 - the fixture


def bound(arr: object, integer: np.ndarray | None) -> float:
    """The model's optimum (every integer whole: ``integer`` None), its bound with only ``integer`` whole, or its
    LP (no column whole), solved to the end: what a relaxation's rows are checked against."""
    h = highs_for(arr, 60, 0.0, integer=integer)
    h.run()
    info = h.getInfo()
    return float(info.mip_dual_bound if integer is None or integer.any() else info.objective_function_value)


def small_flash_model(cat: Catalog, seed: int, ingest_tb_per_genome: float) -> tuple[object, dict, ServiceLevel]:
    """A two-year 80 % service-level model on 40 paths that buys flash for 7 days of ingest (the level
    formulation, when the caller has set service_level.MAX_CORNERS to 0): its arrays, columns and chance sets."""
    from planner.designs.optimize import _build, resolve_assets
    from planner.hardware.costmodel import CostModel

    base = _paths([2015, 2016], n=40, seed=seed, core=4.0e5, tb=900, genomes=1.5)
    demand = replace(base, ingest_tb_per_day=base.genomes_per_day * ingest_tb_per_genome)
    design = replace(design_on_paths(replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss"),
                                     demand), purchases=[])
    sla = ServiceLevel(alpha=0.8, years=[2015, 2016], required=requirement_paths(demand, flash_days=7))
    m, var, _, _ = _build(design, cat, CostModel(cat), ["haswell", "ivy-bridge"],
                          ["ibm-gss26", "flash-gss"], resolve_assets(design, cat), 5000, "", sla)
    return m.arrays(), var, sla


def storage_integer(n: int, var: dict) -> np.ndarray:
    """The integrality mask with the storage purchases alone whole."""
    mask = np.zeros(n, dtype=bool)
    mask[[j for (kind, _, _), j in var.items() if kind == "storage"]] = True
    return mask

def test_a_point_outside_the_corners_hull_is_cut_and_every_corner_kept() -> None:
    rng = np.random.default_rng(3)
    paths = rng.lognormal(0, 0.3, size=(60, 3))
    pts = corners(paths, 50)
    assert pts is not None and len(pts) > 3
    mean = pts.mean(axis=0)
    assert separate(pts, mean) is None  # a convex combination of corners is inside
    low = pts.min(axis=0)  # below every corner on every axis: far outside
    cut = separate(pts, low)
    assert cut is not None
    w, rhs = cut
    assert np.all(w >= 0) and w @ low < rhs
    assert np.all(pts @ w >= rhs * (1 - 1e-9))
    # every requirement vector covering 50 paths satisfies it (it dominates a corner)
    for _ in range(200):
        chosen = rng.choice(60, size=50, replace=False)
        assert paths[chosen].max(axis=0) @ w >= rhs * (1 - 1e-9)


def test_cuts_raise_the_lp_and_keep_the_integer_optimum(catalog: Catalog,  # noqa: F811
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.designs.hull_cuts as hc
    import planner.designs.service_level as sl
    from planner.designs.optimize import _build, resolve_assets
    from planner.hardware.costmodel import CostModel

    monkeypatch.setattr(sl, "MAX_CORNERS", 0)  # the level formulation
    monkeypatch.setattr(hc, "FACETS", False)  # the separated cuts (where a year's facets cannot be had)
    base = _paths([2015, 2016], n=40, seed=9, core=4.0e5, tb=900, genomes=1.5)
    demand = replace(base, ingest_tb_per_day=base.genomes_per_day * 2.5)
    design = replace(design_on_paths(replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss"),
                                     demand), purchases=[])
    sla = ServiceLevel(alpha=0.8, years=[2015, 2016], required=requirement_paths(demand, flash_days=7))
    m, _, _, _ = _build(design, catalog, CostModel(catalog), ["haswell", "ivy-bridge"],
                        ["ibm-gss26", "flash-gss"], resolve_assets(design, catalog), 5000, "", sla)
    sets = sla.joint_sets()
    assert sets and all(len(s.r_cols) >= 2 for s in sets)
    plain = m.arrays()
    cut, added = with_cuts(plain, sets)

    def solved(arr: object, lp: bool) -> float:
        h = highs_for(arr, 60, 0.0, integer=np.zeros(len(arr.cost), dtype=bool) if lp else None)  # type: ignore[attr-defined]
        h.run()
        return float(h.getInfo().objective_function_value)

    assert added > 0
    assert solved(cut, True) > solved(plain, True) * (1 + 1e-6)
    assert solved(cut, False) == pytest.approx(solved(plain, False), rel=1e-9)


def test_the_facets_describe_the_corners_hull_exactly() -> None:
    """Every facet holds at every corner and at every requirement vector covering k paths; a point
    satisfies every facet exactly when separation finds no cut (it is in the hull plus the orthant)."""
    rng = np.random.default_rng(11)
    for dims in (2, 3, 4):
        paths = rng.lognormal(0, 0.3, size=(80, dims))
        if dims == 4:  # two constraints ordering the paths alike, as genomes/day and flash do
            paths[:, 3] = paths[:, 2] ** 1.5
        pts = corners(paths, 64)
        assert pts is not None and len(pts) > dims
        found = facets(pts)
        assert found
        w = np.array([f[0] for f in found])
        rhs = np.array([f[1] for f in found])
        assert np.all(w >= 0) and np.all(pts @ w.T >= rhs[None, :])
        for _ in range(200):
            chosen = rng.choice(80, size=64, replace=False)
            assert np.all(w @ paths[chosen].max(axis=0) >= rhs)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        for _ in range(200):
            r = rng.uniform(lo, hi)
            inside = bool(np.all(w @ r >= rhs - 1e-7 * np.abs(rhs)))
            assert inside == (separate(pts, r) is None)


def test_the_relaxation_with_the_facets_stays_below_the_optimum(catalog: Catalog,  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The relaxation the second process proves its bound on, built as it builds it (the pair hulls, then
    ``with_cuts``: the facets of each year's corner hull, the rows tying R to the level binaries freed) is a
    relaxation: on several small instances its bound, with only the storage units integer or with every
    integer kept, never exceeds the full model's optimum (solved to the end), and its LP is at least the LP
    with the separated cuts."""
    import planner.designs.hull_cuts as hc
    import planner.designs.service_level as sl
    from planner.designs.second_core import Relaxation

    monkeypatch.setattr(sl, "MAX_CORNERS", 0)  # the level formulation
    for seed in (9, 21, 33):
        plain, var, sla = small_flash_model(catalog, seed, ingest_tb_per_genome=2.5)
        sets = sla.joint_sets()
        assert sets and all(js.links for js in sets)
        assert sla.pair_hulls() == []  # the facets imply them
        relax = Relaxation.of(plain, sla.pair_hulls(), sets)
        with_facets, added = with_cuts(relax.arrays, relax.sets)
        monkeypatch.setattr(hc, "FACETS", False)
        separated, _ = with_cuts(Relaxation.of(plain, sla.pair_hulls(), sets).arrays, sets)
        monkeypatch.setattr(hc, "FACETS", True)
        assert added > 0 and len(with_facets.rlb) == len(plain.rlb) + added
        storage = storage_integer(len(with_facets.cost), var)
        optimum = bound(plain, None)
        assert bound(with_facets, storage) <= optimum * (1 + 1e-9)
        assert bound(with_facets, None) <= optimum * (1 + 1e-9)
        none = np.zeros(len(with_facets.cost), dtype=bool)
        assert bound(with_facets, none) >= bound(separated, np.zeros(len(separated.cost), dtype=bool)) * (1 - 1e-7)
