"""The corners of a sample chance set: the least requirement vectors covering k of the paths (pure core).

For one year, R covers path s when D[s] <= R on every constraint. The set of R covering at least
k paths is a union of orthants; its Pareto-minimal corners are the only requirement vectors a
cost-minimal plan can need (any other covering R is dominated by one of them, and capacity costs
rise with R). Choosing one corner per year with a binary is an exact formulation of the sample
chance constraint whose LP relaxation is the convex hull of the corners.

Constraints whose requirements order the paths identically (comonotone: e.g. genomes/day and
flash for ingest, both driven by the sequencer fleet) form one dimension: covering a path on one
covers it on the other at the matching level.
"""

from __future__ import annotations

import bisect

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def comonotone_groups(cols: FloatArray) -> list[list[int]]:
    """Columns of (n, C) grouped when they order the n paths identically (ties included)."""
    groups: list[list[int]] = []
    ranks = [np.unique(cols[:, c], return_inverse=True)[1] for c in range(cols.shape[1])]
    for c in range(cols.shape[1]):
        for g in groups:
            if np.array_equal(ranks[g[0]], ranks[c]):
                g.append(c)
                break
        else:
            groups.append([c])
    return groups


def _corners_2d(d: FloatArray, k: int) -> FloatArray:
    """Pareto-minimal (a, b) with at least k points of d (n, 2) at or below both."""
    order = np.argsort(d[:, 0], kind="stable")
    xs, ys = d[order, 0], d[order, 1]
    seen: list[float] = []
    out: list[tuple[float, float]] = []
    i, n = 0, len(xs)
    while i < n:
        a = xs[i]
        while i < n and xs[i] == a:
            bisect.insort(seen, float(ys[i]))
            i += 1
        if len(seen) >= k:
            b = seen[k - 1]
            if not out or b < out[-1][1]:
                out.append((float(a), b))
    return np.array(out, dtype=float).reshape(-1, 2)


def _corners_3d(d: FloatArray, k: int) -> FloatArray:
    order = np.argsort(d[:, 0], kind="stable")
    d = d[order]
    values = np.unique(d[:, 0])
    front_b: list[float] = []  # 2-D Pareto front of (b, c) seen at smaller a: b ascending, c descending
    front_c: list[float] = []
    out: list[tuple[float, float, float]] = []
    for a in values:
        sub = d[d[:, 0] <= a][:, 1:]
        if sub.shape[0] < k:
            continue
        for b, c in _corners_2d(sub, k):
            j = bisect.bisect_right(front_b, b)
            if j and front_c[j - 1] <= c:  # an earlier corner has b' <= b and c' <= c
                continue
            out.append((float(a), float(b), float(c)))
            # insert (b, c) into the front, dropping points it dominates
            lo = bisect.bisect_left(front_b, b)
            hi = lo
            while hi < len(front_b) and front_c[hi] >= c:
                hi += 1
            front_b[lo:hi] = [b]
            front_c[lo:hi] = [c]
    return np.array(out, dtype=float).reshape(-1, 3)


def corners(cols: FloatArray, k: int, *, max_corners: int = 6000) -> FloatArray | None:
    """Pareto-minimal requirement vectors (N, C) covering >= k of the n paths in ``cols`` (n, C).

    None when there are more than three independent dimensions or more than ``max_corners`` corners
    (the caller then uses the per-level formulation).
    """
    n, width = cols.shape
    if not 1 <= k <= n:
        raise ValueError(f"k must be in 1..{n}, got {k}")
    groups = comonotone_groups(cols)
    reps = [g[0] for g in groups]
    d = cols[:, reps]
    if len(reps) == 1:
        base = np.sort(d[:, 0])[k - 1: k].reshape(1, 1)
    elif len(reps) == 2:
        base = _corners_2d(d, k)
    elif len(reps) == 3:
        base = _corners_3d(d, k)
    else:
        return None
    if len(base) > max_corners:
        return None
    out = np.empty((len(base), width))
    for gi, g in enumerate(groups):
        rep = cols[:, g[0]]
        order = np.argsort(rep, kind="stable")
        for c in g:
            if c == g[0]:
                out[:, c] = base[:, gi]
                continue
            # the member's requirement at the path where the representative reaches the corner's value
            idx = np.searchsorted(rep[order], base[:, gi], side="left")
            out[:, c] = cols[order, c][np.clip(idx, 0, n - 1)]
    return out
