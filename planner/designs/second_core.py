"""A second solver process beside HiGHS on a service-level model: a proven bound and plans (pure core).

HiGHS's branch-and-bound on the service-level MILP runs on one core, and what it cannot close is its
lower bound: storage and flash come in whole units the LP relaxation buys in fractions. The second
process works on the other core, in three steps:

1. **A bound.** The same model with only the storage purchases integer (every level binary, node
   count and pipeline-tier binary continuous) is a relaxation: the same rows and objective, fewer
   integrality restrictions, so its proven dual bound is a lower bound on the full model's optimum.
   It keeps what the LP misses (whole storage units, measured on the bench_service_level instance:
   the LP relaxation is 4-5 % below the optimum, this relaxation 0.2-0.45 %), and HiGHS solves it
   far faster than the full model because it branches on 40 integers instead of 1,400. It gets the
   service level's pair hulls too (valid inequalities on the joint chance constraint,
   planner.designs.service_level), which raise its bound: on bench_service_level path seed 31 from
   0.62 % to 0.55 % below the optimum, proven in 9.6 s instead of 13.8 s. The model the plans are
   searched on stays without them (with them the searches found worse plans on some seeds). Before it
   starts, a few rounds of corner cuts of each year's joint chance set (planner.designs.hull_cuts)
   bring its LP to that set's hull where the LP is; its running bound is shared as it rises.
2. **Plans.** A set of storage purchases fixed, the full model for the rest (levels, nodes, tiers)
   solves in well under a second, and its optimum is a plan feasible for the full model. The search
   (planner.designs.local_search) starts from the relaxation's last integer solutions and the main
   process's plans, mixes their storage systems (crossover), descends from the relaxation's optimum
   (single units, pairs of year shifts), moves single units from the best and, where none improves,
   descends from the best plan's systems swapped whole for siblings (local_search.StorageSearch.swaps).
3. **More branching.** The full model again from the best plan, with another random seed, whose
   dual bound is valid too.

Meanwhile the main process runs the same local search from its first plan before it branches
(``SecondCore.polish``) and hands its plans over, so the second process crosses them with the
relaxation's solutions. With SPLIT_SEARCH the descent from the relaxation's optimum runs in the main
process (``SecondCore.descend``, then it branches) while the second process crosses the plans and searches
around the best: the two searches side by side (bench_service_level: 14-15 of 21 path seeds within 0.5 %
in 30 s, against 13-14 with both in the second process; seeds 21 and 71 met in both runs; 17 of 21 in two runs
with the system swaps, on a VM 1.7 times slower per core).

The main process stops as soon as the best plan of either process is within the gap of the best
bound of either (planner.designs.highs.solve_highs). Nothing here changes the model or its optimum:
the gap reported is still a proven gap between a feasible plan and a valid lower bound.

Processes, not threads: highspy holds the interpreter lock while HiGHS runs. The child is started
with ``spawn`` (HiGHS's thread pool does not survive ``fork``); if no process can be started (e.g.
inside a daemonic worker) the solve runs alone, as before.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import queue
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.designs.highs import Arrays, extend, highs_for, on_mip_progress, relative_gap, set_start
from planner.designs.hull_cuts import JointSet, with_cuts
from planner.designs.local_search import StorageSearch, descent, polish
from planner.designs.service_level import PairHull, hull_rows, with_hull_weights
from planner.designs.warm_start import START_SHARE

FloatArray = npt.NDArray[np.float64]
# Below this many integer columns one process is enough (and a process costs about a second to start).
MIN_INTEGERS = 400
# Share of the time limit the storage-only relaxation may take; each storage-fixed plan's share.
RELAXATION_SHARE = 0.8
PLAN_SHARE = 0.1
PLANS_TRIED = 8  # the relaxation's last distinct storage purchases the search crosses with the plans
# Share of the time limit the main process spends on a local search from its first plan before branching.
POLISH_SHARE = 0.25
RELAXATION_GAP = 1e-4
CUT_SHARE = 0.1  # at most this share of the time limit on the corner cuts before the relaxation
# The descent from the relaxation's optimum runs in the main process (after its own search, in place of
# branching) while the second process crosses and searches around the plans: the two searches in parallel.
SPLIT_SEARCH = True


def channel(ctx: Any) -> Any:
    """One direction between the processes: a queue, whose put never blocks on a full pipe."""
    return ctx.Queue()


@dataclass(slots=True)
class Relaxation:
    """The model the bound is proved on: the model and the pair hulls' columns and rows after it."""

    arrays: Arrays
    hulls: list[PairHull]
    weights: list[list[int]]  # each hull's weight columns
    sets: list[JointSet] = field(default_factory=list)  # the years' joint chance sets, for cuts (hull_cuts)

    @classmethod
    def of(cls, arr: Arrays, hulls: list[PairHull], sets: list[JointSet] | None = None) -> Relaxation:
        n_new, rows, weights = hull_rows(hulls, len(arr.cost))
        return cls(extend(arr, n_new, rows), hulls, weights, list(sets or []))

    def complete(self, x: FloatArray) -> FloatArray:
        """A plan of the model as a solution of the relaxation (the hulls' weights filled in)."""
        return with_hull_weights(x, self.hulls, self.weights, len(self.arrays.cost))


