"""Period calendars for forecast series: monthly, quarterly, semiannual, annual, weekly.

A series is a start date plus one value per period; period i begins ``i`` periods after
``start``.  Months are added on the calendar (the day of month is clamped, e.g. Jan 31 + 1
month = Feb 28/29).  Weekly periods are 7 days.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

import numpy as np

MONTHS_PER_PERIOD: dict[str, int] = {"M": 1, "Q": 3, "S": 6, "A": 12}
PERIODS_PER_YEAR: dict[str, float] = {"M": 12.0, "Q": 4.0, "S": 2.0, "A": 1.0, "W": 52.0}
FREQUENCIES = tuple(PERIODS_PER_YEAR)


def check_frequency(frequency: str) -> str:
    f = frequency.upper()
    if f not in PERIODS_PER_YEAR:
        raise ValueError(f"unknown frequency {frequency!r}; use one of {', '.join(FREQUENCIES)}")
    return f


def add_months(d: date, months: int) -> date:
    y, m0 = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m0 + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def period_date(start: date, i: int, frequency: str) -> date:
    """First day of period ``i`` (0-based) of a series starting at ``start``."""
    f = check_frequency(frequency)
    if f == "W":
        return start + timedelta(days=7 * i)
    return add_months(start, MONTHS_PER_PERIOD[f] * i)


def period_dates(start: date, count: int, frequency: str, offset: int = 0) -> list[date]:
    return [period_date(start, offset + i, frequency) for i in range(count)]


def period_index(start: date, d: date, frequency: str) -> int:
    """Index of the period containing ``d`` (may be negative before ``start``)."""
    f = check_frequency(frequency)
    if f == "W":
        return (d - start).days // 7
    months = (d.year - start.year) * 12 + d.month - start.month - (1 if d.day < start.day else 0)
    return months // MONTHS_PER_PERIOD[f]


def series_from_points(
    dates: Sequence[date], values: Iterable[float], frequency: str = "M", start: date | None = None
) -> tuple[date, np.ndarray]:
    """Regular series from (date, value) points: values in the same period are summed, missing
    periods become NaN.  Returns (start, values); ``start`` defaults to the first date with the
    day of month set to 1 (monthly and coarser) so periods align with calendar months.
    """
    f = check_frequency(frequency)
    vals = list(values)
    if not dates:
        raise ValueError("no points")
    first = min(dates)
    if start is None:
        start = first if f == "W" else first.replace(day=1)
    idx = [period_index(start, d, f) for d in dates]
    if min(idx) < 0:
        raise ValueError("a point lies before start")
    out = np.full(max(idx) + 1, np.nan)
    for i, v in zip(idx, vals, strict=True):
        out[i] = v if np.isnan(out[i]) else out[i] + v
    return start, out
