"""External series (issue 9): parse a CSV a planner brings, store it, forecast it, export it.

CSV: a header row naming a date/period column and a value column (the first two columns are
used when the names are not recognised), one row per period, gaps allowed.  Periods may be
written as ISO dates (2019-04-01), months (2019-04), quarters (2019Q2, 2019-Q2), halves
(2019H1, 2019-S1) or years (2019); each is placed at its period's first day.  Lines starting
with ``#`` are comments (units and provenance belong there or in the upload form).
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import date
from typing import Any

import numpy as np

from forecasts.demand.engine.timestamps import TimestampError, period_name
from forecasts.demand.growth import series_from_points
from forecasts.demand.models import ExternalSeries

DATE_HEADERS = ("date", "period", "month", "quarter", "year", "time")
VALUE_HEADERS = ("value", "values", "y", "amount")
FREQUENCIES = ("M", "Q", "S", "A")


class ExternalSeriesError(ValueError):
    """A CSV or series problem, with the line and field named."""


def parse_period(text: str, frequency: str) -> date:
    """Start date of the period written in ``text`` (see the module docstring for forms)."""
    s = text.strip().upper()
    if m := re.fullmatch(r"(\d{4})-?Q([1-4])", s):
        return date(int(m[1]), 3 * int(m[2]) - 2, 1)
    if m := re.fullmatch(r"(\d{4})-?[HS]([12])", s):
        return date(int(m[1]), 1 if m[2] == "1" else 7, 1)
    if m := re.fullmatch(r"(\d{4})", s):
        return date(int(m[1]), 1, 1)
    if m := re.fullmatch(r"(\d{4})-(\d{1,2})", s):
        return date(int(m[1]), int(m[2]), 1)
    try:
        d = date.fromisoformat(s[:10])
    except ValueError as exc:
        raise ValueError(f"not a date or period: {text!r}") from exc
    months = {"M": 1, "Q": 3, "S": 6, "A": 12}[frequency]
    return date(d.year, (d.month - 1) // months * months + 1, 1)


def parse_csv(text: str, frequency: str, *, name: str = "the CSV",
              gaps: list[int] | None = None) -> list[tuple[date, float]]:
    """(period start, value) points from CSV text; raises with line numbers on bad rows. A row whose value is
    blank, NA, NaN or null is a gap (a period without a value): its line number goes into ``gaps``."""
    if frequency not in FREQUENCIES:
        raise ExternalSeriesError(f"frequency must be one of {', '.join(FREQUENCIES)}, not {frequency!r}")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) < 2:
        raise ExternalSeriesError(f"{name}: needs a header row and at least one data row")
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = [h.strip().lower() for h in next(reader)]
    di = next((i for i, h in enumerate(header) if h in DATE_HEADERS), 0)
    vi = next((i for i, h in enumerate(header) if h in VALUE_HEADERS), 1 if di == 0 else 0)
    if len(header) < 2 or di == vi:
        raise ExternalSeriesError(f"{name}: header must name a date/period column and a value column")
    points: dict[date, float] = {}
    for n, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        try:
            when = parse_period(row[di], frequency)
        except (ValueError, IndexError) as exc:
            raise ExternalSeriesError(f"{name} line {n}: column {header[di]!r}: {exc}") from exc
        raw = row[vi].strip() if vi < len(row) else ""
        if raw == "" or raw.lower() in ("na", "nan", "null"):
            if gaps is not None:
                gaps.append(n)
            continue  # a gap
        try:
            value = float(raw.replace(",", ""))
        except ValueError as exc:
            raise ExternalSeriesError(f"{name} line {n}: column {header[vi]!r}: not a number: {raw!r}") from exc
        if not math.isfinite(value):  # "inf" or "1e400": a broken figure, not a missing one
            raise ExternalSeriesError(f"{name} line {n}: column {header[vi]!r}: not a finite number: {raw!r} "
                                      f"(leave the value blank for a period without one)")
        if when in points:
            raise ExternalSeriesError(f"{name} line {n}: period {when.isoformat()} appears twice")
        points[when] = value
    if len(points) < 3:
        raise ExternalSeriesError(f"{name}: needs at least 3 values, found {len(points)}")
    return sorted(points.items())


def describe_gaps(gaps: list[int]) -> str:
    """'2 periods without a value (lines 5, 8)': parse_csv's gap lines, for a summary line or a notice."""
    lines = ", ".join(map(str, gaps[:10])) + (", ..." if len(gaps) > 10 else "")
    many = len(gaps) > 1
    return f"{len(gaps)} period{'s' if many else ''} without a value (line{'s' if many else ''} {lines})"


