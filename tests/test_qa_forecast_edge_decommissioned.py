"""A cluster that was switched off (usage falls to zero and stays): every month's median is 0, yet the year's median
is not, and the page must say why.

Found on a QA walk (48 months uploaded, the last 10 of them 0): the per-month forecast CSV and the chart's median
read 0 for every month of 2026, while the yearly table, the KPI and the yearly CSV quoted "2026 median 1.11 M
core-hours" (80%: 0 - 6.32 M). Both are right (a year's figures are taken over the sums of whole sample paths, and
each month's band reaches far above its median of 0), but a director adding up the monthly CSV got 0 and nothing on
the page said why the two differ. The engine is not changed (its backtest MASE of 7.7 is already flagged)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db

LEVEL = [500_000 * (1 + 0.005 * i) * (1 + 0.04 * math.sin(1.3 * i)) for i in range(48)]
OFF = "month,value\n" + "".join(f"{2022 + i // 12}-{i % 12 + 1:02d},{0 if i >= 38 else LEVEL[i]:.0f}\n"
                                 for i in range(48))


def test_a_year_whose_median_is_not_its_months_medians_summed_says_why(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/external-series/", {"name": "switched off", "units": "core-hours/month",
                                                     "frequency": "M", "aggregate": "sum", "csv": OFF},
                       content_type="application/json")
    fit = client.post(f"/api/v1/external-series/{made.json()['id']}/forecast/", {"horizon": 24},
                      content_type="application/json").json()
    months_2026 = [r["median"] for r in fit["forecast"] if r["period"].startswith("2026")]
    year_2026 = next(y for y in fit["yearly"] if y["year"] == 2026)
    assert sum(months_2026) < 0.5 * year_2026["median"]  # the shape found: the two disagree
    for url in (f"/forecasts/fits/{fit['fit']}/", f"/forecasts/series/{made.json()['id']}/"):
        page = client.get(url).content.decode()
        assert 'id="medians-apart"' in page, url
        assert "2026: the year's median" in page and "sums of whole sample paths" in page


def test_a_steady_series_gets_no_such_note(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    steady = OFF.replace(",0\n", ",520000\n")
    made = client.post("/api/v1/external-series/", {"name": "steady", "units": "core-hours/month",
                                                     "frequency": "M", "aggregate": "sum", "csv": steady},
                       content_type="application/json")
    fit = client.post(f"/api/v1/external-series/{made.json()['id']}/forecast/", {"horizon": 24},
                      content_type="application/json").json()
    assert 'id="medians-apart"' not in client.get(f"/forecasts/fits/{fit['fit']}/").content.decode()
