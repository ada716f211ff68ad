"""Cuts from the joint chance set of each year, for the relaxation that proves the bound (pure core).

Every requirement vector R[t] that covers k paths on all constraints at once dominates a Pareto
corner of the year's chance set (planner.designs.corners), so for any weights w >= 0 with
w . p >= 1 at every corner p, w . R[t] >= 1 is valid for every plan. Given the LP relaxation's
R*, the weights that make w . R* smallest (a small LP over the corners: three or four variables,
a few thousand rows) give a violated cut when that minimum is below 1; a few rounds of LP and
separation bring the LP to the convex hull of the corners where it matters, with a handful of rows
instead of the thousands of corner weights the full hull would need.

Measured on bench_service_level (the storage-only relaxation with the pair hulls, one process,
HiGHS 1.16, 2026-11-27): path seed 31's bound 9,117,013 -> 9,138,994 (0.55 % -> 0.32 % below the
optimum) with 14 cuts in 4 rounds, the relaxation 11.2 -> 20.3 s; seeds 11 and 41 unchanged (their
bound is not the chance set's hull), 12.9 -> 17.2 s and 9.8 -> 10.2 s.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import linprog

from planner.designs.highs import Arrays, extend, highs_for

FloatArray = npt.NDArray[np.float64]
MAX_CUT_CORNERS = 20_000  # a year with more corners gets no cuts
ROUNDS = 6
VIOLATION = 1e-6


@dataclass(slots=True)
class JointSet:
    """One year's requirement columns (R[t, c] for its path constraints) and the Pareto corners of its
    chance set (planner.designs.corners; None when there were too many to enumerate)."""

    r_cols: list[int]
    corners: FloatArray | None  # (corners, len(r_cols))


def separate(points: FloatArray, r: FloatArray) -> tuple[FloatArray, float] | None:
    """Weights w >= 0 with w . p >= 1 at every point p and w . r < 1 (None when r is in the hull
    of the points plus the orthant, up to VIOLATION), scaled to a largest weight of 1, and the cut's
    right-hand side: w . R >= rhs."""
    scale = np.maximum(np.abs(points).max(axis=0), 1e-12)
    res = linprog(r / scale, A_ub=-(points / scale), b_ub=-np.ones(len(points)),
                  bounds=[(0, None)] * points.shape[1], method="highs")
    if res.status != 0 or res.fun >= 1 - VIOLATION:
        return None
    w = np.asarray(res.x, dtype=float) / scale
    top = float(w.max())
    if top <= 0:
        return None
    return w / top, 1.0 / top


def with_cuts(arr: Arrays, sets: list[JointSet], *, rounds: int = ROUNDS, deadline: float = math.inf,
              threads: int | None = None) -> tuple[Arrays, int]:
    """``arr`` with the violated corner cuts of a few rounds of LP and separation (and their count).
    ``threads``: HiGHS's thread count, which must be the one the process's later solves use (HiGHS
    sets up its thread pool once per process)."""
    usable = [(js.r_cols, js.corners) for js in sets
              if js.corners is not None and 2 <= len(js.corners) <= MAX_CUT_CORNERS]
    added = 0
    for _ in range(rounds):
        if time.perf_counter() >= deadline:
            break
        h = highs_for(arr, max(deadline - time.perf_counter(), 0.01), 0.0, integer=np.zeros(len(arr.cost), dtype=bool),
                      threads=threads)
        h.run()
        if h.getInfo().primal_solution_status != 2:
            break
        x = np.asarray(h.getSolution().col_value, dtype=float)
        rows: list[tuple[dict[int, float], float, float]] = []
        for r_cols, pts in usable:
            cut = separate(pts, x[r_cols])
            if cut is not None:
                w, rhs = cut
                rows.append(({c: float(v) for c, v in zip(r_cols, w, strict=True) if v > 0}, rhs, math.inf))
        if not rows:
            break
        arr = extend(arr, 0, rows)
        added += len(rows)
    return arr, added
