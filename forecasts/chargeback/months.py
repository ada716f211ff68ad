"""Honest months: which scans stand for a month's storage, and which months are still open.

Pure core (no Django).  A file system is scanned now and then (monthly, quarterly); storage is
billed every month all the same:

- a month with scans of the file system: the mean of that month's scans;
- a month without: the last scan before it is carried forward (``CARRY``, the default), or,
  with ``LINEAR`` (a rate-plan setting), the scans before and after are interpolated at the
  month's midpoint (carried forward while no later scan exists yet);
- a month before the file system's first scan: nothing (storage is never billed backwards).

The month in progress is *provisional* until it closes: its usage and scans are still coming.
So is the month the accounting logs end inside (exported on the 6th): its statements bill the
usage so far, and its storage is prorated to the days the logs cover (``logs_cover``), so
compute and storage describe the same days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

CARRY = "carry"
LINEAR = "linear"
MODES = (CARRY, LINEAR)


def month_end(month: date) -> date:
    """The first day of the next month."""
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def is_provisional(month: date, today: date) -> bool:
    """A month is provisional until it has closed: ``today`` falls in it (or before it)."""
    return month.replace(day=1) >= today.replace(day=1)


def logs_end_words(logs_end: date | datetime) -> str:
    """What a statement of the month the logs end inside says: 'logs end on 6 January 2020: usage so far'."""
    return f"logs end on {logs_end.day} {logs_end:%B %Y}: usage so far"


def logs_cover(month: date, logs_end: date | datetime) -> tuple[int, int]:
    """(days the logs cover, days in the month) for the month the logs end inside: its first day
    through the day they end, that day counted (logs ending on 6 January cover 6 of 31 days).

    >>> logs_cover(date(2020, 1, 1), date(2020, 1, 6))
    (6, 31)
    """
    days = (month_end(month) - month.replace(day=1)).days
    end = logs_end.date() if isinstance(logs_end, datetime) else logs_end
    if not month.replace(day=1) <= end < month_end(month):
        raise ValueError(f"the logs end on {end}, not inside {month:%Y-%m}")
    return end.day, days


@dataclass(frozen=True)
class ScanWeights:
    """The scans (by id) that stand for a month and their weights (summing to 1), and why."""

    weights: tuple[tuple[int, float], ...]
    basis: str  # "" for scans in the month; else a sentence for the statement's notes


def month_scan_weights(month: date, scans: list[tuple[int, date]], mode: str = CARRY) -> ScanWeights | None:
    """Which of one file system's scans ``(id, taken_on)`` stand for ``month``; None when none can.

    >>> month_scan_weights(date(2024, 2, 1), [(1, date(2024, 1, 15)), (2, date(2024, 4, 15))]).weights
    ((1, 1.0),)
    """
    if mode not in MODES:
        raise ValueError(f"storage between scans: {mode!r} is not one of {', '.join(MODES)}")
    start, end = month.replace(day=1), month_end(month)
    inside = [(i, d) for i, d in scans if start <= d < end]
    if inside:
        return ScanWeights(tuple((i, 1 / len(inside)) for i, _ in inside), "")
    before = max(((d, i) for i, d in scans if d < start), default=None)
    if before is None:
        return None
    after = min(((d, i) for i, d in scans if d >= end), default=None)
    if mode == CARRY or after is None:
        return ScanWeights(((before[1], 1.0),), f"no scan in {start:%Y-%m}: the scan of {before[0]:%Y-%m-%d} "
                                                f"is carried forward")
    middle = start.toordinal() + (end - start).days / 2  # mid-month, in days (half days count)
    w = (middle - before[0].toordinal()) / (after[0].toordinal() - before[0].toordinal())
    return ScanWeights(((before[1], 1 - w), (after[1], w)),
                       f"no scan in {start:%Y-%m}: interpolated at mid-month between the scans of "
                       f"{before[0]:%Y-%m-%d} and {after[0]:%Y-%m-%d}")
