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

Since 2026-11-29 the relaxation gets every facet of each year's corner hull instead (``facets``: qhull on
the corners, a few hundred rows a year on that instance, 0.1-0.4 s), and the rows that tie R[t] to the
year's level binaries are freed: the facets are the tightest description of the chance set a continuous
relaxation can have, so those rows (and the pair hulls, which the facets imply) add nothing to its bound,
only to its size. The cuts above held the hull only at the root LP's point; the branch-and-bound's other
nodes saw the levels' weaker LP. The result is a relaxation of the model, no longer the model itself: its
bound is valid (every plan's R[t] dominates a corner, so it meets every facet, and freeing rows only
enlarges the feasible set), its integer solutions are not plans. Separated cuts remain for a year whose
facets qhull cannot give. Figures: docs/performance.md (issue 17, 2026-11-29).

Since 2026-11-29 (session 28) the corners are first raised to the capacities whole units reach
(planner.designs.unit_lattice: flash, 20-22 TB a unit) and the facets are those of the raised corners' hull:
still valid for every plan (a plan's R[t] raised to its capacities dominates a raised corner), tighter where
the hull mixed corners a unit apart (path seed 151's bound 9,124,775 -> 9,138,866).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
from scipy.optimize import linprog
from scipy.sparse import csc_array
from scipy.spatial import ConvexHull, QhullError

from planner.designs.highs import Arrays, extend, highs_for
from planner.designs.unit_lattice import Raise, raised, unit_row

FloatArray = npt.NDArray[np.float64]
MAX_CUT_CORNERS = 20_000  # a year with more corners gets no cuts
ROUNDS = 6
VIOLATION = 1e-6
FACETS = True  # every facet of each year's corner hull (``facets``), the separation rounds only where none
# The corners are extended this far along each axis (in units of the axis's largest corner) before the hull
# is taken, so that its facets parallel to an axis (a weight of 0) are facets of the extended hull too.
FACET_REACH = 10.0
NORMAL_TOL = 1e-9  # an outward normal component above this is not a lower facet's
MARGIN = 1e-9  # each facet's right-hand side is lowered by this share of it (rounding)
# The corners raised to the capacities whole units reach before the hull is taken (planner.designs.unit_lattice).
RAISE = True


@dataclass(slots=True)
class JointSet:
    """One year's requirement columns (R[t, c] for its path constraints) and the Pareto corners of its
    chance set (planner.designs.corners; None when there were too many to enumerate)."""

    r_cols: list[int]
    corners: FloatArray | None  # (corners, len(r_cols))
    links: list[int] = field(default_factory=list)  # the rows tying R[t] to the year's level binaries
    capacity_rows: list[int] = field(default_factory=list)  # per r_col, its row capacity(x) + fixed >= R[t, c]


def raised_corners(arr: Arrays, sets: list[JointSet]) -> list[FloatArray | None]:
    """Each year's corners with every requirement whose capacity comes in whole units raised to the least
    capacity those reach (planner.designs.unit_lattice); the corners as they are without RAISE or rows."""
    if not RAISE or not any(js.capacity_rows for js in sets):
        return [js.corners for js in sets]
    rows = csc_array((arr.value, arr.index, arr.start), shape=(len(arr.rlb), len(arr.cost))).tocsr()
    out = []
    for js in sets:
        if js.corners is None or len(js.capacity_rows) != len(js.r_cols):
            out.append(js.corners)
            continue
        raises: list[Raise | None] = []
        for r_col, i in zip(js.r_cols, js.capacity_rows, strict=True):
            lo, hi = rows.indptr[i], rows.indptr[i + 1]
            coefs = dict(zip(rows.indices[lo:hi].tolist(), rows.data[lo:hi].tolist(), strict=True))
            unit = (unit_row(arr.integ, arr.lb, coefs, r_col, -float(arr.rlb[i]), float(arr.ub[r_col]))
                    if math.isinf(arr.rub[i]) else None)
            raises.append(Raise(unit) if unit is not None else None)
        out.append(raised(js.corners, raises))
    return out


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


def facets(points: FloatArray) -> list[tuple[FloatArray, float]] | None:
    """Every facet w . R >= rhs (w >= 0, largest weight 1) of the corners' convex hull plus the orthant,
    the requirement vectors that dominate a convex combination of corners: the tightest linear description
    of the year's chance set. Valid for every plan: its R dominates a corner p, so w . R >= w . p >= rhs
    (rhs is the least w . p over the corners, whatever the hull's arithmetic). None when there are too few
    corners or dimensions, or qhull fails (the caller falls back to separated cuts).

    The hull of the corners and of each corner moved FACET_REACH times the largest corner along each axis:
    every facet of the corners plus the orthant is one of its facets whose outward normal is <= 0 (a facet
    with a weight 0 on an axis holds the moved corners too), and every such facet is valid."""
    if points.ndim != 2 or points.shape[1] < 2 or len(points) < 2:
        return None
    scale = np.maximum(np.abs(points).max(axis=0), 1e-12)
    p = points / scale
    dims = p.shape[1]
    ext = np.vstack([p] + [p + FACET_REACH * np.eye(dims)[j] for j in range(dims)])
    try:
        eq = ConvexHull(ext).equations
    except (QhullError, ValueError):
        return None
    lower = eq[np.all(eq[:, :-1] <= NORMAL_TOL, axis=1), :-1]
    w = np.clip(-lower, 0.0, None) / scale[None, :]
    top = w.max(axis=1)
    w = w[top > 0] / top[top > 0, None]
    w = np.unique(np.round(w, 12), axis=0)  # qhull triangulates: a facet may come as several simplices
    rhs = (points @ w.T).min(axis=0)
    return [(wi, float(r - MARGIN * abs(r))) for wi, r in zip(w, rhs, strict=True)]


def with_cuts(arr: Arrays, sets: list[JointSet], *, rounds: int = ROUNDS, deadline: float = math.inf,
              threads: int | None = None) -> tuple[Arrays, int]:
    """``arr`` with every facet of each year's corner hull (``facets``) and, for the years whose facets
    cannot be had, the violated corner cuts of a few rounds of LP and separation; and the rows' count.
    ``threads``: HiGHS's thread count, which must be the one the process's later solves use (HiGHS
    sets up its thread pool once per process)."""
    added = 0
    hull_rows: list[tuple[dict[int, float], float, float]] = []
    usable, freed = [], []
    for js, pts in zip(sets, raised_corners(arr, sets), strict=True):
        if pts is None or not 2 <= len(pts) <= MAX_CUT_CORNERS:
            continue
        found = facets(pts) if FACETS else None
        if found is None:
            usable.append((js.r_cols, pts))
            continue
        hull_rows += [({c: float(v) for c, v in zip(js.r_cols, w, strict=True) if v > 0}, rhs, math.inf)
                      for w, rhs in found]
        freed += js.links
    if hull_rows:
        arr = extend(arr, 0, hull_rows)
        added = len(hull_rows)
    if freed:  # the hull is tighter than the levels' LP: R[t] is left to the facets (a relaxation)
        rlb, rub = arr.rlb.copy(), arr.rub.copy()
        rlb[freed], rub[freed] = -math.inf, math.inf
        arr = replace(arr, rlb=rlb, rub=rub)
    for _ in range(rounds if usable else 0):
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