@dataclass(slots=True)
class Outcome:
    x: FloatArray | None
    fun: float
    bound: float
    note: str


def child_end(t0: float, time_limit_s: float, ends_at: float | None, now: float) -> float:
    """When the second process must stop, on its ``time.perf_counter()`` clock started at ``t0``: the caller's
    deadline ``ends_at`` (wall clock, ``time.time()``, the clock both processes share; read as ``now``), not
    ``time_limit_s`` from its own start. Starting the process takes about a second, which used to carry it that
    far past the caller's limit, and the caller waited for it in ``finish`` (bench_service_level: 31.0-31.9 s
    for a 30 s limit)."""
    return t0 + (time_limit_s if ends_at is None else min(time_limit_s, ends_at - now))


def _child(arr: Arrays, storage: npt.NDArray[np.int64], systems: list[str], time_limit_s: float, gap: float,
           shared: Any, stop: Any, conn: Any, inbox: Any, relax: Relaxation | None = None, split: bool = False,
           ends_at: float | None = None) -> None:
    t0 = time.perf_counter()
    end = child_end(t0, time_limit_s, ends_at, time.time())
    best_x: FloatArray | None = None
    notes = []

    def left() -> float:
        return end - time.perf_counter()

    def publish(primal: float, dual: float) -> None:
        with shared.get_lock():
            shared[0] = min(shared[0], primal)
            shared[1] = max(shared[1], dual)

    def watch(full: bool) -> Any:
        def check(primal: float, dual: float, data_in: Any) -> None:
            # a relaxation's running dual bound is a bound on the model too; its plans are not plans
            publish(primal if full else math.inf, dual)
            if stop.is_set() or relative_gap(shared[0], shared[1]) <= gap:
                data_in.user_interrupt = True
        return check

    firsts: list[FloatArray] = []  # the main process's first plans (one per start corner), as they arrive
    better: list[FloatArray] = []  # and what its own search made of the best of them
    handed = math.inf

    def drain(wait_s: float = 0.0) -> None:
        while True:
            try:
                kind, x = inbox.get(timeout=wait_s) if wait_s > 0 else inbox.get_nowait()
            except queue.Empty:
                return
            (firsts if kind == "first" else better).append(np.asarray(x, dtype=float))
            wait_s = 0.0

    def first_plan() -> tuple[FloatArray, float] | None:
        nonlocal handed
        drain()
        got = min(((x, float(x @ arr.cost)) for x in firsts + better), key=lambda xf: xf[1], default=None)
        if got is None or got[1] >= handed:
            return None
        handed = got[1]
        return got

    # 1. the storage-only relaxation: its dual bound is a bound on the full model (the main process's
    # first plan, feasible for it too, is handed over when it arrives)
    rarr = relax.arrays if relax is not None else arr  # with the pair hulls (planner.designs.service_level)
    if relax is not None and relax.sets:  # and the corner cuts of each year's joint chance set
        rarr, n_cuts = with_cuts(rarr, relax.sets, deadline=t0 + CUT_SHARE * time_limit_s, threads=1)
        notes.append(f"{n_cuts} corner cuts")
    only = np.zeros(len(rarr.cost), dtype=bool)
    only[storage] = True
    h = highs_for(rarr, min(RELAXATION_SHARE * time_limit_s, max(left(), 0.01)), RELAXATION_GAP, integer=only,
                  threads=1)
    h.setOptionValue("mip_improving_solution_save", True)

    def first_for_relaxation() -> tuple[FloatArray, float] | None:
        got = first_plan()
        return got if got is None or relax is None else (relax.complete(got[0]), got[1])

    on_mip_progress(h, watch(False), first_for_relaxation)
    h.run()
    info = h.getInfo()
    if math.isfinite(info.mip_dual_bound):
        publish(math.inf, float(info.mip_dual_bound))
        notes.append(f"storage-only relaxation bound {info.mip_dual_bound:,.0f} at {time.perf_counter() - t0:.1f} s")
    saved = [np.asarray(s.col_value, dtype=float)[: len(arr.cost)] for s in h.getSavedMipSolutions()]
    # 2. plans: the full model with the storage purchases fixed, at the relaxation's last solutions, the
    # main process's first plan, their crossovers and a local search around the best (local_search)
    drain()
    if not firsts and not stop.is_set():  # they may take START_SHARE of the limit (warm_start.start_plans)
        drain(max(min(t0 + START_SHARE * time_limit_s + 1.0 - time.perf_counter(), left()), 0.0))
    # the main process's plans: every first plan and the best its own search made of them
    mains = firsts + ([min(better, key=lambda x: float(x @ arr.cost))] if better else [])
    search = StorageSearch(arr, storage, systems, deadline=end, plan_time_s=PLAN_SHARE * time_limit_s,
                           stop=lambda: stop.is_set() or relative_gap(shared[0], shared[1]) <= gap,
                           cutoff=lambda: float(shared[0]), on_better=lambda: share(), threads=1)
    relaxed = list(dict.fromkeys(search.key(xs) for xs in reversed(saved)))[:PLANS_TRIED]
    parents = []
    for x in mains:  # crossing the first plan itself often works better than crossing its improvements
        search.offer(x)
        parents.append(search.key(x))
    found = search.best_fun

    def share() -> None:
        nonlocal found
        if search.best_x is not None and search.best_fun < found:
            found = search.best_fun
            publish(found, -math.inf)
            conn.put(("plan", search.best_x, found))

    if relaxed and split:  # the main process descends from the relaxation's optimum meanwhile (SecondCore.descend)
        conn.put(("relaxed", relaxed[0]))
    notes.append(search.run(parents, relaxed, descend=not split))
    best_x, best_fun = search.best_x, search.best_fun
    # 3. the full model from the best plan, another random seed
    if left() > 0.5 and not stop.is_set() and relative_gap(shared[0], shared[1]) > gap:
        hm = highs_for(arr, left(), gap, seed=1, threads=1)
        if best_x is not None:
            set_start(hm, best_x)
        on_mip_progress(hm, watch(True))
        hm.run()
        mi = hm.getInfo()
        if mi.primal_solution_status == 2 and mi.objective_function_value < best_fun:
            best_x, best_fun = np.asarray(hm.getSolution().col_value, dtype=float), float(mi.objective_function_value)
            publish(best_fun, -math.inf)
        if math.isfinite(mi.mip_dual_bound):
            publish(math.inf, float(mi.mip_dual_bound))
        notes.append(f"full model: plan {mi.objective_function_value:,.0f}, bound {mi.mip_dual_bound:,.0f}")
    conn.put(("done", best_x, best_fun, float(shared[1]), "; ".join(notes)))
    conn.close()
    conn.join_thread()  # the last word reaches the pipe before the process ends


