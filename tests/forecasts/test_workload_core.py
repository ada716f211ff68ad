"""Histogram arithmetic of forecasts/workload/core.py against hand-computed values."""

from __future__ import annotations

from datetime import date

import pytest

from forecasts.workload.core import (
    DAY_BUCKET,
    TEN_MINUTES_BUCKET,
    TIME_EDGES_S,
    Bucket,
    CapacityStep,
    bucket_of,
    capacity_core_hours,
    cdf,
    cores_bucket,
    cores_label,
    quantile,
)


def test_cores_buckets_are_1_2_3to4_5to8() -> None:
    assert [cores_bucket(c) for c in (1, 2, 3, 4, 5, 8, 9, 64, 65)] == [0, 1, 2, 2, 3, 3, 4, 6, 7]
    assert [cores_label(b) for b in (0, 1, 2, 3)] == ["1", "2", "3-4", "5-8"]


def test_time_buckets_have_edges_at_ten_minutes_and_a_day() -> None:
    assert bucket_of(599, TIME_EDGES_S) < TEN_MINUTES_BUCKET <= bucket_of(600, TIME_EDGES_S)
    assert bucket_of(86399, TIME_EDGES_S) < DAY_BUCKET <= bucket_of(86400, TIME_EDGES_S)


def test_quantile_interpolates_log_uniformly_within_the_bucket() -> None:
    # 10 values in [1, 100): the median sits half-way in log space: 10
    assert quantile([Bucket(1, 100, 10)], 0.5) == pytest.approx(10.0)
    # two buckets of 5: the median is the top of the first
    assert quantile([Bucket(1, 4, 5), Bucket(4, 16, 5)], 0.5) == pytest.approx(4.0)
    # clipped to the exact extremes
    assert quantile([Bucket(1, 100, 1)], 0.5, clip=(7.0, 7.0)) == 7.0
    assert quantile([], 0.5) is None


def test_capacity_respects_dated_changes() -> None:
    steps = [CapacityStep(date(2024, 1, 1), 100), CapacityStep(date(2024, 1, 11), 200)]
    # Jan 2024: 10 days x 100 cores + 21 days x 200 cores, x 24 h
    assert capacity_core_hours(steps, date(2024, 1, 1), date(2024, 2, 1)) == (10 * 100 + 21 * 200) * 24
    assert capacity_core_hours(steps, date(2023, 12, 1), date(2024, 1, 1)) == 0


def test_cdf() -> None:
    assert cdf([1, 1, 2]) == [0.25, 0.5, 1.0]


def test_capacity_until_an_instant_counts_the_elapsed_share_of_its_day() -> None:
    from datetime import UTC, datetime

    from forecasts.workload.core import capacity_core_hours_until

    steps = [CapacityStep(date(2024, 1, 1), 100)]
    assert capacity_core_hours_until(steps, date(2024, 2, 1), datetime(2024, 2, 20, 13, tzinfo=UTC)) == \
        pytest.approx((19 * 24 + 13) * 100)
    assert capacity_core_hours_until(steps, date(2024, 2, 1), datetime(2024, 2, 1, tzinfo=UTC)) == 0
