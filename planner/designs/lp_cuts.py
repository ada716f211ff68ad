"""Lower bounds on the storage search's LP from the LPs it has already solved (pure core).

The plan search (planner.designs.local_search) ranks candidate storage vectors by the LP with the storage
purchases fixed, and a descent step ranks every neighbour (some 700 on bench_service_level's instance: about
half a descent's time on path seed 151). Most of those LPs need not be solved, since the search only
consumes the front of that order (the first moves cheaper than the current point) and the LPs it has solved
already bound the others from below:

- **Optimality cuts.** The LP's value v(s) as a function of the fixed storage s is convex (s only moves
  bounds), and an optimal dual solution at s0 stays feasible for every other s: v(s) >= v(s0) + d.(s - s0),
  d the fixed columns' reduced costs (weak duality). Each LP solved to optimality adds one such cut.
- **Infeasibility cuts.** An infeasible LP's dual ray y combines the rows into one, y.A x >= L (from the
  rows' bounds), which no x within the columns' bounds meets: with the other columns at the bounds that
  maximise it, a.s + M >= L, a = (y.A) on the storage columns, holds for every s whose LP is feasible. The
  arithmetic here checks the implication for the s that was solved (any y gives a valid one; HiGHS's ray
  only has to be a good one), so a cut never rules out a feasible vector. On seed 151 310 of a local
  optimum's 410 neighbours are infeasible (a year short), and 292 of them are ruled out by earlier cuts.

A candidate whose bound is at or above the search's cost bound is ruled out unsolved, exactly as its LP
would; the others are solved in the order of their bounds, lazily (``local_search.StorageSearch._rank``),
so the order the search sees is the LP's order, unchanged.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from scipy.sparse import csc_array, csr_array

from planner.designs.highs import Arrays

FloatArray = npt.NDArray[np.float64]
K = TypeVar("K", bound=tuple[int, ...])
# The optimality cuts kept (the latest: those from near the search's current point are the tight ones).
MAX_CUTS = 512
# A bound is lowered by this relative margin for the LP's own tolerances (measured: below 1e-9 absolute).
MARGIN = 1e-7


@dataclass(slots=True)
class LpCuts:
    """Cuts on the storage vector (columns ``storage`` of ``arr``) from the LPs solved with it fixed."""

    arr: Arrays
    storage: npt.NDArray[np.int64]
    _at: csr_array | None = None  # the row matrix transposed: a ray's combined row is _at @ y
    _other: npt.NDArray[np.bool_] | None = None
    _grad: list[FloatArray] = field(default_factory=list)  # v(s) >= const + grad.s
    _const: list[float] = field(default_factory=list)
    _feas: list[FloatArray] = field(default_factory=list)  # feasible s: a.s >= rhs - tol
    _rhs: list[float] = field(default_factory=list)
    _tol: list[float] = field(default_factory=list)
    _stacked: tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray] | None = None

    def optimal(self, key: tuple[int, ...], value: float, col_dual: FloatArray) -> None:
        """The LP at ``key`` solved to optimality with ``value`` and reduced costs ``col_dual`` (every column)."""
        d = np.asarray(col_dual, dtype=float)[self.storage]
        if not (math.isfinite(value) and np.all(np.isfinite(d))):
            return
        self._grad.append(d)
        self._const.append(value - float(d @ np.asarray(key, dtype=float)) - MARGIN * (abs(value) + 1.0))
        if len(self._grad) > MAX_CUTS:
            del self._grad[: MAX_CUTS // 2], self._const[: MAX_CUTS // 2]
        self._stacked = None

    def infeasible(self, key: tuple[int, ...], ray: FloatArray) -> bool:
        """The LP at ``key`` infeasible with dual ray ``ray`` (row multipliers; either sign): keeps the cut it
        gives if that cut rules ``key`` out (True), else nothing."""
        y = np.asarray(ray, dtype=float)
        if y.size != len(self.arr.rlb) or not np.all(np.isfinite(y)) or not np.any(y):
            return False
        for sign in (1.0, -1.0):
            got = self._cut(sign * y)
            if got is not None and float(got[0] @ np.asarray(key, dtype=float)) < got[1] - got[2]:
                self._feas.append(got[0])
                self._rhs.append(got[1])
                self._tol.append(got[2])
                self._stacked = None
                return True
        return False

    def _cut(self, y: FloatArray) -> tuple[FloatArray, float, float] | None:
        """(a, rhs, tol): every s with a feasible LP has a.s >= rhs - tol; None if ``y`` gives no finite cut."""
        arr = self.arr
        if self._at is None or self._other is None:
            a_rows = csc_array((arr.value, arr.index, arr.start), shape=(len(arr.rlb), len(arr.cost)))
            self._at = csr_array(a_rows.T)
            self._other = np.ones(len(arr.cost), dtype=bool)
            self._other[self.storage] = False
        used = y != 0
        side = np.where(y > 0, arr.rlb, arr.rub)[used]  # y_i.A_i x >= y_i.side_i, row by row
        if not np.all(np.isfinite(side)):
            return None
        terms = y[used] * side
        a = np.asarray(self._at @ y, dtype=float)
        ao = a[self._other]
        moved = ao != 0
        top = np.where(ao > 0, arr.ub[self._other], arr.lb[self._other])[moved]  # the others' most
        if not np.all(np.isfinite(top)):
            return None
        most = ao[moved] * top
        rhs = float(terms.sum() - most.sum())
        tol = 1e-9 * float(np.abs(terms).sum() + np.abs(most).sum()) + 1e-9
        return a[self.storage], rhs, tol

    def bound(self, key: tuple[int, ...]) -> float:
        """A lower bound on the LP at ``key`` from the cuts (inf: infeasible; -inf: no cut yet)."""
        if self._stacked is None:
            n = len(self.storage)
            self._stacked = (np.asarray(self._grad).reshape(-1, n), np.asarray(self._const),
                             np.asarray(self._feas).reshape(-1, n), np.asarray(self._rhs), np.asarray(self._tol))
        grad, const, feas, rhs, tol = self._stacked
        s = np.asarray(key, dtype=float)
        if len(rhs) and np.any(feas @ s < rhs - tol):
            return math.inf
        return float(np.max(grad @ s + const)) if len(const) else -math.inf


def in_lp_order(heap: list[tuple[float, K, bool]], bound: float, lp_value: Callable[[K], float],
                lower: Callable[[K], float], done: Callable[[], bool]) -> Iterator[tuple[float, K]]:
    """The candidates of ``heap`` (each with its LP, or a lower bound on it, and whether that is its LP) whose
    LP is below ``bound``, cheapest LP first (ties by the vector), until ``done``. A candidate's LP is solved
    (``lp_value``) only when its bound is the least left: every LP left is at least its bound, so the order is
    the LP's, but the candidates behind the ones the caller takes are never solved. A bound is refreshed
    (``lower``: the cuts added since may rule the candidate out or put it later) before its LP is solved."""
    heapq.heapify(heap)
    while heap and not done():
        v, k, exact = heapq.heappop(heap)
        if exact:
            yield v, k
            continue
        got = lower(k)
        if got >= bound:
            continue
        if got > v:
            heapq.heappush(heap, (got, k, False))
            continue
        v = lp_value(k)
        if v < bound:
            heapq.heappush(heap, (v, k, True))
