"""A feasible first plan for the service-level MILP, handed to HiGHS before it branches (pure core).

The plan for one requirement corner per year is feasible for the chance-constrained model: any
vector R_t that covers at least k = ceil(alpha S) paths jointly (a Pareto corner of the year's
chance set, planner.designs.corners) fixes every path and level binary, leaving the deterministic
purchase problem for that demand. The corner is the one the LP relaxation prices cheapest: the
duals of the rows capacity[t, c] >= R[t, c] are the marginal cost of a unit of requirement, and
the year takes the corner minimising sum_c dual[t, c] x corner[c]. A second plan takes, each
year, the corner reached by the least uniform scaling of the LP relaxation's own requirement
vector (min over corners of max_c corner[c] / R_lp[c]); the cheaper of the two plans is the start,
and both (``start_plans``) are parents of the second solver process's storage crossover
(planner.designs.second_core), which is at its best mixing two plans that got different systems right.
With more than three independent requirement dimensions (no corners) the year takes the balanced
box: the smallest common rank r with the r-th smallest requirement of every constraint covering k
paths.

This only changes where HiGHS starts: the optimum, the gap and the exactness of the model are
those of planner.designs.service_level.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.designs.corners import corners
from planner.designs.service_level import MAX_KEPT_CORNERS, ServiceLevel

FloatArray = npt.NDArray[np.float64]
TOL = 1e-12
MAX_START_CORNERS = MAX_KEPT_CORNERS
# Share of the time limit for the start plans (the LP and one corner MIP per plan). On the 1,000-path
# bench_service_level instance each corner MIP takes 2.3-7.2 s (6.5-11 s for both, path seeds 1-41,
# 2026-11-26): with a quarter of 30 s the second plan was most often cut short or skipped.
START_SHARE = 1 / 3


def balanced_box(cols: FloatArray, k: int) -> FloatArray:
    """The per-constraint r-th smallest requirements, r the least rank whose box covers k paths."""
    ordered = np.sort(cols, axis=0)
    lo, hi = k, cols.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if int(np.all(cols <= ordered[mid - 1][None, :], axis=1).sum()) >= k:
            hi = mid
        else:
            lo = mid + 1
    out: FloatArray = ordered[lo - 1]
    return out


def _candidates(sla: ServiceLevel, year: int, cols: FloatArray, cache: dict[int, FloatArray]) -> FloatArray:
    if year in sla.corner_vars:
        return sla.corner_vars[year][1]
    if year not in cache:  # both start plans look at the same corners
        pts = (sla.year_corners[year] if year in sla.year_corners  # enumerated once, in ServiceLevel.finish
               else corners(cols, sla.k, max_corners=MAX_START_CORNERS))
        cache[year] = balanced_box(cols, sla.k)[None, :] if pts is None else pts
    return cache[year]


def start_bounds(sla: ServiceLevel, m: Any, prices: dict[tuple[str, int], float],
                 lp_requirement: dict[tuple[str, int], float] | None = None,
                 cache: dict[int, FloatArray] | None = None) -> tuple[list[float], list[float]]:
    """Bounds of ``m`` fixing one corner per year (every path and level binary fixed).

    The corner priced cheapest by ``prices``; with ``lp_requirement`` (R of the LP relaxation) instead
    the corner reached by the least uniform scaling of that requirement: min over corners of
    max_c corner[c] / R_lp[c].
    """
    lb, ub = list(m.lb), list(m.ub)
    cache = {} if cache is None else cache
    for year in sla.years:
        cons = [c for c in sla.required if (c, year) in sla.r_vars]
        if not cons:
            continue
        cols = np.stack([sla.column(c, year) for c in cons], axis=1)
        pts = _candidates(sla, year, cols, cache)
        scale = np.maximum(cols.max(axis=0), 1e-12)
        w = np.array([max(prices.get((c, year), 0.0), 0.0) for c in cons])
        # ties (constraints the LP does not price) go to the corner with the smallest relative total
        score = pts @ w + 1e-9 * max(float(np.abs(pts @ w).max()), 1.0) * (pts / scale).sum(axis=1)
        if lp_requirement is not None:
            r_lp = np.array([max(lp_requirement.get((c, year), 0.0), 1e-12 * scale[ci]) for ci, c in enumerate(cons)])
            score = (pts / r_lp[None, :]).max(axis=1) + 1e-9 * score / max(float(np.abs(score).max()), 1e-12)
        i = int(np.argmin(score))
        chosen = pts[i]
        for ci, c in enumerate(cons):
            r = sla.r_vars[(c, year)]
            lb[r] = max(lb[r], min(float(chosen[ci]), ub[r]))
        if year in sla.corner_vars:
            for j, lam in enumerate(sla.corner_vars[year][0]):
                lb[lam] = ub[lam] = 1.0 if j == i else 0.0
            continue
        for ci, c in enumerate(cons):
            vs, levels = sla.level_vars.get((c, year), ([], []))
            for v, a in zip(vs, levels, strict=True):
                lb[v] = ub[v] = 1.0 if a <= chosen[ci] * (1 + TOL) + TOL else 0.0
        inside = np.all(cols <= chosen[None, :] * (1 + TOL) + TOL, axis=1)
        for s, z in sla.z_vars.get(year, {}).items():
            lb[z] = ub[z] = 1.0 if inside[s] else 0.0
    return lb, ub


def start_plans(m: Any, sla: ServiceLevel, time_limit_s: float, gap: float) -> list[FloatArray]:
    """The plans for the radial and the priced corners, cheapest first (those found in time; the first
    corner MIP may take all of it, so the first plan is never cut short for the second's sake).

    The second solver process crosses the storage purchases of both (one often has the flash right,
    the other the disk; planner.designs.local_search)."""
    t0 = time.perf_counter()
    lp = m.solve(time_limit_s, gap, lp_only=True)
    prices: dict[tuple[str, int], float] = {}
    choices = []
    cache: dict[int, FloatArray] = {}
    if lp.row_dual is not None and lp.x is not None:
        prices = {key: abs(float(lp.row_dual[row])) for key, row in sla.r_rows.items()}
        choices.append(start_bounds(sla, m, prices, {key: float(lp.x[r]) for key, r in sla.r_vars.items()}, cache))
    choices.append(start_bounds(sla, m, prices, cache=cache))
    distinct = [c for i, c in enumerate(choices) if not any(c[0] == other[0] for other in choices[:i])]
    found = []
    for lb, ub in distinct:
        left = time_limit_s - (time.perf_counter() - t0)
        if left <= 0:
            break
        got = m.solve(left, gap, lb=lb, ub=ub)
        if got.x is not None:
            found.append((float(got.fun), got.x))
    return [x for _, x in sorted(found, key=lambda fx: fx[0])]
