"""The corners of a year's chance set raised to capacities whole units can reach (pure core).

Flash comes in whole units: a year's flash TB is the fixed assets' plus a sum of whole units' flash TB (20
and 22 TB a unit on bench_service_level), so a plan's flash capacity is one of a few values between the
year's least and largest requirement, and a plan covering the paths of a corner p has at least the least
such value at or above p's flash. R[t] is an auxiliary column (capacity >= R[t] and the chance set's rows
are its only rows), so every plan stays feasible with R[t] raised to its capacity, capped at R's upper
bound: a corner's coordinate may be replaced by the least reachable capacity at or above it, and the facets
of the raised corners' hull (planner.designs.hull_cuts) are valid for every plan. They are tighter where the
hull mixed corners a whole unit apart: the relaxation's capacities on path seed 151 in 2015 (2,884.8 TB,
106 TB of flash) dominated no corner, its R[t] a mix of one needing 106.0 TB of flash and one needing 2,889.0
TB of storage (figures: docs/performance.md, issue 17, 2026-11-29).

Which values are reachable is read off the model, not assumed: a requirement qualifies when its row
capacity(x) + fixed >= R[t] holds only integer columns, each with a positive coefficient (the model's
storage purchases, integer in the full model; the relaxation keeping them continuous or not does not
matter, the rows need only hold at the model's plans). A row with a continuous column (genomes/day) keeps
its coordinate as it is, and so does one whose sums of whole units below its upper bound are too many to
enumerate (core-hours, from the node counts; storage, whose small flash units make it nearly continuous
anyway, is enumerated where it fits). The value used is never above the true least reachable one.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
# A requirement is raised only where at most this many of its smallest units fit under R's upper bound: flash
# (a few dozen: few reachable values, far apart); storage, with 16 TB flash units, and core-hours, from the node
# counts, need hundreds and are nearly continuous (raising storage moved no bound on path seed 151).
MAX_UNITS = 64
MAX_SUMS = 100_000  # the distinct sums of whole units enumerated for one requirement and year, at most
TOL = 1e-9


@dataclass(slots=True)
class UnitRow:
    """One requirement's capacity row: capacity = fixed + sum_j coefs[j] x_j over whole units x_j >= 0, and
    R's upper bound (a capacity above it counts as the bound)."""

    fixed: float
    coefs: dict[int, float]
    upper: float


def unit_sums(sizes: list[float], top: float) -> list[float] | None:
    """Every sum of whole units of ``sizes`` (each > 0) up to ``top``, ascending, 0 included; None past MAX_SUMS."""
    found = {0.0}
    frontier = [0.0]
    while frontier:
        nxt = []
        for s in frontier:
            for d in sizes:
                v = s + d
                if v <= top + TOL * max(abs(top), 1.0) and v not in found:
                    found.add(v)
                    nxt.append(v)
        if len(found) > MAX_SUMS:
            return None
        frontier = nxt
    return sorted(found)


class Raise:
    """The least capacity a row reaches at or above a requirement (``of``), capped at R's upper bound."""

    def __init__(self, row: UnitRow) -> None:
        self.row = row
        sizes = sorted(set(row.coefs.values()))
        top = row.upper - row.fixed
        few = bool(sizes) and 0 < top <= MAX_UNITS * sizes[0]
        self.sums = unit_sums(sizes, top + sizes[-1]) if few else None

    def of(self, need: float) -> float:
        """The least fixed + (a sum of whole units) >= ``need``, or ``need`` when none was enumerated; at most
        R's upper bound and never below ``need`` (a corner's coordinate is at most that bound)."""
        rest = need - self.row.fixed
        if self.sums is None:
            return need
        i = bisect.bisect_left(self.sums, rest - TOL * max(abs(rest), 1.0))
        if i == len(self.sums):
            return need
        return min(max(self.row.fixed + self.sums[i], need), max(self.row.upper, need))


def unit_row(integ: npt.NDArray[np.int8], lower: FloatArray, row: dict[int, float], r_col: int, fixed: float,
             upper: float) -> UnitRow | None:
    """The capacity row of R column ``r_col`` as whole units (None when it holds a continuous column, one that
    may go below 0 or a coefficient <= 0: then its requirement is not raised). ``integ``, ``lower``: the
    model's integrality and column lower bounds; ``row``: the row's coefficients, R's -1 included; ``fixed``:
    the capacity without purchases (minus the row's lower bound); ``upper``: R's upper bound."""
    coefs = {j: v for j, v in row.items() if j != r_col}
    if not coefs or row.get(r_col) != -1.0 or any(v <= 0 or not integ[j] or lower[j] < 0 for j, v in coefs.items()):
        return None
    if not math.isfinite(fixed) or not math.isfinite(upper):
        return None
    return UnitRow(fixed, coefs, upper)


def pareto(points: FloatArray) -> FloatArray:
    """The points (N, C) no other point dominates (<= on every column); duplicates once. In lexicographic
    order a point can be dominated only by one before it, so each is checked against those kept."""
    pts = np.unique(points, axis=0)
    kept = np.empty_like(pts)
    n = 0
    for p in pts:
        if n and np.any(np.all(kept[:n] <= p[None, :], axis=1)):
            continue
        kept[n] = p
        n += 1
    return kept[:n]


def raised(corners: FloatArray, raises: list[Raise | None]) -> FloatArray:
    """``corners`` (N, C) with each column that has a ``Raise`` raised to its least reachable capacity, the
    dominated corners dropped (the same array when nothing is raised)."""
    if all(r is None for r in raises):
        return corners
    out = corners.copy()
    for c, r in enumerate(raises):
        if r is not None:
            out[:, c] = [r.of(float(v)) for v in corners[:, c]]
    if np.array_equal(out, corners):
        return corners
    return pareto(out)