def regular_values(series: ExternalSeries) -> tuple[date, list[float]]:
    pts = [(date.fromisoformat(d), float(v)) for d, v in series.points]
    start, values = series_from_points([d for d, _ in pts], [v for _, v in pts], series.frequency)
    return start, [float(v) for v in values]


def external_series_create(*, name: str, units: str, frequency: str, text: str, aggregate: str = "mean",
                           description: str = "", source_name: str = "", user: Any = None,
                           replace: bool = False, gaps: list[int] | None = None) -> ExternalSeries:
    """Parse and store (or, with ``replace``, update) a named series (``gaps``: parse_csv's)."""
    if not name.strip():
        raise ExternalSeriesError("give the series a name")
    if not units.strip():
        raise ExternalSeriesError("state the series' units (e.g. USD/TB)")
    if aggregate not in ExternalSeries.Aggregate.values:
        raise ExternalSeriesError(f"aggregate must be one of {', '.join(ExternalSeries.Aggregate.values)}")
    points = parse_csv(text, frequency, name=source_name or "the CSV", gaps=gaps)
    existing = ExternalSeries.objects.filter(name=name).first()
    if existing and not replace:
        raise ExternalSeriesError(f"a series named {name!r} exists; choose another name or replace it")
    fields = {
        "units": units, "frequency": frequency, "aggregate": aggregate,
        "points": [[d.isoformat(), v] for d, v in points], "description": description,
        "source_name": source_name,
        "uploaded_by": user if getattr(user, "is_authenticated", False) else None,
    }
    if existing:
        for k, v in fields.items():
            setattr(existing, k, v)
        existing.save()
        return existing
    return ExternalSeries.objects.create(name=name, **fields)


def period_names(dates: list[str], frequency: str) -> list[str]:
    """ISO period-start dates named as the series names its periods: 2019, 2019-H1, 2019-Q2, 2019-04."""
    out = []
    for d in dates:
        try:
            out.append(period_name(str(d)[:10], frequency))
        except TimestampError:
            out.append(str(d)[:10])
    return out


def forecast_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per future step: its period (2019, 2019-Q2, 2019-04), median and the 80% and 95% bounds (the CSV
    download, the API and the command); ``date`` is the period's first day, as before."""
    periods = period_names([s["date"] for s in result["steps"]], result.get("frequency", "M"))
    return [
        {
            "period": p, "date": s["date"], "median": s["median"], "p10": s["p10"], "p90": s["p90"],
            "p2_5": s["p2_5"], "p97_5": s["p97_5"],
        }
        for p, s in zip(periods, result["steps"], strict=True)
    ]


def forecast_csv(result: dict[str, Any], units: str) -> str:
    """History and forecast as one CSV (series units)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["period", "date", "kind", f"value_{units}", "median", "p10_80lo", "p90_80hi", "p2_5_95lo",
                "p97_5_95hi"])
    history = period_names(result["history_dates"], result.get("frequency", "M"))
    for p, d, v in zip(history, result["history_dates"], result["history"], strict=True):
        w.writerow([p, d, "observed", "" if v is None or (isinstance(v, float) and np.isnan(v)) else v,
                    "", "", "", "", ""])
    for r in forecast_rows(result):
        w.writerow([r["period"], r["date"], "forecast", "", r["median"], r["p10"], r["p90"], r["p2_5"], r["p97_5"]])
    return buf.getvalue()
