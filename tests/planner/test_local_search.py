"""The storage search of the second solver process: plans feasible for the full model, found from worse ones."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import planner.designs.optimize as opt
from planner.designs import local_search
from planner.designs.confidence import plan_for_service_level
from planner.designs.highs import Arrays, highs_for
from planner.designs.local_search import StorageSearch
from planner.hardware.catalog import Catalog, load_catalog
from tests.planner.test_service_level import _design, _enumerate, _paths

ROOT = Path(__file__).resolve().parents[2]
CHOICES = {("node", "haswell", 2015): 14, ("node", "haswell", 2016): 4, ("storage", "ibm-gss26", 2015): 2,
           ("storage", "ibm-gss26", 2016): 1, ("storage", "flash-gss", 2015): 3, ("storage", "flash-gss", 2016): 1}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT / "fixtures" / "catalog.yaml")


def _captured(catalog: Catalog, storage_systems: list[str]) -> dict[str, Any]:
    """The two-year disk-and-flash instance of test_second_core on these storage systems: its model as
    arrays, its storage columns and their systems, and the model's constant."""
    base = _paths([2015, 2016], n=10, seed=13, core=2.0e5, tb=500, genomes=1.5)
    demand = replace(base, ingest_tb_per_day=base.genomes_per_day * 2.5)
    design = replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss")
    got: dict[str, Any] = {"design": design, "demand": demand}
    build = opt._build

    def keep_build(*args: Any, **kwargs: Any) -> Any:
        out = build(*args, **kwargs)
        got["const"] = out[3]
        return out

    def keep(m: Any, storage: list[int], *args: Any) -> tuple[None, Arrays]:
        got["arr"], got["storage"] = Arrays.of(m), np.asarray(storage, dtype=np.int64)
        got["systems"] = args[2] if len(args) > 2 else None
        return None, got["arr"]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(opt, "_build", keep_build)
        mp.setattr(opt, "start_second_core", keep)
        plan_for_service_level(design, catalog, demand, 0.7, node_types=["haswell"],
                               storage_systems=storage_systems, mip_rel_gap=0.0, confidence=None)
    return got


@pytest.fixture(scope="module")
def instance(catalog: Catalog) -> dict[str, Any]:
    """The two-year disk-and-flash instance of test_second_core, its model as arrays and its storage columns."""
    got = _captured(catalog, ["ibm-gss26", "flash-gss"])
    got["optimum_npv"] = _enumerate(got["design"], catalog, got["demand"], 0.7, CHOICES)
    return got


def _search(instance: dict[str, Any]) -> StorageSearch:
    return StorageSearch(instance["arr"], instance["storage"], list(instance["systems"]),
                         deadline=time.perf_counter() + 60.0, plan_time_s=10.0)


def _feasible(arr: Arrays, x: np.ndarray) -> bool:
    h = highs_for(arr, 10.0, 0.0, lb=np.round(x) * arr.integ + arr.lb * (1 - arr.integ),
                  ub=np.round(x) * arr.integ + arr.ub * (1 - arr.integ))
    h.run()
    info = h.getInfo()
    return bool(info.primal_solution_status == 2 and info.objective_function_value <= x @ arr.cost * (1 + 1e-9))


def test_the_storage_columns_come_with_their_systems(instance: dict[str, Any]) -> None:
    assert sorted(set(instance["systems"])) == ["flash-gss", "ibm-gss26"]
    assert len(instance["systems"]) == len(instance["storage"]) == 4


def test_the_local_search_finds_the_enumerated_optimum_from_a_worse_storage_purchase(instance: dict[str, Any]) -> None:
    search = _search(instance)
    # two flash units and one disk unit bought every year: feasible (more than enough), far from the cheapest
    worse = tuple(2 if name == "flash-gss" else 1 for name in instance["systems"])
    assert search.plan(worse) > 0
    start = search.best_fun
    note = search.run([worse])
    assert search.best_fun < start
    assert search.best_fun + instance["const"] == pytest.approx(instance["optimum_npv"], rel=1e-9), note
    assert search.best_x is not None and _feasible(instance["arr"], search.best_x)


