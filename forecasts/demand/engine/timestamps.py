"""Period timestamps of a panel: parse them to integer period numbers and write them back in the
input's own style.

Styles (one per series, detected from its first timestamp):

- ``year``: ``1989`` (annual);
- ``half``: ``1990-H1`` or ``1990-S2`` (semiannual);
- ``quarter``: ``1990-Q3``;
- ``month``: ``1990-07``;
- ``date``: ISO dates ``1990-07-01`` at any frequency; a future period is written as its first
  day, or as its last day when every input date is the last day of its period.

A period number counts periods from year 0: ``year * per_year + index within the year``, so
consecutive periods differ by one whatever the style.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

PER_YEAR: dict[str, int] = {"A": 1, "S": 2, "Q": 4, "M": 12}
SEASON_LENGTH: dict[str, int] = {"A": 1, "S": 2, "Q": 4, "M": 12}

_YEAR = re.compile(r"^(\d{4})$")
_HALF = re.compile(r"^(\d{4})-([HS])([12])$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")


class TimestampError(ValueError):
    """A timestamp that does not fit the frequency or the series' style."""


def check_frequency(frequency: str) -> str:
    f = frequency.upper()
    if f not in PER_YEAR:
        raise TimestampError(f"unknown frequency {frequency!r}; use one of {', '.join(PER_YEAR)}")
    return f


@dataclass(frozen=True)
class Style:
    """How a series writes its timestamps (``kind``), with the half-year letter and whether
    ISO dates mark the last day of their period."""

    kind: str  # year | half | quarter | month | date
    half_letter: str = "H"
    month_end: bool = False


def detect_style(text: str) -> Style:
    s = text.strip()
    if _YEAR.match(s):
        return Style("year")
    m = _HALF.match(s)
    if m:
        return Style("half", half_letter=m.group(2))
    if _QUARTER.match(s):
        return Style("quarter")
    if _MONTH.match(s):
        return Style("month")
    if _DATE.match(s):
        return Style("date")
    raise TimestampError(f"timestamp {text!r} is none of 1989, 1990-H1, 1990-Q3, 1990-07 or an ISO date")


def _date_period(d: date, f: str) -> int:
    per = PER_YEAR[f]
    return d.year * per + (d.month - 1) * per // 12


def _parse_date(s: str) -> date:
    m = _DATE.match(s)
    if not m:
        raise TimestampError(f"timestamp {s!r} is not an ISO date")
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError as exc:
        raise TimestampError(f"timestamp {s!r}: {exc}") from exc


def parse_period(text: str, frequency: str) -> int:
    """The period number of ``text`` at ``frequency`` (see the module docstring)."""
    f = check_frequency(frequency)
    s = text.strip()
    per = PER_YEAR[f]
    if m := _YEAR.match(s):
        if f != "A":
            raise TimestampError(f"timestamp {text!r} is a year but the frequency is {f}")
        return int(m.group(1))
    if m := _HALF.match(s):
        if f != "S":
            raise TimestampError(f"timestamp {text!r} is a half-year but the frequency is {f}")
        return int(m.group(1)) * 2 + int(m.group(3)) - 1
    if m := _QUARTER.match(s):
        if f != "Q":
            raise TimestampError(f"timestamp {text!r} is a quarter but the frequency is {f}")
        return int(m.group(1)) * 4 + int(m.group(2)) - 1
    if m := _MONTH.match(s):
        month = int(m.group(2))
        if not 1 <= month <= 12:
            raise TimestampError(f"timestamp {text!r}: month {month} is not 1-12")
        if f != "M":
            raise TimestampError(f"timestamp {text!r} is a month but the frequency is {f}")
        return int(m.group(1)) * per + month - 1
    if _DATE.match(s):
        return _date_period(_parse_date(s), f)
    raise TimestampError(f"timestamp {text!r} is none of 1989, 1990-H1, 1990-Q3, 1990-07 or an ISO date")


def period_bounds(period: int, frequency: str) -> tuple[date, date]:
    """First and last day of a period number."""
    f = check_frequency(frequency)
    per = PER_YEAR[f]
    year, idx = divmod(period, per)
    months = 12 // per
    first = date(year, idx * months + 1, 1)
    last_month = idx * months + months
    return first, date(year, last_month, calendar.monthrange(year, last_month)[1])


def is_month_end_style(texts: list[str], frequency: str) -> bool:
    """True when every ISO date in ``texts`` is the last day of its period."""
    if not texts:
        return False
    for t in texts:
        d = _parse_date(t.strip())
        if d != period_bounds(_date_period(d, frequency), frequency)[1]:
            return False
    return True


def format_period(period: int, frequency: str, style: Style) -> str:
    """Write a period number in ``style``."""
    f = check_frequency(frequency)
    per = PER_YEAR[f]
    year, idx = divmod(period, per)
    if style.kind == "year":
        return f"{year:04d}"
    if style.kind == "half":
        return f"{year:04d}-{style.half_letter}{idx + 1}"
    if style.kind == "quarter":
        return f"{year:04d}-Q{idx + 1}"
    if style.kind == "month":
        return f"{year:04d}-{idx + 1:02d}"
    first, last = period_bounds(period, f)
    return (last if style.month_end else first).isoformat()


# how a period is named when no series sets the style (a page's labels, the benchmark panels)
PLAIN_STYLES = {"A": Style("year"), "S": Style("half"), "Q": Style("quarter"), "M": Style("month")}


def period_name(iso_date: str, frequency: str) -> str:
    """An ISO date named as the period at ``frequency`` that holds it: ``2016``, ``2016-H1``, ``2016-Q1``,
    ``2016-01`` (raises ``TimestampError`` for text that is no timestamp)."""
    f = check_frequency(frequency)
    return format_period(parse_period(iso_date, f), f, PLAIN_STYLES[f])


def series_style(texts: list[str], frequency: str) -> Style:
    """The style of a series' timestamps (all must share it)."""
    if not texts:
        raise TimestampError("no timestamps")
    style = detect_style(texts[0])
    if style.kind == "date":
        return Style("date", month_end=is_month_end_style(texts, frequency))
    return style
