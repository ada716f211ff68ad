"""Honest months: which scans stand for a month's storage, and which months are still open.

Pure core (no Django).  A file system is scanned now and then (monthly, quarterly); storage is
billed every month all the same:

- a month with scans of the file system: the mean of that month's scans;
- a month without: the last scan before it is carried forward (``CARRY``, the default), or,
  with ``LINEAR`` (a rate-plan setting), the scans before and after are interpolated at the
  month's midpoint (carried forward while no later scan exists yet);
- a month before the file system's first scan: nothing (storage is never billed backwards).

The month in progress is *provisional* until it closes: its usage and scans are still coming.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

CARRY = "carry"
LINEAR = "linear"
MODES = (CARRY, LINEAR)


def month_end(month: date) -> date:
    """The first day of the next month."""
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def is_provisional(month: date, today: date) -> bool:
    """A month is provisional until it has closed: ``today`` falls in it (or before it)."""
    return month.replace(day=1) >= today.replace(day=1)


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
