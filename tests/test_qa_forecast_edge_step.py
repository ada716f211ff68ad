"""A series whose level doubled 8 months before its end (the cluster was doubled): the engine forecasts it poorly
(backtest MASE about 7) and the fit page warns "plan on the 80% band, not the median"; the external series' own
page, where an upload lands, showed the same fan with no warning (it showed only the short-history caveat)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db

STEP = "month,value\n" + "".join(
    f"{2022 + i // 12}-{i % 12 + 1:02d},{500_000 * (1 + 0.04 * math.sin(1.7 * i)) * (2 if i >= 28 else 1):.0f}\n"
    for i in range(36))


def test_the_series_page_warns_when_the_backtest_missed_by_more_than_a_naive_step(client: Client,
                                                                                  planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/external-series/", {"name": "doubled", "units": "core-hours/month", "frequency": "M",
                                                     "aggregate": "sum", "csv": STEP}, content_type="application/json")
    fit = client.post(f"/api/v1/external-series/{made.json()['id']}/forecast/", {"horizon": 12},
                      content_type="application/json").json()
    assert fit["accuracy_caveat"] and fit["backtest"]["mase"] > 1
    page = client.get(f"/forecasts/series/{made.json()['id']}/").content.decode()
    assert 'id="accuracy-caveat"' in page and "plan on the 80% band, not the median" in page
