"""One FCFS queue scanned without looking at every waiting job: a three-level block index (numba).

With one queue the waiting jobs, in (submit, id) order, are exactly the job indices from the
oldest waiting one to the last arrival whose start is still -1, so the queue needs no list: it
is the index range. Blocks of 64, 4,096 and 262,144 consecutive jobs keep (a lower bound of) the
smallest processor count and the smallest requested time of their waiting jobs. A backfill pass looks for the next
job with p <= free and (w <= S - t or p <= X); a whole block is skipped when its smallest p
exceeds free, or exceeds X while its smallest w exceeds S - t: none of its jobs could start, and
free and X only shrink during a pass, so skipping is exact. On a saturated machine with a long
queue a pass then costs about the number of blocks it crosses, not the number of waiting jobs.

Memory: (n/64 + n/4,096 + n/262,144) x 2 values, about 0.25 bytes per job.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.iinfo(np.int64).max
S1, S2, S3 = 6, 12, 18  # log2 of the block sizes


def new_index(n: int) -> tuple[np.ndarray, ...]:
    """(p1, w1, p2, w2, p3, w3): per-level block minima, all 'no waiting job' to start with."""
    out = []
    for shift in (S1, S2, S3):
        size = (n >> shift) + 1
        out += [np.full(size, INF, dtype=np.int64), np.full(size, INF, dtype=np.int64)]
    return tuple(out)


@njit(cache=True)
def index_add(j, p, w, p1, w1, p2, w2, p3, w3):  # a job joins the queue
    for pa, wa, shift in ((p1, w1, S1), (p2, w2, S2), (p3, w3, S3)):
        b = j >> shift
        if p < pa[b]:
            pa[b] = p
        if w < wa[b]:
            wa[b] = w


@njit(cache=True, inline="always")
def _hopeless(mp, mw, free_cap, x_cap, slack) -> bool:
    return mp > free_cap or (mp > x_cap and mw > slack)


@njit(cache=True)
def _repair(b, lower_p, lower_w, upper_p, upper_w):
    """Set block b of a level to the minima of its 64 children (after a child was repaired)."""
    lo = b << 6
    hi = min(lo + 64, lower_p.shape[0])
    mp = INF
    mw = INF
    for k in range(lo, hi):
        if lower_p[k] < mp:
            mp = lower_p[k]
        if lower_w[k] < mw:
            mw = lower_w[k]
    upper_p[b] = mp
    upper_w[b] = mw


@njit(cache=True)
def index_next(k, limit, free_cap, x_cap, slack, start, procs, req, p1, w1, p2, w2, p3, w3):
    """The first waiting job >= k (before ``limit``, the number of arrivals) with p <= free_cap and
    (w <= slack or p <= x_cap), or ``limit`` when there is none.

    A block's minima cover all its waiting jobs, including any before k, so a hopeless block is
    hopeless from k to its end too: the search jumps to the end of the largest hopeless block
    around k. Jobs leaving the queue do not update the minima (they may only be too small, which
    makes a block look less hopeless, never more); a level-1 block the search walks through
    without finding a candidate gets its exact minima back, and its parents with it.
    """
    while k < limit:
        b = k >> S3
        if _hopeless(p3[b], w3[b], free_cap, x_cap, slack):
            k = (b + 1) << S3
            continue
        b = k >> S2
        if _hopeless(p2[b], w2[b], free_cap, x_cap, slack):
            k = (b + 1) << S2
            continue
        b = k >> S1
        if _hopeless(p1[b], w1[b], free_cap, x_cap, slack):
            k = (b + 1) << S1
            continue
        lo = b << S1
        end = min(lo + 64, limit)
        mp = INF
        mw = INF
        for i in range(lo, end):
            if start[i] < 0:
                if i >= k and procs[i] <= free_cap and (req[i] <= slack or procs[i] <= x_cap):
                    return i
                if procs[i] < mp:
                    mp = procs[i]
                if req[i] < mw:
                    mw = req[i]
        if mp != p1[b] or mw != w1[b]:  # the block walked through: its exact minima (later arrivals add theirs)
            p1[b] = mp
            w1[b] = mw
            _repair(k >> S2, p1, w1, p2, w2)
            _repair(k >> S3, p2, w2, p3, w3)
        k = end
    return limit
