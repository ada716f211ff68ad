"""Workload characterisation arithmetic on pre-aggregated histograms (pure core: no Django).

The jobs are summarised at ingest into ``WorkloadShapeMonthly`` rows: per cluster x month x
identity x queue, one histogram per *dimension* (job size in cores, run time, core-hours per
job, requested wall time, over-request ratio, queue wait).  This module defines the bucket
edges (the SQL that fills the table is generated from them, so the two cannot disagree) and
the arithmetic done on the buckets: quantiles interpolated within a bucket, shares, CDFs and
utilisation against dated capacity.

Resolution.  Quantiles are interpolated geometrically (log-uniform) inside the bucket that
holds them.  Run-time and wait buckets are at most a factor 2.5 wide from 30 s up (edges 30 s,
1, 2, 5, 10, 20, 30 min, 1, 2, 4, 6, 12, 24 h, 2, 3, 7 days); below 30 s one bucket (read as
1-30 s, or as zeros when its values sum to zero); core-hours buckets are powers of two
from 1/256 core-hour up.  A median is therefore exact to within its bucket and in practice
within ~20% from 30 s up (the phillips log's median run time, 26 s, reads 18 s); totals,
means, maxima, minima and the shares at the bucket edges (1 core, 1 node, 10 minutes,
24 hours) are exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# --- Dimensions and bucket edges --------------------------------------------------------------

DIM_SIZE = 1  # cores bucket; flag 1 = single node, 2 = node count unknown, 0 = several nodes
DIM_RUNTIME = 2  # run time bucket
DIM_CORE_HOURS = 3  # core-hours per job bucket
DIM_REQUEST = 4  # requested wall time bucket; flag = ran under a day
DIM_RATIO = 5  # requested / actual wall time bucket
DIM_WAIT = 6  # queue wait bucket
DIMENSIONS = {DIM_SIZE: "size", DIM_RUNTIME: "runtime", DIM_CORE_HOURS: "core_hours",
              DIM_REQUEST: "request", DIM_RATIO: "ratio", DIM_WAIT: "wait"}
UNKNOWN = -1  # bucket of a job without the value (no requested wall time, no submit time)

# Cores: bucket b holds cores in (2**(b-1), 2**b]: 1, 2, 3-4, 5-8, ... (bucket 0 = one core).
CORE_BUCKETS = 21  # up to 2**20 cores


CORE_EDGES: tuple[int, ...] = tuple(2**k for k in range(CORE_BUCKETS - 1))  # thresholds on cores - 1


def cores_bucket(cores: int) -> int:
    return bucket_of(max(cores, 1) - 1, CORE_EDGES)


def cores_bounds(b: int) -> tuple[int, int]:
    return (1, 1) if b <= 0 else (2 ** (b - 1) + 1, 2**b)


def cores_label(b: int) -> str:
    if b <= 0:
        return "1"
    lo, hi = 2 ** (b - 1) + 1, 2**b
    return str(hi) if lo == hi else f"{lo}-{hi}"


# Seconds: run time, requested wall time, queue wait.  Bucket i = [EDGES[i-1], EDGES[i]).
TIME_EDGES_S: tuple[int, ...] = (30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 21600, 43200,
                                 86400, 172800, 259200, 604800)
TIME_LABELS = ("<30 s", "30 s-1 min", "1-2 min", "2-5 min", "5-10 min", "10-20 min", "20-30 min",
               "30-60 min", "1-2 h", "2-4 h", "4-6 h", "6-12 h", "12-24 h", "1-2 d", "2-3 d", "3-7 d", ">7 d")
TEN_MINUTES_BUCKET = TIME_EDGES_S.index(600) + 1  # buckets below this index are under 10 minutes
DAY_BUCKET = TIME_EDGES_S.index(86400) + 1  # buckets below this index are under 24 hours

# Core-hours per job: bucket i = [2**(i-9), 2**(i-8)) core-hours; bucket 0 = below 1/256.
CORE_HOUR_BUCKETS = 40
CORE_HOUR_EDGES: tuple[float, ...] = tuple(2.0 ** (i - 8) for i in range(CORE_HOUR_BUCKETS - 1))

# Requested / actual wall time: <1, 1-1.5, 1.5-2, 2-4, 4-8, 8-16, 16-32, 32-64, 64-128, >=128.
RATIO_EDGES: tuple[float, ...] = (1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
RATIO_LABELS = ("<1x", "1-1.5x", "1.5-2x", "2-4x", "4-8x", "8-16x", "16-32x", "32-64x", "64-128x", ">=128x")


def bucket_of(value: float, edges: Sequence[float]) -> int:
    """Index of the bucket holding ``value``: like SQL width_bucket(value, edges)."""
    lo, hi = 0, len(edges)
    while lo < hi:
        mid = (lo + hi) // 2
        if value >= edges[mid]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def time_bucket_bounds(b: int) -> tuple[float, float]:
    lo = 1.0 if b == 0 else float(TIME_EDGES_S[b - 1])
    hi = float(TIME_EDGES_S[b]) if b < len(TIME_EDGES_S) else float(TIME_EDGES_S[-1]) * 4
    return lo, hi


def time_bucket(b: int, jobs: float, total_s: float) -> Bucket:
    """A run-time or wait bucket of ``jobs`` jobs whose values sum to ``total_s`` seconds.  One that sums to
    zero holds only zeros (jobs that started at once, or ran 0 s), so its quantiles are 0, not the log-middle
    of its bounds (1-30 s for the first)."""
    if total_s <= 0:
        return Bucket(0.0, 0.0, jobs)
    return Bucket(*time_bucket_bounds(b), jobs)


def core_hour_bucket_bounds(b: int) -> tuple[float, float]:
    lo = CORE_HOUR_EDGES[b - 1] if b > 0 else CORE_HOUR_EDGES[0] / 16
    hi = CORE_HOUR_EDGES[b] if b < len(CORE_HOUR_EDGES) else CORE_HOUR_EDGES[-1] * 2
    return lo, hi


def sql_array(edges: Iterable[float]) -> str:
    """A PostgreSQL array literal of the edges, for width_bucket in the rollup SQL."""
    return "ARRAY[" + ", ".join(repr(float(e)) for e in edges) + "]::float8[]"


# --- Quantiles and shares on histograms ---------------------------------------------------------

@dataclass(frozen=True)
class Bucket:
    lo: float
    hi: float
    count: float


def quantile(buckets: Sequence[Bucket], q: float, *, clip: tuple[float | None, float | None] = (None, None)
             ) -> float | None:
    """The q-quantile of a histogram, interpolated log-uniformly inside the bucket that holds it.

    ``clip`` (exact minimum and maximum, when known) bounds the answer, so a median in a
    one-job bucket is that job's value rather than the bucket's middle.
    """
    total = sum(b.count for b in buckets)
    if total <= 0:
        return None
    target = q * total
    seen = 0.0
    value: float | None = None
    for b in sorted(buckets, key=lambda b: b.lo):
        if b.count <= 0:
            continue
        if seen + b.count >= target:
            if b.hi <= 0:  # a bucket of zeros
                value = 0.0
                break
            frac = (target - seen) / b.count
            lo, hi = max(b.lo, 1e-12), max(b.hi, 1e-12)
            value = math.exp(math.log(lo) + frac * (math.log(hi) - math.log(lo)))
            break
        seen += b.count
    if value is None:
        value = sorted(buckets, key=lambda b: b.lo)[-1].hi
    lo_clip, hi_clip = clip
    if lo_clip is not None:
        value = max(value, lo_clip)
    if hi_clip is not None:
        value = min(value, hi_clip)
    return value


def share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def cdf(counts: Sequence[float]) -> list[float]:
    """Cumulative shares (0..1) of a sequence of bucket counts."""
    total = float(sum(counts))
    out, run = [], 0.0
    for c in counts:
        run += c
        out.append(run / total if total else 0.0)
    return out


# --- Capacity and utilisation --------------------------------------------------------------------

@dataclass(frozen=True)
class CapacityStep:
    effective_from: date
    cores: int


def capacity_core_hours(steps: Sequence[CapacityStep], start: date, end: date) -> float:
    """Cores x hours available in [start, end) (end exclusive) with dated capacity changes.

    Before the first dated step the cluster has no known capacity (counted as zero).
    """
    if end <= start or not steps:
        return 0.0
    ordered = sorted(steps, key=lambda s: s.effective_from)
    total = 0.0
    for i, step in enumerate(ordered):
        seg_lo = max(start, step.effective_from)
        seg_hi = min(end, ordered[i + 1].effective_from) if i + 1 < len(ordered) else end
        if seg_hi > seg_lo:
            total += step.cores * (seg_hi - seg_lo).days * 24.0
    return total


def capacity_core_hours_until(steps: Sequence[CapacityStep], start: date, until: datetime) -> float:
    """Cores x hours available from ``start`` to the instant ``until`` (the whole days before it, then the
    elapsed share of its day): the capacity of a month the accounting logs end inside."""
    day = until.date()
    share = (until - datetime(day.year, day.month, day.day, tzinfo=until.tzinfo)).total_seconds() / 86_400
    return capacity_core_hours(steps, start, day) + share * capacity_core_hours(steps, day, day + timedelta(days=1))


def month_end(month: date) -> date:
    """First day of the next month."""
    return date(month.year + (month.month == 12), month.month % 12 + 1, 1)


def monthly_utilisation(core_hours_by_month: Mapping[date, float], steps: Sequence[CapacityStep]
                        ) -> list[dict[str, object]]:
    """Per month: core-hours used, capacity core-hours and the ratio (None without capacity)."""
    rows = []
    for month in sorted(core_hours_by_month):
        cap = capacity_core_hours(steps, month, month_end(month))
        used = core_hours_by_month[month]
        rows.append({"month": month.isoformat()[:7], "core_hours": used, "capacity_core_hours": cap,
                     "utilisation": used / cap if cap else None})
    return rows


def period_bounds(start: date | None, end: date | None, months: Iterable[date]) -> tuple[date, date] | None:
    """[first day, day after last) of the period covered: the filter, or the months with data."""
    ms = sorted(months)
    if not ms and not (start and end):
        return None
    lo = start.replace(day=1) if start else ms[0]
    hi = month_end(end.replace(day=1)) if end else month_end(ms[-1])
    return lo, hi


def hours(seconds: float | None) -> float | None:
    return None if seconds is None else seconds / 3600.0