class SecondCore:
    """The second process: ``best`` combines its numbers with the caller's, ``finish`` collects them."""

    def __init__(self, arr: Arrays, storage: list[int], time_limit_s: float, gap: float,
                 systems: list[str], relax: Relaxation | None = None, ends_at: float | None = None) -> None:
        """``ends_at``: the caller's deadline on the wall clock (``time.time()``; default ``time_limit_s`` from now),
        which the second process keeps to however long it took to start."""
        ctx = mp.get_context("spawn")
        self._plan: tuple[FloatArray, float] | None = None
        self._done: tuple[Any, ...] | None = None
        self._relaxed: tuple[int, ...] | None = None  # the relaxation's optimal storage, when the descent is ours
        self._descent_note = ""
        self._split = SPLIT_SEARCH  # the descent from the relaxation's optimum is this process's (``descend``)
        self._shared = ctx.Array("d", [math.inf, -math.inf])  # best plan's cost, best bound
        self._gap, self._note = gap, ""
        self._stop = ctx.Event()
        # Queues, not pipes, both ways: a put hands the message to a feeder thread and returns, so
        # neither process can block on a full pipe while the other blocks on its own send (plans of
        # a few thousand columns fill a 64 KB pipe in two messages).
        self._recv: Any = channel(ctx)
        self._send: Any = channel(ctx)
        self._send.cancel_join_thread()  # plans the second process never read must not hold us up
        self._proc = ctx.Process(target=_child, daemon=True,
                                 args=(arr, np.asarray(storage, dtype=np.int64), systems, time_limit_s, gap,
                                       self._shared, self._stop, self._recv, self._send, relax, self._split,
                                       time.time() + time_limit_s if ends_at is None else ends_at))
        self._proc.start()

    def share_plan(self, x: FloatArray | None, *, first: bool = True) -> None:
        """Hand a first plan of the main process over, or (``first`` False) a better plan its own search
        found: the second process crosses every first plan and the best of the others."""
        if x is None:
            return
        with contextlib.suppress(OSError, ValueError):  # the second process has already finished
            self._send.put(("first" if first else "better", np.asarray(x, dtype=float)))

    def _gap_met(self) -> bool:
        return relative_gap(*self.best(math.inf, -math.inf)) <= self._gap

    def _cutoff(self) -> float:
        return self.best(math.inf, -math.inf)[0]

    def _better(self, plan: FloatArray, fun: float) -> None:
        """A better plan found in this process: its cost joins the shared best, the plan goes to the second."""
        self.best(fun, -math.inf)
        self.share_plan(plan, first=False)

    def polish(self, arr: Arrays, storage: list[int], systems: list[str], x: FloatArray,
               time_limit_s: float) -> FloatArray:
        """The main process's own local search from its first plan (planner.designs.local_search), before
        HiGHS branches: every better plan is shared with the second process, which searches around it too."""
        out, self._note = polish(arr, storage, systems, x, time_limit_s, stop=self._gap_met, cutoff=self._cutoff,
                                 on_better=self._better, yield_to=self._relaxation_ready)
        return out

    def _relaxation_ready(self) -> bool:
        """Whether the relaxation's optimal storage has come (the descent from it is waiting): reads what has
        arrived without waiting. The polish's descents from system swaps give way to that descent (on path seed
        71 of bench_service_level they held it up 4 s, and it then ran out of time two steps short). Never
        without SPLIT_SEARCH: then the second process descends from it itself."""
        if not self._split:
            return False
        while self._relaxed is None and self._done is None and self._take(0.0):
            pass
        return self._relaxed is not None

    def descend(self, arr: Arrays, storage: list[int], systems: list[str], x: FloatArray | None,
                deadline: float, plan_time_s: float) -> FloatArray | None:
        """With SPLIT_SEARCH, the descent from the relaxation's optimal storage (local_search.descent) on this
        core, while the second process crosses and searches around the plans: it waits for the relaxation
        until ``deadline``; every better plan is shared. Returns the best plan known here (``x`` without it)."""
        if not self._split:
            return x
        while self._relaxed is None and self._done is None and not self._gap_met() and time.perf_counter() < deadline:
            if self._take(min(0.2, max(deadline - time.perf_counter(), 0.0))) and self._plan is not None:
                x = self._plan[0] if x is None or self._plan[1] < float(x @ arr.cost) else x
                self._plan = None
        if self._relaxed is None or self._gap_met() or time.perf_counter() >= deadline:
            return x
        x, note = descent(arr, storage, systems, x, self._relaxed, deadline, plan_time_s, stop=self._gap_met,
                          cutoff=self._cutoff, on_better=self._better)
        self._descent_note = f"main process's {note}"
        return x

    def new_plan(self) -> tuple[FloatArray, float] | None:
        """A plan the second process found since the last call (None if none)."""
        while self._plan is None and self._done is None and self._take(0.0):
            pass
        got, self._plan = self._plan, None
        return got

    def _take(self, wait_s: float) -> bool:
        """One message from the second process, waiting up to ``wait_s``; False when none came."""
        try:
            msg = self._recv.get(timeout=wait_s) if wait_s > 0 else self._recv.get_nowait()
        except queue.Empty:
            return False
        if msg[0] == "plan":
            self._plan = (msg[1], msg[2])
        elif msg[0] == "relaxed":
            self._relaxed = tuple(msg[1])
        else:
            self._done = msg[1:]
        return True

    def best(self, primal: float, dual: float) -> tuple[float, float]:
        """The best plan cost and the best bound of both processes (the caller's are shared too: the
        second process stops when the pair is within the gap)."""
        with self._shared.get_lock():
            self._shared[0] = min(self._shared[0], primal)
            self._shared[1] = max(self._shared[1], dual)
            return float(self._shared[0]), float(self._shared[1])

    def finish(self, wait_s: float = 5.0) -> Outcome:
        self._stop.set()
        deadline = time.perf_counter() + wait_s
        while self._done is None and time.perf_counter() < deadline:
            if not self._take(min(0.1, max(deadline - time.perf_counter(), 0.0))) and not self._proc.is_alive():
                self._take(0.1)  # its last word may still be in the pipe
                break
        self._proc.join(1.0)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(1.0)
        if self._done is None:  # no last word: keep only the bound it published
            return Outcome(None, math.inf, float(self._shared[1]), "no plan")
        x, fun, bound, note = self._done
        note = f"{note}; {self._descent_note}" if self._descent_note else note
        return Outcome(x, fun, bound, f"{note}; first plan's {self._note}" if self._note else note)


def start_second_core(m: Any, storage: list[int], time_limit_s: float, gap: float,
                      systems: list[str] | None = None, hulls: list[PairHull] | None = None,
                      sets: list[JointSet] | None = None) -> tuple[Any, Arrays]:
    """The second process for model ``m`` (None when the model is small or no process can be started).

    ``storage``: the storage purchase columns; ``systems``: the storage system each one buys (the
    search for plans swaps whole systems between plans; default: every column on its own); ``hulls``:
    valid inequalities the relaxation gets on top of the model (planner.designs.service_level); ``sets``:
    each year's joint chance set, whose corner cuts it gets too (planner.designs.hull_cuts)."""
    arr = m.arrays() if hasattr(m, "arrays") else Arrays.of(m)  # optimize's model keeps them for its solves
    if int(arr.integ.sum()) < MIN_INTEGERS or not storage or time_limit_s < 2.0:
        return None, arr
    try:
        relax = Relaxation.of(arr, hulls or [], sets) if hulls or sets else None
        return SecondCore(arr, storage, time_limit_s, gap, systems or [str(j) for j in storage], relax), arr
    except (OSError, AssertionError, ValueError, RuntimeError):  # e.g. a daemonic process may not have children
        return None, arr
