"""A flat series (the same core-hours every month): the page must not call a perfect forecast a miss, and must
say why its band has no width.

Found on a QA walk (48 months of 400,000 core-hours uploaded as an external series): the forecast was 400,000
with an 80% band of 400,000 - 400,000, and

- "What we would have predicted a year ago" said "58% of the 12 following months fell inside its 80% interval"
  though every month was predicted exactly: the later steps' bounds came out as 400,000.00000000006, a float's
  last digit above the actual, which counted as outside;
- nothing said why the band had no width: a director read it as a certain forecast. The fit summary (API, command,
  the fit page and the series page) now says the history never changed, so the band only says the past did not."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db

FLAT = "month,value\n" + "".join(f"{2022 + i // 12}-{i % 12 + 1:02d},400000\n" for i in range(48))


@pytest.fixture
def flat_fit(client: Client, planner_user: Any) -> dict[str, Any]:
    login(client, planner_user)
    made = client.post("/api/v1/external-series/", {"name": "flat", "units": "core-hours/month", "frequency": "M",
                                                     "aggregate": "sum", "csv": FLAT}, content_type="application/json")
    assert made.status_code == 201, made.content
    fit = client.post(f"/api/v1/external-series/{made.json()['id']}/forecast/", {"horizon": 12},
                      content_type="application/json")
    assert fit.status_code == 201, fit.content
    return {**fit.json(), "series": made.json()["id"]}


def test_an_exact_forecast_of_a_flat_year_is_not_counted_as_missed(client: Client, flat_fit: dict[str, Any]) -> None:
    page = client.get(f"/forecasts/fits/{flat_fit['fit']}/").content.decode()
    assert "100% of the 12 following months fell inside its 80% interval" in page
    series_page = client.get(f"/forecasts/series/{flat_fit['series']}/").content.decode()
    assert "100% of the 12 later values fell inside its 80% interval" in series_page


def test_a_band_without_width_is_explained_everywhere(client: Client, flat_fit: dict[str, Any]) -> None:
    assert all(r["p10"] == pytest.approx(r["p90"]) for r in flat_fit["forecast"])
    caveat = flat_fit["interval_caveat"]
    assert caveat and "no width" in caveat and "48 values fitted are all equal" in caveat
    api = client.get(f"/api/v1/forecasts/{flat_fit['fit']}/").json()["summary"]
    assert api["interval_caveat"] == caveat
    for url in (f"/forecasts/fits/{flat_fit['fit']}/", f"/forecasts/series/{flat_fit['series']}/"):
        assert "no width" in client.get(url).content.decode(), url


def test_a_member_that_could_not_be_fitted_offers_no_use_this_one(client: Client, flat_fit: dict[str, Any]) -> None:
    """ETS cannot be fitted to a constant series; its row said so and still offered "Use this one", which only
    answered "the pinned member 'ets' could not be fitted to this series"."""
    page = client.get(f"/forecasts/fits/{flat_fit['fit']}/").content.decode()
    assert "could not be fitted to the whole series" in page
    assert 'name="family" value="ets"' not in page and 'name="family" value="theta"' in page


def test_a_member_left_out_beside_an_exact_one_is_not_said_to_be_10x_worse(client: Client,
                                                                         flat_fit: dict[str, Any]) -> None:
    """The best member's backtest was exact (MASE 0): "over 10x the best member's", beside two 0.000s in the model
    table, read as nonsense; the note says the best was exact and this one was not, with its MASE."""
    page = client.get(f"/forecasts/fits/{flat_fit['fit']}/").content.decode()
    assert "over 10x the best member" not in page
    assert "backtest forecasts were exact (MASE 0) and this one&#x27;s were not" in page \
        or "backtest forecasts were exact (MASE 0) and this one's were not" in page