def test_crossover_mixes_whole_systems_between_two_plans(instance: dict[str, Any]) -> None:
    search = _search(instance)
    systems = instance["systems"]
    a = tuple(1 if name == "ibm-gss26" else 0 for name in systems)
    b = tuple(2 if name == "ibm-gss26" else 1 for name in systems)
    children = set(search.crossovers([a, b]))
    mixed = {tuple(a[i] if name == "ibm-gss26" else b[i] for i, name in enumerate(systems)),
             tuple(b[i] if name == "ibm-gss26" else a[i] for i, name in enumerate(systems))}
    assert children == mixed


def test_crossover_with_a_relaxation_mixes_each_plan_with_each_relaxed_solution_only(instance: dict[str, Any]) -> None:
    search = _search(instance)
    plans = [(0, 0, 1, 0), (0, 0, 2, 0)]  # these two differ in one system only: no child of their own
    relaxed = [(1, 1, 1, 0)]  # differs from the first plan in the flash only, from the second in both
    assert search.crossovers(plans) == []
    assert set(search.crossovers(relaxed, plans)) == {(0, 0, 1, 0), (1, 1, 2, 0)}


def test_a_purchase_whose_lp_cannot_beat_the_best_plan_is_never_solved(instance: dict[str, Any]) -> None:
    """The LP with the storage fixed relaxes the storage-fixed model: a valid filter, not a heuristic one."""
    search = _search(instance)
    search.cutoff = lambda: 0.0  # a (pretend) plan elsewhere that nothing here can beat
    assert not search.try_best_of([(2, 2, 1, 1), (1, 1, 1, 1)])
    assert search.solved == {} and search.best_fun == math.inf


def test_the_neighbours_move_one_unit(instance: dict[str, Any]) -> None:
    search = _search(instance)
    key = (1, 0, 0, 0)
    for other in search.neighbours(key):
        diff = np.subtract(other, key)
        assert np.abs(diff).sum() in (1, 2) and diff.sum() in (-1, 0, 1) and min(other) >= 0


