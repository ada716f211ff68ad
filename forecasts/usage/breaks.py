"""Months whose usage jumps against the month before by more than two orders of magnitude (pure core).

Such a month is a break, not growth: logs missing for it, a department gone, a cluster's pilot before it
went into service. The usage page names it, and the forecasts keep a series with one on its own scale
(forecasts.demand.engine.scale, which takes MAX_STEP_RATIO from here).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

# A larger factor between consecutive values is a break, not growth.
MAX_STEP_RATIO = 100.0


def breaks(totals: Iterable[tuple[date, float]]) -> list[tuple[date, float, date, float]]:
    """(month, its value, the month before, its value) for each month more than MAX_STEP_RATIO times, or less
    than 1 / MAX_STEP_RATIO of, the month before it in ``totals`` (ordered by month; months <= 0 are not
    compared: a month with nothing is another story, told where the usage stops)."""
    out = []
    prev: tuple[date, float] | None = None
    for month, value in totals:
        if value > 0 and prev is not None and max(value / prev[1], prev[1] / value) > MAX_STEP_RATIO:
            out.append((month, value, prev[0], prev[1]))
        prev = (month, value) if value > 0 else prev
    return out
