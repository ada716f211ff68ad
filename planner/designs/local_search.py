"""Plans near good storage purchases: crossover and local search on the storage vector (pure core).

The second solver process (planner.designs.second_core) knows several storage purchase vectors that
are nearly right: the storage-only relaxation's integer solutions (good flash, say, but disk bought
too early) and the main process's first plan (the other way round). The full model with the storage
purchases fixed solves in well under a second, so the search here looks for a better vector:

1. **Crossover.** A child takes each storage system's purchases (all its years) from one parent or
   the other: every mix of the systems two parents disagree on (of more than MAX_BLOCKS such systems,
   the mixes taking one or two of them from one side). The parents are the plans found so far and the
   storage-only relaxation's integer solutions (each crossed with each plan).
2. **Descent from the relaxation's optimum.** The storage-only relaxation's optimal storage vector is
   the one the LP likes best, but with the levels and nodes whole it is often a poor plan (or none:
   on bench_service_level path seed 51, 4 % above its LP). A descent with its own current point and
   cost walks from it: each step the first neighbour (moves as below), in LP order, cheaper than the
   current point, even where that is still dearer than the best plan known. On seed 51 it reaches
   the optimum in five steps, 4 units away from where it started and 9 from the best plan's local
   optimum, which no single move from there improves. Where no single move is cheaper it tries pairs of
   year shifts (two units, each moved to the adjacent purchase year of its own system): on seed 71 the
   optimum is two such shifts from where the single moves stop, and either shift alone leaves a year
   short. A step solves, after the first cheaper candidate, LOOKAHEAD more and takes the cheapest: the
   LP's order is only a guide (on seed 131 the optimum was the fourth move from the relaxation's vector
   in LP order, the second the first cheaper one).
3. **Local search.** From the best vector: one unit more or less of a purchase, or one unit moved
   from one purchase to another (another year of the same system, or another system); first
   improvement over every move the LP filter lets through, in LP order, until no move improves or
   time runs out. (Trying only the four best-ranked moves stopped the search early: on path seed 51
   of bench_service_level the eighth move improved, and one more move from there reached the
   optimum; a storage-fixed model takes 0.1-0.2 s there.)
4. **System swaps.** Where no single move improves, every purchase of one system moved whole to
   another, the receiving system's counts (every year) then left to the LP and rounded up, and a
   descent (as in 2) from each of the SWAP_STARTS swaps whose LP is cheapest, until one ends below the
   best plan; then single moves again. Sibling systems differ in unit size and price, so the swap alone
   is seldom cheaper and no single move leads there (each unit moved alone leaves a mix of both); the
   descent from it adjusts the counts and years. On path seed 41 of bench_service_level the optimum
   (9,006,563, proven by HiGHS in 330 s) is flash-gss-v1 where the local optimum (9,041,374) has
   flash-gss: three steps from the swap. The counts come from the LP since 2026-11-29: year for year,
   a swap to smaller units left a year short (no plan, so it was never descended from), and on path
   seed 151 that swap (ibm-gss26-v2, 920 TB a unit, to ibm-gss26, 800 TB) is the way from the local
   optimum (9,210,522) to the optimum (9,170,942).

Candidates are ranked by the LP with the storage fixed (one HiGHS instance, re-solved from the last
basis in a few milliseconds), and that LP is also an exact filter: it relaxes the storage-fixed model,
so a vector whose LP is not below the best plan's cost cannot give a better plan and is skipped
unsolved. The LPs already solved bound the others from below (planner.designs.lp_cuts), so only the
candidates at the front of that order get an LP of their own (since 2026-11-29: on path seed 151, from
the first plan to the optimum 67 LPs instead of 2,566, 8.0 CPU-s instead of 17.3; the same moves, in the
same order). The storage-fixed models are solved to PLAN_GAP (0.1 %: enough to rank vectors; proving the
last digits was most of a model's time), and the best vector's model again to EXACT_GAP before the search
returns. Every plan reported is feasible for the full model. Nothing here touches the bound.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import highspy
import numpy as np
import numpy.typing as npt

from planner.designs.highs import Arrays, highs_for, set_start
from planner.designs.lp_cuts import LpCuts, in_lp_order

FloatArray = npt.NDArray[np.float64]
# Crossover tries every mix of at most this many disagreeing systems (2^6 children per pair of parents).
MAX_BLOCKS = 6
# Storage-fixed models a crossover round solves before it gives up (in LP order); a local-search round
# tries every move below the best plan's cost in the LP.
TRIES_PER_ROUND = 4
CROSSOVER_TRIES = 10
# A descent's step: after the first neighbour (in LP order) cheaper than the current point, this many more
# candidates are solved and the cheapest taken (the LP's order is only a guide to the plans' costs).
LOOKAHEAD = 3
# A storage-fixed model stops within this relative gap of its own optimum: the search only ranks vectors,
# and proving the last 0.1 % of a model far from the best plan took most of its time (path seed 111 of
# bench_service_level: 24 such models 129 s at 1e-6, 15 s at 1e-3). The best vector is re-solved to
# EXACT_GAP before the search returns (``refine``), so the plan reported is its model's optimum.
PLAN_GAP = 1e-3
EXACT_GAP = 1e-6
# Where no single move improves, descents start from this many system swaps of the best plan (LP order).
SWAP_STARTS = 3
ROUND_TOL = 1e-6  # an LP's unit count within this of a whole number is that number (swap_starts)


@dataclass(slots=True)
class StorageSearch:
    """The full model ``arr`` seen as a function of its storage purchases ``storage`` (column ids).

    ``systems[i]`` names the storage system of column ``storage[i]`` (crossover swaps whole systems).
    """

    arr: Arrays
    storage: npt.NDArray[np.int64]
    systems: list[str]
    deadline: float  # time.perf_counter() at which to stop
    plan_time_s: float  # time limit of one storage-fixed model
    stop: Callable[[], bool] = lambda: False
    cutoff: Callable[[], float] = lambda: math.inf  # the best plan's cost known elsewhere
    on_better: Callable[[], None] = lambda: None  # called when the best plan improves
    threads: int | None = None  # HiGHS's threads (a process's HiGHS instances must all agree)
    # True when other work in this process is waiting (the main process's descent from the relaxation, once
    # the relaxation's optimum has come): the descents from system swaps give way to it
    yield_to: Callable[[], bool] = lambda: False
    best_x: FloatArray | None = None
    best_fun: float = math.inf
    best_key: tuple[int, ...] | None = None
    best_floor: float = -math.inf  # the best plan's model's dual bound (no plan of that model costs less)
    solved: dict[tuple[int, ...], float] = field(default_factory=dict)
    # the cost bound a model was cut at (its cost is at least this: not solved to the end)
    cut_at: dict[tuple[int, ...], float] = field(default_factory=dict)
    lp_count: int = 0
    _lp: Any = None
    _lp_values: dict[tuple[int, ...], float] = field(default_factory=dict)  # the LPs solved (inf: infeasible)
    _cuts: LpCuts | None = None
    _yielding: bool = False  # in the descents from system swaps, which give way to ``yield_to``

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def done(self) -> bool:
        return self.left() <= 0 or self.stop() or (self._yielding and self.yield_to())

    def threshold(self) -> float:
        return min(self.best_fun, self.cutoff())

    def key(self, x: FloatArray) -> tuple[int, ...]:
        return tuple(int(round(v)) for v in np.asarray(x)[self.storage])

    def _fixed_lp(self, key: tuple[int, ...]) -> Any:
        """The LP instance (one, re-solved from its last basis) with these storage purchases fixed."""
        if self._lp is None:
            self._lp = highs_for(self.arr, max(self.left(), 0.01), 0.0,
                                 integer=np.zeros(len(self.arr.cost), dtype=bool), threads=self.threads)
        s = np.asarray(key, dtype=float)
        self._lp.changeColsBounds(len(self.storage), self.storage.astype(np.int32), s, s)
        self._lp.setOptionValue("time_limit", max(self.left(), 0.01))
        return self._lp

    def lp_value(self, key: tuple[int, ...]) -> float:
        """The LP with these storage purchases fixed: a lower bound on the storage-fixed model's optimum. Each
        one solved is kept, with the cut it gives on the others (lp_cuts)."""
        if key in self._lp_values:
            return self._lp_values[key]
        self._fixed_lp(key).run()
        self.lp_count += 1
        status = self._lp.getModelStatus()
        cuts = self._cuts = self._cuts or LpCuts(self.arr, self.storage)
        if status == highspy.HighsModelStatus.kInfeasible:
            self._lp_values[key] = math.inf
            cuts.infeasible(key, self._lp.getDualRay()[2])
        if status != highspy.HighsModelStatus.kOptimal:
            return math.inf  # infeasible, or out of time (not kept)
        v = self._lp_values[key] = float(self._lp.getInfo().objective_function_value)
        cuts.optimal(key, v, np.asarray(self._lp.getSolution().col_dual, dtype=float))
        return v

    def known(self, key: tuple[int, ...], bound: float) -> bool:
        """Whether solving ``key`` again could not find a plan below ``bound`` (solved, or cut at or below it)."""
        return key in self.solved and (math.isfinite(self.solved[key]) or self.cut_at.get(key, math.inf) >= bound)

    def plan(self, key: tuple[int, ...], start: FloatArray | None = None, bound: float | None = None,
             gap: float | None = None) -> float:
        """Solve the full model with these storage purchases fixed, to ``gap`` (default PLAN_GAP); keep the plan
        if it is the best.

        ``bound``: a cost the plan must beat to be of use (default: the best plan's); inf if it does not."""
        lb, ub = self.arr.lb.copy(), self.arr.ub.copy()
        lb[self.storage] = ub[self.storage] = np.asarray(key, dtype=float)
        h = highs_for(self.arr, min(self.plan_time_s, max(self.left(), 0.01)), PLAN_GAP if gap is None else gap,
                      lb=lb, ub=ub, threads=self.threads)
        cut = self.threshold() if bound is None else bound
        if math.isfinite(cut):  # a model that cannot beat the bound ends early
            h.setOptionValue("objective_bound", cut)
        if start is not None:
            set_start(h, start)
        h.run()
        info = h.getInfo()
        fun = float(info.objective_function_value) if info.primal_solution_status == 2 else math.inf
        self.solved[key] = fun
        if not math.isfinite(fun):
            self.cut_at[key] = cut
        if fun < self.best_fun:
            self.best_x, self.best_fun, self.best_key = np.asarray(h.getSolution().col_value, dtype=float), fun, key
            self.best_floor = min(float(info.mip_dual_bound), fun)
            self.on_better()
        return fun

    def refine(self) -> None:
        """The best vector's model solved to EXACT_GAP from its plan (it was solved to PLAN_GAP); not when a plan
        known elsewhere already costs no more than that model's dual bound (then nothing it could find is wanted,
        and the main process waited for it: bench_service_level seed 151, 2.2 s after the gap was met)."""
        if self.best_key is None or self.best_x is None or self.left() <= 0.05 or self.cutoff() <= self.best_floor:
            return
        self.plan(self.best_key, start=self.best_x, bound=math.inf, gap=EXACT_GAP)

    def offer(self, x: FloatArray) -> None:
        """A plan known to be feasible (e.g. the main process's): a parent, and the best if cheaper."""
        fun = float(np.asarray(x) @ self.arr.cost)
        key = self.key(x)
        if fun < self.best_fun:
            self.best_x, self.best_fun, self.best_key, self.best_floor = np.asarray(x, dtype=float), fun, key, -math.inf

    def try_best_of(self, keys: list[tuple[int, ...]], tries: int | None = TRIES_PER_ROUND,
                    first_improvement: bool = False) -> bool:
        """Solve the candidates whose LP is below the best plan's cost, cheapest LP first (at most
        ``tries``; None: all); True if one improved on the best plan."""
        ranked = self._rank(keys, self.threshold())[0]
        before = self.best_fun
        for v, k in ranked if tries is None else itertools.islice(ranked, tries):
            if self.done() or v >= self.threshold():
                break
            self.plan(k)
            if first_improvement and self.best_fun < before:
                break
        return self.best_fun < before

    def _rank(self, keys: Iterable[tuple[int, ...]], bound: float
              ) -> tuple[Iterator[tuple[float, tuple[int, ...]]], list[tuple[float, tuple[int, ...]]]]:
        """The candidates that could still cost less than ``bound``, by their LP (cheapest first; an LP at
        or above ``bound`` rules one out), and those already solved below it. Lazily: the LPs already solved
        bound the others from below (lp_cuts), so a candidate's LP is solved only when its bound comes first
        (and none whose bound is at or above ``bound``); the order is the LP's all the same. It ends when time
        runs out."""
        heap: list[tuple[float, tuple[int, ...], bool]] = []  # (LP or a bound on it, candidate, whether its LP)
        cheaper = []
        for k in dict.fromkeys(keys):
            if self.known(k, bound):
                if self.solved[k] < bound:
                    cheaper.append((self.solved[k], k))
                continue
            exact = k in self._lp_values
            v = self._lp_values[k] if exact else self._bound(k)
            if v < bound:
                heap.append((v, k, exact))
        return in_lp_order(heap, bound, self.lp_value, self._bound, self.done), cheaper

    def _bound(self, key: tuple[int, ...]) -> float:
        return -math.inf if self._cuts is None else self._cuts.bound(key)

    def blocks(self) -> dict[str, list[int]]:
        """Each storage system's positions in a storage vector (its purchase years, in order)."""
        out: dict[str, list[int]] = {}
        for i, name in enumerate(self.systems):
            out.setdefault(name, []).append(i)
        return out

    def crossovers(self, parents: list[tuple[int, ...]],
                   others: list[tuple[int, ...]] | None = None) -> list[tuple[int, ...]]:
        """Mixes of whole systems between two parents (any two of ``parents``, or with ``others`` one of
        each): every mix when they disagree on at most MAX_BLOCKS systems, else those taking one or two
        systems from one side."""
        blocks = self.blocks()
        out = []
        pairs = (itertools.combinations(dict.fromkeys(parents), 2) if others is None
                 else itertools.product(dict.fromkeys(parents), dict.fromkeys(others)))
        for a, b in pairs:
            if a == b:
                continue
            differ = [ii for ii in blocks.values() if any(a[i] != b[i] for i in ii)]
            # every mix of a few systems; of many, those taking one or two systems from either side
            sizes = range(1, len(differ)) if len(differ) <= MAX_BLOCKS else (1, 2, len(differ) - 2, len(differ) - 1)
            for r in sizes:
                for chosen in itertools.combinations(differ, r):
                    child = list(a)
                    for ii in chosen:
                        for i in ii:
                            child[i] = b[i]
                    out.append(tuple(child))
        return out

    def neighbours(self, key: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """One unit more or less of one purchase, or one unit moved from one purchase to another."""
        ub = self.arr.ub[self.storage]
        for i in range(len(key)):
            if key[i] + 1 <= ub[i]:
                yield key[:i] + (key[i] + 1,) + key[i + 1:]
            if key[i] <= 0:
                continue
            yield key[:i] + (key[i] - 1,) + key[i + 1:]
            for j in range(len(key)):
                if j != i and key[j] + 1 <= ub[j]:
                    moved = list(key)
                    moved[i] -= 1
                    moved[j] += 1
                    yield tuple(moved)

    def shift_pairs(self, key: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Two units, each moved to the next or previous purchase year of its own system: timing changes
        that pay only together (one alone can leave a year short, so no single move finds them)."""
        ub = self.arr.ub[self.storage]
        shifts = [(i, j) for i in range(len(key)) if key[i] > 0 for j in (i - 1, i + 1)
                  if 0 <= j < len(key) and self.systems[j] == self.systems[i] and key[j] + 1 <= ub[j]]
        for (i1, j1), (i2, j2) in itertools.combinations(shifts, 2):
            moved = list(key)
            moved[i1] -= 1
            moved[j1] += 1
            moved[i2] -= 1
            moved[j2] += 1
            if min(moved) >= 0 and all(moved[j] <= ub[j] for j in (j1, j2)) and tuple(moved) != key:
                yield tuple(moved)

    def swaps(self, key: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Every purchase of one system moved whole to another system, year for year (the columns aligned
        at the horizon's end; a system sold only from a later year takes none bought before it)."""
        for _, moved in self._swaps(key):
            yield moved

    def _swaps(self, key: tuple[int, ...]) -> Iterator[tuple[list[int], tuple[int, ...]]]:
        """``swaps`` with the receiving system's positions."""
        ub = self.arr.ub[self.storage]
        blocks = self.blocks()
        for a, ia in blocks.items():
            bought = [off for off in range(1, len(ia) + 1) if key[ia[-off]] > 0]
            if not bought:
                continue
            for b, ib in blocks.items():
                if b == a or bought[-1] > len(ib):
                    continue
                moved = list(key)
                for off in bought:
                    moved[ib[-off]] += key[ia[-off]]
                    moved[ia[-off]] = 0
                if all(moved[ib[-off]] <= ub[ib[-off]] for off in bought):
                    yield ib, tuple(moved)

    def swap_starts(self, key: tuple[int, ...]) -> list[tuple[float, tuple[int, ...]]]:
        """Each system swap (``swaps``) with the receiving system's purchases, every year, left to the LP and
        rounded up; ranked by that LP (cheapest first; a swap whose LP is infeasible is dropped). Year for
        year, a swap to smaller units leaves years short and one to larger units buys too much (module
        docstring, point 4: path seed 151)."""
        out = []
        for ib, moved in self._swaps(key):
            if self.done():
                break
            got = self._free_lp(moved, ib)
            if got is not None:
                out.append(got)
        out.sort()
        return out

    def _free_lp(self, key: tuple[int, ...], free: list[int]) -> tuple[float, tuple[int, ...]] | None:
        """The LP with these storage purchases fixed but those at positions ``free`` (between their bounds):
        its value and ``key`` with the free positions rounded up from the LP's (None when infeasible)."""
        lp = self._fixed_lp(key)
        cols = self.storage[free]
        lp.changeColsBounds(len(cols), cols.astype(np.int32), self.arr.lb[cols], self.arr.ub[cols])
        lp.run()
        self.lp_count += 1
        if lp.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(lp.getSolution().col_value, dtype=float)[cols]
        out = list(key)
        for i, v in zip(free, x, strict=True):
            out[i] = int(min(math.ceil(v - ROUND_TOL), self.arr.ub[self.storage[i]]))
        return float(lp.getInfo().objective_function_value), tuple(out)

    def swap_descents(self) -> int:
        """From the best plan: descents (``descend``) from each of its systems swapped whole for another
        (``swaps``), SWAP_STARTS of them in LP order, until one ends below the best; then single moves from the
        new best and again. Two siblings' units differ in size and price, so a swap alone is seldom cheaper,
        but the descent from it adjusts counts and years (path seed 41 of bench_service_level: flash-gss for
        flash-gss-v1, three steps, the optimum 0.37 % below the local optimum no single move improves).
        Returns how many descents ran; they stop when ``yield_to`` says other work is waiting."""
        self._yielding = True
        try:
            return self._swap_descents()
        finally:
            self._yielding = False

    def _swap_descents(self) -> int:
        tried: set[tuple[int, ...]] = set()
        runs = 0
        while self.best_key is not None and not self.done():
            ranked = self.swap_starts(self.best_key)
            if self.done():
                break
            starts = [k for _, k in ranked if k not in tried][:SWAP_STARTS]
            before = self.best_fun
            for k in starts:
                if self.done():
                    break
                tried.add(k)
                self.descend(k)
                runs += 1
                if self.best_fun < before:
                    break
            if self.best_fun >= before:
                break
            self.local_rounds()
        return runs

    def local_rounds(self) -> int:
        """Single moves from the best plan, first improvement over every move the LP lets through, until none
        improves or time runs out; how many rounds ran."""
        rounds = 0
        while self.best_key is not None and not self.done():
            rounds += 1
            if not self.try_best_of(list(self.neighbours(self.best_key)), tries=None, first_improvement=True):
                break
        return rounds

    def _step(self, cur: tuple[int, ...], cur_f: float,
              moves: Iterator[tuple[int, ...]]) -> tuple[float, tuple[int, ...]] | None:
        """The cheapest of the first of ``moves``, in LP order, cheaper than ``cur_f`` and the LOOKAHEAD after
        it (a move already solved cheaper is taken without solving anything)."""
        ranked, cheaper = self._rank(moves, cur_f)
        if cheaper:
            return min(cheaper)
        best: tuple[float, tuple[int, ...]] | None = None
        left = LOOKAHEAD
        for v, k in ranked:
            limit = cur_f if best is None else best[0]
            if self.done() or v >= limit or (best is not None and left <= 0):
                break
            if best is not None:
                left -= 1
            f = self.plan(k, bound=limit)
            if f < limit:
                best = (f, k)
        return best

    def descend(self, key: tuple[int, ...]) -> tuple[float, int]:
        """A descent from storage purchases ``key`` that need not be a good plan (a relaxation's solution):
        its own current point and cost, and each step the first neighbour, in LP order, cheaper than the
        current point (a neighbour already solved cheaper is taken without solving); where no single move
        is cheaper, the first pair of year shifts; (cost reached, steps)."""
        cur = key
        cur_f = self.solved[key] if self.known(key, math.inf) else self.plan(key, bound=math.inf)
        steps = 0
        while not self.done():
            step = self._step(cur, cur_f, self.neighbours(cur)) or self._step(cur, cur_f, self.shift_pairs(cur))
            if step is None:
                break
            (cur_f, cur), steps = step, steps + 1
        return cur_f, steps

    def run(self, parents: list[tuple[int, ...]], relaxed: list[tuple[int, ...]] | None = None,
            descend: bool = True) -> str:
        """Crossover of ``parents`` (plans), and of each with each of ``relaxed`` (a relaxation's integer
        solutions), a descent from the relaxation's optimum (``relaxed[0]``; not when ``descend`` is False:
        another process takes it), then local search from the best plan; a note on what it found."""
        t0 = time.perf_counter()
        start = self.best_fun
        relaxed = relaxed or []
        children = self.crossovers(parents) + self.crossovers(relaxed, parents)
        # the relaxation's own solutions: the last (its optimum) alone; the others cheap in the LP but seldom
        # good plans, so they would only use up the tries
        self.try_best_of(list(parents) + list(relaxed[:1]) + children, tries=CROSSOVER_TRIES)
        crossed = self.best_fun
        descended = ""
        if relaxed and descend:  # the relaxation's optimum: the storage the LP likes best, often a poor plan
            f, steps = self.descend(relaxed[0])
            descended = f" -> {f:,.0f} (descent from the relaxation, {steps} steps)"
        rounds = self.local_rounds()
        local = self.best_fun
        swapped = ""
        if not self.done():
            runs = self.swap_descents()
            swapped = f" -> {self.best_fun:,.0f} ({runs} descents from system swaps)" if runs else ""
        self.refine()
        return (f"storage search {start:,.0f} -> {crossed:,.0f} (crossover){descended} -> {local:,.0f} "
                f"({rounds} local rounds){swapped} ({len(self.solved)} storage-fixed models, {self.lp_count} LPs, "
                f"{time.perf_counter() - t0:.1f} s)")


def _searching(arr: Arrays, storage: list[int], systems: list[str], x: FloatArray | None, deadline: float,
               plan_time_s: float, stop: Callable[[], bool], cutoff: Callable[[], float],
               on_better: Callable[[FloatArray, float], None],
               yield_to: Callable[[], bool] = lambda: False) -> StorageSearch:
    """A search holding plan ``x`` (if any) that reports each better plan to ``on_better(plan, cost)``."""
    search = StorageSearch(arr, np.asarray(storage, dtype=np.int64), systems, deadline=deadline,
                           plan_time_s=plan_time_s, stop=stop, cutoff=cutoff, yield_to=yield_to)
    if x is not None:
        search.offer(x)
    search.on_better = lambda: on_better(search.best_x, search.best_fun) if search.best_x is not None else None
    return search


def polish(arr: Arrays, storage: list[int], systems: list[str], x: FloatArray, time_limit_s: float, *,
           stop: Callable[[], bool] = lambda: False, cutoff: Callable[[], float] = lambda: math.inf,
           on_better: Callable[[FloatArray, float], None] = lambda x, fun: None,
           yield_to: Callable[[], bool] = lambda: False) -> tuple[FloatArray, str]:
    """The best plan the local search finds from plan ``x`` (feasible for the full model) within the time
    (its descents from system swaps give way when ``yield_to`` says so)."""
    search = _searching(arr, storage, systems, x, time.perf_counter() + time_limit_s, time_limit_s / 4,
                        stop, cutoff, on_better, yield_to)
    note = search.run([search.key(x)])
    return (x if search.best_x is None else search.best_x), note


def descent(arr: Arrays, storage: list[int], systems: list[str], x: FloatArray | None, key: tuple[int, ...],
            deadline: float, plan_time_s: float, *, stop: Callable[[], bool] = lambda: False,
            cutoff: Callable[[], float] = lambda: math.inf,
            on_better: Callable[[FloatArray, float], None] = lambda x, fun: None) -> tuple[FloatArray | None, str]:
    """The descent from storage purchases ``key`` (``StorageSearch.descend``, e.g. from a relaxation's optimum)
    and its best model solved exactly; the best plan known (``x`` if the descent found none cheaper) and a note."""
    search = _searching(arr, storage, systems, x, deadline, plan_time_s, stop, cutoff, on_better)
    t0 = time.perf_counter()
    f, steps = search.descend(key)
    search.refine()
    note = f"descent from the relaxation: {f:,.0f} in {steps} steps, {time.perf_counter() - t0:.1f} s"
    return (x if search.best_x is None else search.best_x), note
