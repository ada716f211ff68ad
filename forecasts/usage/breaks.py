"""Months whose usage jumps against the month before by more than two orders of magnitude (pure core).

Such a month is a break, not growth: logs missing for it, a department gone, a cluster's pilot before it
went into service. The usage page names it, and the forecasts keep a series with one on its own scale
(forecasts.demand.engine.scale, which takes MAX_STEP_RATIO from here).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import date
from typing import Any

# A larger factor between consecutive values is a break, not growth.
MAX_STEP_RATIO = 100.0


def jumps(values: Sequence[float]) -> list[tuple[int, int]]:
    """(i, j) for each value i more than MAX_STEP_RATIO times, or less than 1 / MAX_STEP_RATIO of, value j, the
    last value > 0 before it (values <= 0 are not compared: a month with nothing is another story, told where
    the usage stops). The forecasts' scale rule and the usage page's breaks both read it."""
    out = []
    prev: int | None = None
    for i, v in enumerate(values):
        if v <= 0:
            continue
        if prev is not None and max(v / values[prev], values[prev] / v) > MAX_STEP_RATIO:
            out.append((i, prev))
        prev = i
    return out


def break_reason(values: Sequence[float]) -> str | None:
    """The largest of ``jumps`` in words, for a scale rule's reason ("the last value is 0.000576 times the one
    before (a break ...)"); None when there is none."""
    found = jumps(values)
    if not found:
        return None
    i, j = max(found, key=lambda p: max(values[p[0]] / values[p[1]], values[p[1]] / values[p[0]]))
    which = "the last value" if i + 1 == len(values) else f"value {i + 1} of {len(values)}"
    return (f"{which} is {values[i] / values[j]:.3g} times the one before (a break of more than x{MAX_STEP_RATIO:g} "
            "in one period, e.g. a department gone or logs missing, not multiplicative growth)")


def breaks(totals: Iterable[tuple[date, float]]) -> list[tuple[date, float, date, float]]:
    """(month, its value, the month before, its value) for each ``jumps`` of ``totals`` (ordered by month)."""
    t = list(totals)
    return [(t[i][0], t[i][1], t[j][0], t[j][1]) for i, j in jumps([v for _, v in t])]


def usage_breaks(rows: Iterable[dict[str, Any]], leave_out: Collection[date] = ()
                 ) -> list[tuple[date, float, date, float]]:
    """``breaks`` of the monthly core-hours of ``rows`` (``month``, ``core_hours``: one per month and department,
    as the usage page reads them), the months in ``leave_out`` (part months, low for another reason) left out."""
    totals: dict[date, float] = {}
    for r in rows:
        if r["month"] not in leave_out:
            totals[r["month"]] = totals.get(r["month"], 0.0) + float(r["core_hours"] or 0.0)
    return breaks(sorted(totals.items()))