def test_a_local_round_tries_every_move_the_lp_lets_through_not_only_the_best_ranked(
        instance: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """First improvement over the whole filtered neighbourhood: a move ranked past the first few by its LP
    is still solved when the better-ranked ones do not improve (as on bench_service_level's seed 51)."""
    search = _search(instance)
    worse = tuple(3 if name == "flash-gss" else 2 for name in instance["systems"])  # far more than enough
    search.plan(worse)
    ranked = sorted((search.lp_value(k), k) for k in dict.fromkeys(search.neighbours(worse)))
    below = [k for v, k in ranked if v < search.threshold()]
    assert len(below) > 4
    last = below[-1]  # the move the LP ranks worst among those it lets through
    tried: list[tuple[int, ...]] = []
    real = StorageSearch.plan

    def plan(self: StorageSearch, key: tuple[int, ...], start: Any = None, **kw: Any) -> float:
        tried.append(key)
        if key != last:  # every better-ranked move "fails": only the last one is really solved
            self.solved[key] = math.inf
            return math.inf
        return real(self, key, start, **kw)

    monkeypatch.setattr(StorageSearch, "plan", plan)
    search.run([worse])
    assert last in tried and len(tried) >= len(below)


def test_a_descent_from_storage_that_is_no_plan_reaches_the_enumerated_optimum(
        instance: dict[str, Any]) -> None:
    """One flash unit short of any plan (as the storage-only relaxation's optimum can be, its levels
    fractional): the descent starts with no cost of its own and takes the first feasible neighbour."""
    search = _search(instance)
    short = tuple(1 if i in (0, 2) else 0 for i in range(len(instance["systems"])))
    assert search.plan(short, bound=math.inf) == math.inf
    fun, steps = search.descend(short)
    assert steps >= 1
    assert fun == search.best_fun
    assert fun + instance["const"] == pytest.approx(instance["optimum_npv"], rel=1e-9)
    assert search.best_x is not None and _feasible(instance["arr"], search.best_x)


def test_a_descent_walks_through_plans_dearer_than_the_best_known(instance: dict[str, Any]) -> None:
    """Its own current cost, not the best plan's, decides a step: from far above, every step is dearer
    than the plan already known and it still goes on to the optimum."""
    search = _search(instance)
    systems = instance["systems"]
    near = tuple(2 if name == "flash-gss" and i == 0 else (1 if i in (1, 2) else 0)
                 for i, name in enumerate(systems))  # one flash unit too many in the second year
    known_fun = search.plan(near, bound=math.inf)
    far = (3, 3, 2, 2)
    far_fun = search.plan(far, bound=math.inf)
    assert far_fun > known_fun
    accepted: list[float] = []
    real = StorageSearch.plan

    def plan(self: StorageSearch, key: tuple[int, ...], start: Any = None, bound: float | None = None) -> float:
        got = real(self, key, start, bound)
        if bound is not None and got < bound:
            accepted.append(got)
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(StorageSearch, "plan", plan)
        fun, _ = search.descend(far)
    assert any(f > known_fun for f in accepted)  # steps dearer than the best plan, taken anyway
    assert fun + instance["const"] == pytest.approx(instance["optimum_npv"], rel=1e-9)


def test_a_model_cut_at_a_bound_is_solved_again_for_a_higher_one(instance: dict[str, Any]) -> None:
    search = _search(instance)
    key = (2, 1, 1, 0)
    assert search.plan(key, bound=1.0) == math.inf  # nothing costs less than 1: cut, not infeasible
    assert search.known(key, 1.0) and not search.known(key, math.inf)
    assert math.isfinite(search.plan(key, bound=math.inf))
    assert search.known(key, 0.0) and search.known(key, math.inf)


def test_shift_pairs_move_two_units_each_to_an_adjacent_year_of_its_own_system(instance: dict[str, Any]) -> None:
    search = _search(instance)
    systems = instance["systems"]
    key = (1, 1, 1, 1)
    pairs = list(search.shift_pairs(key))
    assert pairs
    for other in pairs:
        diff = np.subtract(other, key)
        assert diff.sum() == 0 and np.abs(diff).sum() in (2, 4) and min(other) >= 0
        for name in set(systems):  # each system keeps its units: only their years change
            assert sum(d for d, s in zip(diff, systems, strict=True) if s == name) == 0
    # both systems' units moved a year later at once (from 2015 to 2016)
    both_later = tuple(0 if i % 2 == 0 else 2 for i in range(4))
    assert both_later in pairs


def test_a_descent_takes_a_pair_of_shifts_where_no_single_move_is_cheaper(
        instance: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where every single move fails, the descent tries the shift pairs (as on bench_service_level's
    seed 71, whose optimum is two shifts from where single moves stop)."""
    search = _search(instance)
    systems = instance["systems"]
    start = (3, 0, 2, 0)  # everything bought in the first year, a unit of each more than needed then
    later = (2, 1, 1, 1)  # a unit of each system a year later: cheaper (discounted), still enough
    assert later in set(search.shift_pairs(start)) and later not in set(search.neighbours(start))
    monkeypatch.setattr(StorageSearch, "neighbours", lambda self, key: iter(()))  # no single move ever
    fun, steps = search.descend(start)
    assert steps >= 1
    assert search.best_key is not None
    moved = np.subtract(search.best_key, start)
    for name in set(systems):  # only shifts were taken: each system keeps its units
        assert sum(d for d, s in zip(moved, systems, strict=True) if s == name) == 0
    assert fun <= search.solved[later] < search.solved[start]


def test_a_descent_step_takes_the_cheapest_of_the_first_cheaper_move_and_a_few_after_it(
        instance: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The LP's order only guides: after the first move cheaper than the current point, LOOKAHEAD more are
    solved and the cheapest taken (on bench_service_level seed 131 the optimum was the LP's fourth move
    from the relaxation's vector, the second the first cheaper one)."""
    from planner.designs import local_search

    search = _search(instance)
    moves = [(0, 0, 0, i) for i in range(1, 9)]
    lp = {k: 0.1 * i for i, k in enumerate(moves)}  # a lower bound on each plan's cost, in the listed order
    cost = dict(zip(moves, [50.0, 9.0, 12.0, 5.0, 1.0, 0.6, 0.7, 0.8], strict=True))
    solved: list[tuple[int, ...]] = []

    def plan(self: StorageSearch, key: tuple[int, ...], start: Any = None, bound: float | None = None) -> float:
        solved.append(key)
        return cost[key]

    monkeypatch.setattr(StorageSearch, "lp_value", lambda self, key: lp[key])
    monkeypatch.setattr(StorageSearch, "plan", plan)
    monkeypatch.setattr(local_search, "LOOKAHEAD", 3)
    assert search._step((9, 9, 9, 9), 10.0, iter(moves)) == (1.0, moves[4])
    assert solved == moves[:5]  # the first cheaper one (9.0), then three more; not the rest
    solved.clear()
    monkeypatch.setattr(local_search, "LOOKAHEAD", 0)  # plain first improvement
    assert search._step((9, 9, 9, 9), 10.0, iter(moves)) == (9.0, moves[1])


def _record_gaps(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """The gap each storage-fixed model is solved to, in order (None: PLAN_GAP), from now on."""
    gaps: list[float | None] = []
    real = StorageSearch.plan

    def plan(self: StorageSearch, key: tuple[int, ...], start: Any = None, bound: Any = None,
             gap: float | None = None) -> float:
        gaps.append(gap)
        return real(self, key, start, bound, gap)

    monkeypatch.setattr(StorageSearch, "plan", plan)
    return gaps


def test_models_solved_loosely_during_the_search_the_best_one_exactly_at_the_end(
        instance: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Storage-fixed models stop at PLAN_GAP while the search ranks vectors; the best vector's model is then
    solved to EXACT_GAP from its plan, so the plan returned is that model's optimum (here: the enumerated one)."""
    gaps = _record_gaps(monkeypatch)
    monkeypatch.setattr(local_search, "PLAN_GAP", 0.5)  # HiGHS keeps its first plan within 50 %
    search = _search(instance)
    worse = tuple(2 if name == "flash-gss" else 1 for name in instance["systems"])
    search.plan(worse)
    search.run([worse])
    assert gaps[-1] == local_search.EXACT_GAP and all(g is None for g in gaps[:-1])
    assert search.best_key is not None and search.best_x is not None
    exact = _search(instance).plan(search.best_key, bound=math.inf, gap=0.0)
    assert search.best_fun == pytest.approx(exact, rel=1e-6)
    assert search.best_fun + instance["const"] == pytest.approx(instance["optimum_npv"], rel=1e-9)
    assert _feasible(instance["arr"], search.best_x)


def test_swaps_move_every_unit_of_one_system_to_another_year_for_year(instance: dict[str, Any]) -> None:
    search = _search(instance)
    systems = instance["systems"]
    key = tuple(1 if name == "ibm-gss26" and i % 2 == 0 else 0 for i, name in enumerate(systems))  # disk, 2015
    swapped = list(search.swaps(key))
    assert swapped == [tuple(1 if name == "flash-gss" and i % 2 == 0 else 0 for i, name in enumerate(systems))]
    # columns aligned at the horizon's end: a system sold from the second year only takes the second year's units
    late = StorageSearch(instance["arr"], instance["storage"][:3], ["a", "a", "b"], deadline=time.perf_counter() + 60,
                         plan_time_s=10.0)
    assert list(late.swaps((0, 2, 0))) == [(0, 0, 2)]
    assert list(late.swaps((1, 2, 0))) == []  # a's first-year unit has nowhere to go
    assert list(late.swaps((0, 0, 3))) == [(0, 3, 0)]


@pytest.fixture(scope="module")
def siblings(catalog: Catalog) -> dict[str, Any]:
    """The instance with a sibling of the disk system: the same units for 20 % less."""
    cheap = replace(catalog.storage_systems["ibm-gss26"], name="ibm-gss26-b",
                    price_usd=round(catalog.storage_systems["ibm-gss26"].price_usd * 0.8))
    cat = replace(catalog, storage_systems=catalog.storage_systems | {"ibm-gss26-b": cheap})
    got = _captured(cat, ["ibm-gss26", "ibm-gss26-b", "flash-gss"])
    got["dear"] = tuple({"ibm-gss26": 2, "flash-gss": 2}.get(name, 0) for name in got["systems"])  # more than enough
    return got


def test_a_descent_from_a_system_swap_leaves_a_local_optimum_single_moves_cannot(
        siblings: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """From a plan on the dear disk system, with no single move or shift pair allowed (the search stuck as on
    bench_service_level path seed 41, where flash-gss-v1 for flash-gss was the way to the optimum), the
    descents from the swaps find the plan on the cheap sibling."""
    got = siblings
    search = _search(got)
    systems, dear = got["systems"], got["dear"]
    start = search.plan(dear, bound=math.inf)
    assert math.isfinite(start)
    monkeypatch.setattr(StorageSearch, "neighbours", lambda self, key: iter(()))
    monkeypatch.setattr(StorageSearch, "shift_pairs", lambda self, key: iter(()))
    note = search.run([dear])
    assert "descents from system swaps" in note
    assert search.best_fun < start and search.best_key is not None and search.best_x is not None
    on = {name: sum(v for v, s in zip(search.best_key, systems, strict=True) if s == name) for name in set(systems)}
    # the sibling's counts from the LP, rounded up (swap_starts): no dearer than the swap year for year (4 units)
    assert on["ibm-gss26"] == 0 and 1 <= on["ibm-gss26-b"] <= 4
    cheap = [i for i, s in enumerate(systems) if s == "ibm-gss26-b"]
    year_for_year = next(k for k in search.swaps(dear) if any(k[i] for i in cheap))
    assert search.best_fun <= _search(got).plan(year_for_year, bound=math.inf) * (1 + 1e-9)
    assert _feasible(got["arr"], search.best_x)


def test_a_swap_to_smaller_units_takes_the_counts_the_lp_needs(catalog: Catalog) -> None:
    """A sibling of the disk system with a quarter of the capacity a unit (cheaper a TB): the optimum's disk moved
    to it year for year leaves a year short (no plan), so that swap was never descended from (bench_service_level
    path seed 151: ibm-gss26-v2 to ibm-gss26); the start from the LP with the sibling's counts free has more units
    and is a plan."""
    disk = catalog.storage_systems["ibm-gss26"]
    small = replace(disk, name="ibm-gss26-q", raw_tb=disk.raw_tb / 4, usable_tb=disk.usable_tb / 4,
                    price_usd=round(disk.price_usd * 0.24), power_w=disk.power_w / 4,
                    throughput_gbps=disk.throughput_gbps / 4, metadata_iops=disk.metadata_iops / 4)
    got = _captured(replace(catalog, storage_systems=catalog.storage_systems | {"ibm-gss26-q": small}),
                    ["ibm-gss26", "ibm-gss26-q", "flash-gss"])
    systems = got["systems"]
    search = _search(got)
    at = {name: [i for i, s in enumerate(systems) if s == name] for name in set(systems)}
    optimum = [0] * len(systems)
    for (_, name, year), n in CHOICES.items():
        if name in at:
            optimum[at[name][year - 2015]] = n
    key = tuple(optimum)
    assert math.isfinite(search.plan(key, bound=math.inf))

    def moved_to_small(k: tuple[int, ...]) -> bool:
        return all(k[i] == 0 for i in at["ibm-gss26"]) and all(k[i] == key[i] for i in at["flash-gss"])

    plain = next(k for k in search.swaps(key) if moved_to_small(k))
    assert search.lp_value(plain) == math.inf  # year for year: a year short
    start = next(k for _, k in search.swap_starts(key) if moved_to_small(k))
    assert sum(start[i] for i in at["ibm-gss26-q"]) > sum(plain[i] for i in at["ibm-gss26-q"])
    assert math.isfinite(search.lp_value(start)) and math.isfinite(search.plan(start, bound=math.inf))


def test_the_best_model_is_not_refined_when_a_plan_elsewhere_costs_no_more_than_its_dual_bound(
        instance: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Refining could not find a plan below the model's dual bound: when another process's plan is there already,
    the refine is skipped (the main process waited for it after the gap was met); otherwise it runs."""
    gaps = _record_gaps(monkeypatch)
    monkeypatch.setattr(local_search, "PLAN_GAP", 0.5)  # a loose first solve, so its dual bound is well below
    worse = tuple(2 if name == "flash-gss" else 1 for name in instance["systems"])
    search = _search(instance)
    search.plan(worse)
    assert search.best_floor <= search.best_fun
    search.cutoff = lambda: search.best_floor  # a plan elsewhere at that model's dual bound
    search.refine()
    assert gaps == [None]
    search.cutoff = lambda: search.best_floor + 0.01 * abs(search.best_floor) + 1.0  # above it: worth refining
    search.refine()
    assert gaps == [None, local_search.EXACT_GAP]
    offered = _search(instance)
    offered.offer(search.best_x)  # a plan from elsewhere: its model's bound is unknown here, so it is refined
    offered.cutoff = lambda: 0.0
    gaps.clear()
    offered.refine()
    assert gaps == [local_search.EXACT_GAP]
