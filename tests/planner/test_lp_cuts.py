"""The storage search's LP bounded from the LPs already solved: never above the LP, the same order, fewer LPs."""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import highspy
import numpy as np

from planner.designs.highs import highs_for
from planner.designs.local_search import StorageSearch
from planner.designs.lp_cuts import LpCuts, in_lp_order
from tests.planner.test_local_search import catalog, instance  # noqa: F401 (fixtures)


def _search(got: dict[str, Any]) -> StorageSearch:
    return StorageSearch(got["arr"], got["storage"], list(got["systems"]),
                         deadline=time.perf_counter() + 60.0, plan_time_s=10.0)


def _grid() -> list[tuple[int, ...]]:
    return list(itertools.product(range(4), repeat=4))  # 256 storage vectors of the two-system instance


def _lp(got: dict[str, Any], key: tuple[int, ...]) -> float:
    """The LP with the storage fixed, in an instance of its own (no basis, no cut)."""
    arr, storage = got["arr"], got["storage"]
    lb, ub = arr.lb.copy(), arr.ub.copy()
    lb[storage] = ub[storage] = np.asarray(key, dtype=float)
    h = highs_for(arr, 10.0, 0.0, integer=np.zeros(len(arr.cost), dtype=bool), lb=lb, ub=ub)
    h.run()
    ok = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return float(h.getInfo().objective_function_value) if ok else math.inf


def test_the_cuts_never_bound_an_lp_above_its_value_and_never_rule_out_a_feasible_one(
        instance: dict[str, Any]) -> None:  # noqa: F811 (the fixture imported above)
    """Every LP of the grid solved in turn adds its cut; each vector's bound from the cuts of the others (taken
    before its own LP) is at most its LP, infinite only where its LP is infeasible, and the cuts do bound."""
    search = _search(instance)
    exact = {k: _lp(instance, k) for k in _grid()}
    assert 0 < sum(math.isinf(v) for v in exact.values()) < len(exact)  # some a year short, some plans
    ruled_out = tightened = 0
    for k in _grid():
        bound = search._bound(k)
        assert bound <= exact[k] + 1e-6 * abs(exact[k] if math.isfinite(exact[k]) else 1.0)
        ruled_out += math.isinf(bound) and bound > 0
        tightened += math.isfinite(bound) and bound > 0.99 * exact[k]
        assert search.lp_value(k) == exact[k] or abs(search.lp_value(k) - exact[k]) <= 1e-6 * abs(exact[k])
    assert ruled_out > 0 and tightened > 0


def test_an_infeasible_lps_cut_is_kept_only_when_it_rules_that_vector_out(
        instance: dict[str, Any]) -> None:  # noqa: F811 (the fixture imported above)
    cuts = LpCuts(instance["arr"], instance["storage"])
    key = next(k for k in _grid() if math.isinf(_lp(instance, k)))
    assert not cuts.infeasible(key, np.zeros(len(instance["arr"].rlb)))  # no ray: no cut
    assert cuts.bound(key) == -math.inf
    search = _search(instance)
    assert search.lp_value(key) == math.inf and search._bound(key) == math.inf  # its own ray rules it out
    ray = search._lp.getDualRay()[2]
    feasible = next(k for k in _grid() if math.isfinite(_lp(instance, k)))
    assert not cuts.infeasible(feasible, ray) and cuts.bound(feasible) == -math.inf  # never a feasible one
    assert cuts.infeasible(key, ray) and cuts.bound(key) == math.inf


def test_the_lazy_order_is_the_lps_order_and_solves_fewer_lps_for_the_front(
        instance: dict[str, Any]) -> None:  # noqa: F811 (the fixture imported above)
    """Sorting every candidate by its LP and the lazy order agree, candidate for candidate; taking only the
    first few solves fewer LPs than there are candidates (those behind them are bounded, not solved)."""
    keys = _grid()
    full = sorted((v, k) for k in keys if (v := _lp(instance, k)) < math.inf)
    bound = full[len(full) // 2][0]  # a cost bound that rules out the dearer half
    below = [(v, k) for v, k in full if v < bound]
    search = _search(instance)
    search.lp_value((3, 3, 3, 3))  # one LP solved before: its cut bounds the rest
    ranked, cheaper = search._rank(keys, bound)
    got = list(ranked)
    assert cheaper == []
    assert [k for _, k in got] == [k for _, k in below]
    assert np.allclose([v for v, _ in got], [v for v, _ in below], rtol=1e-9)
    fresh = _search(instance)
    fresh.lp_value((3, 3, 3, 3))
    first = list(itertools.islice(fresh._rank(keys, bound)[0], 3))
    assert first == got[:3] and fresh.lp_count < len(keys) // 2


def test_in_lp_order_solves_a_candidate_only_when_its_bound_comes_first() -> None:
    lp = {(0,): 5.0, (1,): 3.0, (2,): 9.0, (3,): 4.0}
    lower = {(0,): 4.0, (1,): 1.0, (2,): 8.0, (3,): 2.0}
    solved: list[tuple[int, ...]] = []

    def value(k: tuple[int, ...]) -> float:
        solved.append(k)
        return lp[k]

    heap = [(lower[k], k, False) for k in lp]
    order = in_lp_order(heap, 8.0, value, lambda k: lower[k], lambda: False)
    assert next(order) == (3.0, (1,))
    assert solved == [(1,), (3,)]  # (3,)'s bound 2 was below (1,)'s LP 3; (0,) and (2,) not yet
    assert list(order) == [(4.0, (3,)), (5.0, (0,))]
    assert (2,) not in solved  # its bound (8) is not below the cost bound (8): ruled out unsolved
    solved.clear()
    assert list(in_lp_order([(lower[k], k, False) for k in lp], 9.5, value, lambda k: lower[k], lambda: False)) \
        == [(3.0, (1,)), (4.0, (3,)), (5.0, (0,)), (9.0, (2,))]
