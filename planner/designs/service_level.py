"""Plans bought for a service level: the chance-constrained purchase plan on demand paths (pure core).

"In each year, capacity meets demand in at least a share alpha of the paths" is the
sample-average approximation of a chance constraint per year, joint across the constraints (a path
is covered in a year when every constraint holds on it). It is not joint across the years: the
paths that fall short may differ from year to year, so the share of paths on which every year holds
at once is lower (the run page states both, planner.designs.chance.ChanceReport.every_year). For a
given set of paths it is solved exactly as one MILP (scenario formulation), added to the optimiser's model
(planner.designs.optimize):

- per year t and path-dependent constraint c, a continuous requirement R[t, c] replaces the
  constant demand: capacity[t, c](x) >= R[t, c];
- per year t, constraint c and each distinct requirement level a_j above the bound below, a
  binary v[t, c, j] = 1 when R[t, c] reaches a_j (v_j+1 <= v_j), with
  R[t, c] >= lb + sum_j (a_j - a_j-1) v[t, c, j] (the mixing-set staircase: the convex hull of one
  constraint's chance set, Luedtke, Ahmed and Nemhauser 2010); constraints that order the paths
  identically (comonotone: genomes/day and flash, both scaled by the fleet draw) share one staircase
  of binaries, each with its own requirement at every step (exact: covering a path on one covers it
  on the other at the matching level, and there are half the binaries);
- per year t and path s, z[t, s] in [0, 1] with z[t, s] <= v[t, c, level of s on c] for every c: a
  covered path is covered on every constraint at once, so "meets demand" is joint across
  constraints, path by path (z is integral at an optimum because the v are);
- sum_s z[t, s] >= ceil(alpha S) per year.

When the requirements have at most three independent dimensions (constraints that order the
paths identically count once) and at most MAX_CORNERS corners, the year instead takes one of
the Pareto-minimal requirement corners with a binary (planner.designs.corners): also exact,
with a tighter relaxation. Otherwise the level formulation above is used. Two exact reductions
keep the level formulation small. (1) At least k = ceil(alpha S) paths are covered, so R[t, c]
is at least the k-th smallest D[t, ., c] (a valid lower bound). (2) A path whose requirement is
at or below those bounds on every constraint is covered whatever the plan: its z is fixed to 1
and its rows are dropped. Only the paths above the bounds on some constraint get a variable.
Valid inequalities tighten the relaxation that proves the bound (the second solver process's,
planner.designs.second_core): for every pair of independent constraints, the pair of requirements
lies above the convex hull of that pair's 2-D corners (continuous weights; valid because the covered
paths meet both constraints at once; ``ServiceLevel.pair_hulls``), and each year's corners to
planner.designs.hull_cuts, which gives that relaxation every facet of the year's corner hull and frees the
rows tying R to the level binaries (the facets imply the pair hulls, which a year with facets then does not
get). The model the plans are searched on is left without them (they changed which plans the heuristics
found, for the worse).

The optimum is exact for the paths given (and stated so); how it generalises is measured by
evaluating the chosen plan on a fresh independent set of paths (planner.designs.chance).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.stats import binom

from planner.designs import hull_cuts
from planner.designs.corners import comonotone_groups, corners
from planner.designs.hull_cuts import MAX_CUT_CORNERS, JointSet

FloatArray = npt.NDArray[np.float64]

# The constraints whose demand comes from the paths (the others keep the design's single figure).
PATH_CONSTRAINTS = ("core_hours", "storage_tb", "flash_tb", "genomes_per_day")
# Above this many corners in a year the corner binaries slow HiGHS more than the levels do
# (measured on the bench_service_level instance: docs/performance.md).
MAX_CORNERS = 1000
# A pair of constraints has at most n - k + 1 corners (a few dozen at 90 %): the pair hulls' limit.
MAX_PAIR_CORNERS = 5000
# Each year's corners are enumerated once, up to this many (the start plans use as many, the corner
# formulation MAX_CORNERS and the cuts planner.designs.hull_cuts.MAX_CUT_CORNERS of them).
MAX_KEPT_CORNERS = 200_000
PAIR_HULLS = True  # the second process's relaxation gets the pair hulls (ServiceLevel.pair_hulls)
HULL_CUTS = True  # and the corner cuts of each year's joint chance set (ServiceLevel.joint_sets)
# The plan for "alpha of the paths" is bought on a larger share of the fitting paths: the least count
# a plan covering only alpha of all demand would reach with probability <= 1 - CONFIDENCE
# (in_sample_level; docs/uncertainty.md).
CONFIDENCE = 0.95


class ServiceLevelError(ValueError):
    pass


@dataclass(slots=True)
class PairHull:
    """R[r_cols] >= sum_j lam_j pts[j], sum_j lam_j = 1, lam >= 0 (``ServiceLevel.pair_hulls``)."""

    year: int
    r_cols: list[int]
    pts: FloatArray  # (corners, len(r_cols))


@dataclass(slots=True)
class ServiceLevel:
    """alpha (0 < alpha <= 1) and the per-constraint requirement paths, each (n_paths, len(years))."""

    alpha: float
    years: list[int]
    required: Mapping[str, FloatArray]  # constraint -> (n, Y): e.g. flash already x flash_days
    # filled while the model is built
    r_vars: dict[tuple[str, int], int] = field(default_factory=dict)
    z_vars: dict[int, dict[int, int]] = field(default_factory=dict)
    free_paths: dict[int, int] = field(default_factory=dict)
    corner_vars: dict[int, tuple[list[int], FloatArray, FloatArray]] = field(default_factory=dict)
    formulation: dict[int, str] = field(default_factory=dict)
    r_rows: dict[tuple[str, int], int] = field(default_factory=dict)  # row of capacity >= R[t, c]
    level_vars: dict[tuple[str, int], tuple[list[int], list[float]]] = field(default_factory=dict)
    hull_years: list[tuple[int, list[str], FloatArray]] = field(default_factory=list)  # level years
    year_corners: dict[int, FloatArray | None] = field(default_factory=dict)  # None: over MAX_KEPT_CORNERS
    links: dict[int, list[int]] = field(default_factory=dict)  # level years: the rows R >= staircase of binaries

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise ServiceLevelError(f"service level must be in (0, 1], got {self.alpha}")
        unknown = sorted(set(self.required) - set(PATH_CONSTRAINTS))
        if unknown:
            raise ServiceLevelError(f"no paths for constraint {unknown[0]!r}; use {', '.join(PATH_CONSTRAINTS)}")
        shapes = {np.asarray(v).shape for v in self.required.values()}
        if len(shapes) != 1 or next(iter(shapes))[1] != len(self.years):
            raise ServiceLevelError("every constraint needs (n_paths, years) requirement paths")

    @property
    def n_paths(self) -> int:
        return int(np.asarray(next(iter(self.required.values()))).shape[0])

    @property
    def k(self) -> int:
        """Paths that must be covered each year: ceil(alpha n), with a tolerance for float alpha."""
        return max(1, math.ceil(self.alpha * self.n_paths - 1e-9))

    def covers(self, constraint: str, year: int) -> bool:
        return constraint in self.required and year in self.years

    def column(self, constraint: str, year: int) -> FloatArray:
        out: FloatArray = np.asarray(self.required[constraint], dtype=float)[:, self.years.index(year)]
        return out

    def lower_bound(self, constraint: str, year: int) -> float:
        """The k-th smallest requirement: at least k paths are covered, so R is at least this."""
        col = np.sort(self.column(constraint, year))
        return float(col[self.k - 1])

    def upper_bound(self, constraint: str, year: int) -> float:
        return float(self.column(constraint, year).max())

    def demand_row(self, m: Any, coefs: dict[int, float], fixed: float, constraint: str, year: int,
                   tag: tuple[str, int, str, float]) -> None:
        """capacity(x) + fixed >= R[t, c], with R a variable in [k-th smallest, largest] requirement."""
        lo, hi = self.lower_bound(constraint, year), self.upper_bound(constraint, year)
        if hi <= 1e-9:
            return
        r = m.var(0.0, lo, hi, False)
        self.r_vars[(constraint, year)] = r
        self.r_rows[(constraint, year)] = len(m.rows)
        m.row(coefs | {r: -1.0}, -fixed, math.inf, tag)

    def finish(self, m: Any) -> None:
        """Add the path binaries and the coverage rows for every year that has requirement variables."""
        k = self.k
        for year in self.years:
            cons = [c for c in self.required if (c, year) in self.r_vars]
            if not cons:
                continue
            lows = np.array([self.lower_bound(c, year) for c in cons])
            cols = np.stack([self.column(c, year) for c in cons], axis=1)  # (n, C)
            every = corners(cols, k, max_corners=MAX_KEPT_CORNERS)
            self.year_corners[year] = every
            pts = every if every is not None and len(every) <= MAX_CORNERS else None
            if pts is not None:  # one corner per year: exact, and its LP relaxation is their convex hull
                lams = [m.var(0.0, 0, 1, True) for _ in range(len(pts))]
                for ci, c in enumerate(cons):
                    m.row({self.r_vars[(c, year)]: 1.0} | {lam: -float(v) for lam, v in zip(lams, pts[:, ci],
                                                                                          strict=True)},
                          0.0, math.inf)
                m.row(dict.fromkeys(lams, 1.0), 1.0, 1.0)
                self.corner_vars[year] = (lams, pts, cols)
                self.formulation[year] = f"corners ({len(pts):,})"
                continue
            self.formulation[year] = "levels"
            above = np.any(cols > lows[None, :] * (1 + 1e-12) + 1e-12, axis=1)
            free = int((~above).sum())
            self.free_paths[year] = free
            need = k - free
            zs: dict[int, int] = {}
            if need > 0:
                for path in np.flatnonzero(above):  # continuous: integral at an optimum (z <= binary levels)
                    zs[int(path)] = m.var(0.0, 0, 1, False)
                for group in comonotone_groups(cols):
                    # The distinct requirement levels above the bound, ascending: binary v_j = 1 when R
                    # reaches level j (v_j+1 <= v_j), R >= lb + sum_j (a_j - a_j-1) v_j, and a path is
                    # covered only if every constraint reaches its level: z_s <= v_level(s, c).
                    # Constraints ordering the paths identically (comonotone) share one staircase.
                    rep, lo_rep = group[0], float(lows[group[0]])
                    at = {float(cols[s, rep]): s for s in sorted(zs) if cols[s, rep] > lo_rep}
                    levels = sorted(at)
                    if not levels:
                        continue
                    vs = [m.var(0.0, 0, 1, True) for _ in levels]
                    for a, b in zip(vs, vs[1:], strict=False):
                        m.row({a: 1.0, b: -1.0}, 0.0, math.inf)
                    for ci in group:
                        c, lo = cons[ci], float(lows[ci])
                        own = [float(cols[at[a], ci]) for a in levels]
                        steps = np.diff([lo, *own])
                        self.links.setdefault(year, []).append(len(m.rows))
                        m.row({self.r_vars[(c, year)]: 1.0} | {v: -float(st) for v, st in zip(vs, steps, strict=True)},
                              lo, math.inf)
                        self.level_vars[(c, year)] = (vs, own)
                    index = {a: j for j, a in enumerate(levels)}
                    for s, z in zs.items():
                        if cols[s, rep] > lo_rep:
                            m.row({vs[index[float(cols[s, rep])]]: 1.0, z: -1.0}, 0.0, math.inf)
                m.row(dict.fromkeys(zs.values(), 1.0), need, math.inf)
                self.hull_years.append((year, cons, cols))
            self.z_vars[year] = zs

    def joint_sets(self) -> list[JointSet]:
        """The years in the level formulation as joint chance sets (planner.designs.hull_cuts)."""
        if not HULL_CUTS:
            return []
        out = []
        for year, cons, _ in self.hull_years:
            pts = self.year_corners.get(year)
            out.append(JointSet([self.r_vars[(c, year)] for c in cons],
                                pts if pts is not None and len(pts) <= MAX_CUT_CORNERS else None,
                                list(self.links.get(year, [])), [self.r_rows[(c, year)] for c in cons]))
        return out

    def _facet_year(self, year: int) -> bool:
        """Whether the relaxation gets this year's corner-hull facets (planner.designs.hull_cuts.with_cuts),
        which imply its pair hulls."""
        pts = self.year_corners.get(year)
        return HULL_CUTS and hull_cuts.FACETS and pts is not None and 2 <= len(pts) <= MAX_CUT_CORNERS

    def pair_hulls(self) -> list[PairHull]:
        """Valid inequalities for the years in the level formulation: for every pair of independent
        constraint groups, the pair of requirements (R[t, c1], R[t, c2]) lies above the convex hull of
        that pair's 2-D corners.  The paths a plan covers meet both constraints, so the pair of
        requirements dominates a corner of the 2-D chance set; the rows cut off only fractional
        points (the levels' LP mixes coverage between constraints path by path, which the pair's hull
        forbids).  They serve the bound only (``hull_rows``: the second process's relaxation)."""
        out: list[PairHull] = []
        for year, cons, cols in self.hull_years if PAIR_HULLS else []:
            if self._facet_year(year):  # the facets of the year's corner hull imply them
                continue
            for g1, g2 in itertools.combinations(comonotone_groups(cols), 2):
                idx = g1 + g2
                pts = corners(cols[:, idx], self.k, max_corners=MAX_PAIR_CORNERS)
                if pts is not None and len(pts) >= 2:
                    out.append(PairHull(year, [self.r_vars[(cons[ci], year)] for ci in idx], pts))
        return out

    def covered(self, x: FloatArray) -> dict[int, float]:
        """Share of paths the solution covers in each year (for the record: >= alpha by construction)."""
        out = {}
        for year in self.years:
            if year in self.corner_vars:
                lams, pts, cols = self.corner_vars[year]
                chosen = pts[int(np.argmax([x[j] for j in lams]))]
                out[year] = float(np.all(cols <= chosen[None, :] * (1 + 1e-12), axis=1).mean())
                continue
            zs = self.z_vars.get(year, {})
            n_cov = self.free_paths.get(year, self.n_paths) + sum(int(round(x[j])) for j in zs.values())
            out[year] = n_cov / self.n_paths
        return out


def hull_rows(hulls: list[PairHull], n_cols: int) -> tuple[int, list[tuple[dict[int, float], float, float]],
                                                             list[list[int]]]:
    """The pair hulls as new columns after a model's ``n_cols`` and rows: (new columns, rows, the
    weight columns of each hull)."""
    rows: list[tuple[dict[int, float], float, float]] = []
    lams: list[list[int]] = []
    nxt = n_cols
    for h in hulls:
        cols = list(range(nxt, nxt + len(h.pts)))
        nxt += len(cols)
        lams.append(cols)
        for ci, r in enumerate(h.r_cols):
            rows.append(({r: 1.0} | {lam: -float(v) for lam, v in zip(cols, h.pts[:, ci], strict=True)}, 0.0, math.inf))
        rows.append((dict.fromkeys(cols, 1.0), 1.0, 1.0))
    return nxt - n_cols, rows, lams


def with_hull_weights(x: FloatArray, hulls: list[PairHull], lams: list[list[int]], n_total: int) -> FloatArray:
    """A plan of the model without the hulls as a solution of the model with them: each hull's weight
    on a corner its pair of requirements dominates (one exists whenever the plan covers k paths)."""
    out = np.zeros(n_total)
    out[: x.size] = x
    for h, cols in zip(hulls, lams, strict=True):
        r = x[h.r_cols]
        slack = (h.pts - r[None, :]) / np.maximum(np.abs(h.pts), 1e-12)
        out[cols[int(np.argmin(slack.max(axis=1)))]] = 1.0
    return out


def in_sample_level(alpha: float, n_paths: int, confidence: float | None = CONFIDENCE) -> float:
    """The share of ``n_paths`` fitting paths to cover so that covering ``alpha`` is not sampling luck.

    A plan whose true chance of meeting a year's demand is only alpha covers X ~ Binomial(n, alpha)
    of n independent paths. The plan is bought to cover k' of them, k' the least count with
    P[X >= k'] <= 1 - confidence: a plan no better than alpha passes that bar with probability at most
    1 - confidence. k' = n when even n is not enough (too few paths for the confidence); alpha itself
    when ``confidence`` is None (the exact sample problem at alpha, e.g. to check it by enumeration).
    """
    if not 0 < alpha <= 1:
        raise ServiceLevelError(f"service level must be in (0, 1], got {alpha}")
    if confidence is None or alpha >= 1:
        return alpha
    k0 = max(1, math.ceil(alpha * n_paths - 1e-9))
    ks = np.arange(k0, n_paths + 1)
    ok = ks[binom.sf(ks - 1, n_paths, alpha) <= 1 - confidence]
    return float(ok[0] if ok.size else n_paths) / n_paths


def requirement_paths(demand: Any, *, flash_days: float) -> dict[str, FloatArray]:
    """The per-constraint requirement paths of DemandPaths (flash holds ``flash_days`` of ingest)."""
    req = {
        "core_hours": np.asarray(demand.core_hours, dtype=float),
        "storage_tb": np.asarray(demand.storage_tb, dtype=float),
        "flash_tb": np.asarray(demand.ingest_tb_per_day, dtype=float) * flash_days,
        "genomes_per_day": np.asarray(demand.genomes_per_day, dtype=float),
    }
    return {c: v for c, v in req.items() if np.any(v > 0)}
