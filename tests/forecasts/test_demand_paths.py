"""Joint yearly demand paths: whole years only, trajectories kept whole, the plan's spread per path."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from forecasts.demand.paths import (
    PathsError,
    PlanSpread,
    PlanYear,
    Spread,
    combine,
    year_end_levels,
    yearly_totals,
)


def _months(start: date, n: int) -> list[date]:
    return [date(start.year + (start.month - 1 + i) // 12, (start.month - 1 + i) % 12 + 1, 1) for i in range(n)]


def test_monthly_paths_sum_to_calendar_years_and_a_year_with_fewer_than_12_months_is_partial() -> None:
    months = _months(date(2026, 12, 1), 25)  # Dec 2026 .. Dec 2028
    monthly = np.ones((3, 25)) * np.array([[1.0], [2.0], [3.0]])
    years, totals, partial = yearly_totals(months, monthly)
    assert years == [2027, 2028]
    assert partial == [2026]
    assert totals.tolist() == [[12.0, 12.0], [24.0, 24.0], [36.0, 36.0]]


def test_storage_is_the_december_level() -> None:
    months = _months(date(2027, 1, 1), 24)
    monthly = np.arange(24, dtype=float)[None, :]
    years, levels = year_end_levels(months, monthly)
    assert years == [2027, 2028] and levels.tolist() == [[11.0, 23.0]]


def test_trend_paths_keep_each_trajectory_whole_so_years_stay_correlated() -> None:
    rng = np.random.default_rng(1)
    level = rng.normal(100, 20, size=500)
    trend = np.stack([level, level * 1.1, level * 1.2], axis=1)  # a path high in year 1 is high later
    paths = combine(years=[2027, 2028, 2029], n_paths=2000, trend_core_hours=([2027, 2028, 2029], trend))
    c = np.corrcoef(paths.core_hours[:, 0], paths.core_hours[:, 2])[0, 1]
    assert c > 0.999
    ratio = paths.core_hours[:, 2] / paths.core_hours[:, 0]
    assert np.allclose(ratio, 1.2)


def test_the_plan_spread_is_one_draw_per_path_held_over_the_years() -> None:
    plan = [PlanYear(2027, 1e6, 1000, 10, 2), PlanYear(2028, 2e6, 2000, 20, 4)]
    spread = PlanSpread(instruments=Spread(0.8, 1.2), core_hours_per_genome=Spread(0.9, 1.1))
    paths = combine(years=[2027, 2028], n_paths=4000, plan=plan, spread=spread, seed=3)
    g = paths.genomes_per_day
    assert np.allclose(g[:, 1] / g[:, 0], 2.0)  # same multiplier both years
    assert g[:, 0].min() >= 0.8 * 10 and g[:, 0].max() <= 1.2 * 10
    assert abs(np.median(g[:, 0]) - 10) < 0.2
    # core-hours carry the extra per-genome spread on top of the fleet's
    assert np.std(paths.core_hours[:, 0] / 1e6) > np.std(g[:, 0] / 10)


def test_no_spread_gives_the_plan_itself_on_every_path() -> None:
    plan = [PlanYear(2027, 5.0, 6.0, 7.0, 8.0)]
    paths = combine(years=[2027], n_paths=10, plan=plan)
    assert paths.core_hours[:, 0].tolist() == [5.0] * 10 and paths.ingest_tb_per_day[:, 0].tolist() == [8.0] * 10


def test_trend_and_plan_add_path_by_path() -> None:
    trend = np.full((10, 1), 100.0)
    paths = combine(years=[2027], n_paths=10, trend_core_hours=([2027], trend),
                    plan=[PlanYear(2027, 5.0, 0.0, 0.0, 0.0)])
    assert paths.core_hours[:, 0].tolist() == [105.0] * 10


def test_a_year_no_source_covers_is_an_error_naming_it_not_a_silent_zero() -> None:
    with pytest.raises(PathsError, match="no demand for 2030"):
        combine(years=[2029, 2030], n_paths=5, trend_core_hours=([2029], np.ones((5, 1))))


@pytest.mark.parametrize("raw, message", [
    ({"instruments": [1.2, 0.8]}, "low <= 1 <= high"),
    ({"fleet": [0.8, 1.2]}, "unknown key 'fleet'"),
    ({"instruments": 0.8}, r"\[low, high\]"),
])
def test_a_bad_uncertainty_block_says_what_is_wrong(raw: dict[str, object], message: str) -> None:
    with pytest.raises(PathsError, match=message):
        PlanSpread.from_dict(raw)


def test_quantiles_are_per_year_and_paths_are_json_ready() -> None:
    paths = combine(years=[2027], n_paths=101, trend_core_hours=([2027], np.arange(101.0)[:, None]))
    d = paths.to_dict(max_paths=5)
    assert d["quantiles"]["core_hours"]["2027"] == [10.0, 50.0, 90.0]
    assert len(d["paths"]["core_hours"]) == 5


def test_paths_around_typed_in_figures_widen_with_the_horizon_and_keep_the_median() -> None:
    from forecasts.demand.paths import around_figures

    paths = around_figures(years=[2027, 2028, 2029], figures={"core_hours": [100.0, 200.0, 300.0]},
                           sigma_per_year={"core_hours": 0.2}, n_paths=20000, seed=5)
    med = np.median(paths.core_hours, axis=0)
    assert np.allclose(med, [100, 200, 300], rtol=0.02)
    spread = np.std(np.log(paths.core_hours), axis=0)
    assert np.allclose(spread, [0.2, 0.2 * np.sqrt(2), 0.2 * np.sqrt(3)], rtol=0.03)
    assert paths.storage_tb.sum() == 0.0


def test_a_negative_spread_is_refused() -> None:
    from forecasts.demand.paths import around_figures

    with pytest.raises(PathsError, match="negative spread"):
        around_figures(years=[2027], figures={}, sigma_per_year={"core_hours": -0.1}, n_paths=3)
