"""A series that is not monthly is described in its own periods, and its yearly figures agree with its periods.

Found walking the pages with yearly, quarterly and half-yearly uploads: part years counted in "months", the
trace's horizon in months, the charts' x axis titled "month" and backtest origins named as months (2021-10 for
2021-Q4), a yearly series' year figures drawn again from the sample paths (87.9 beside the period's 88.3), and
gaps filled by interpolation counted as observed."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from forecasts.models import ExternalSeries
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _upload(client: Client, name: str, frequency: str, rows: str, *, horizon: int, aggregate: str) -> Any:
    resp = client.post("/forecasts/series/", {"name": name, "units": "PB", "frequency": frequency,
                                              "aggregate": aggregate, "horizon": str(horizon),
                                              "file": SimpleUploadedFile(f"{name}.csv", rows.encode())})
    assert resp.status_code == 302, resp.content.decode()[:500]
    return ExternalSeries.objects.get(name=name).fits.get()


def _figure(page: str, figure: str) -> dict[str, Any]:
    start = page.index(f'id="{figure}"')
    return json.loads(page[page.index(">", start) + 1: page.index("</script>", start)])  # type: ignore[no-any-return]


def test_a_yearly_series_year_figures_are_its_periods_own_quantiles(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    rows = "year,value\n" + "".join(f"{2000 + i},{10 * 1.3 ** i * (1 + 0.06 * math.sin(i)):.3f}\n" for i in range(20))
    for aggregate in ("last", "mean", "sum"):
        fit = _upload(client, f"yearly-{aggregate}", "A", rows, horizon=5, aggregate=aggregate)
        steps = {s["date"][:4]: s for s in fit.result["steps"]}
        future = [y for y in fit.yearly if y["periods_forecast"]]
        assert len(future) == 5
        for y in future:  # one period a year: the year is that period, to the digit (not resampled paths)
            s = steps[str(y["year"])]
            assert (y["median"], y["p10"], y["p90"]) == (s["median"], s["p10"], s["p90"])


def test_a_quarterly_series_is_described_in_quarters(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    quarters = [f"{2013 + i // 4}-Q{i % 4 + 1}" for i in range(38)]  # ends in 2022-Q2: 2023 is a part year
    rows = "period,value\n" + "".join(f"{q},{100 * 1.02 ** i * (1.1 if i % 4 == 3 else 1.0):.2f}\n"
                                      for i, q in enumerate(quarters))
    fit = _upload(client, "quarterly", "Q", rows, horizon=8, aggregate="sum")
    page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert "(part year: 2 quarters)" in page and "months)" not in page.split('id="yearly-table"')[0][-3000:]
    assert "<dt>Horizon</dt><dd>8 quarters</dd>" in page
    assert "sum of the year&#x27;s quarters" in page or "sum of the year's quarters" in page
    assert _figure(page, "fan-fig")["layout"]["xaxis"]["title"]["text"] == "quarter"
    bt = _figure(page, "bt-fig")
    assert bt["layout"]["xaxis"]["title"]["text"] == "quarter"
    assert any(t.get("name") == "predicted from 2021-Q2" for t in bt["data"])
    series_page = client.get(f"/forecasts/series/{fit.external_series.pk}/").content.decode()
    assert "Predicted from 2021-Q2 vs what happened" in series_page


def test_a_gap_filled_for_the_fit_is_counted_as_filled_not_observed(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    rows = "year,value\n" + "".join(f"{2000 + i},{'' if i == 7 else f'{100 + 5 * i}'}\n" for i in range(18))
    fit = _upload(client, "gappy", "A", rows, horizon=3, aggregate="last")
    gap = next(y for y in fit.yearly if y["year"] == 2007)
    assert gap["periods_observed"] == 0 and gap["periods_filled"] == 1
    assert next(y for y in fit.yearly if y["year"] == 2006)["periods_filled"] == 0
    assert "+ 1 filled" in client.get(f"/forecasts/fits/{fit.pk}/").content.decode()


def test_a_series_page_links_its_fit_page(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    # not an exact line: that one's band has no width, and its caveat says so instead (test_qa_forecast_edge_flat)
    rows = "year,value\n" + "".join(f"{2000 + i},{100 + 7 * i + 4 * (i % 3)}\n" for i in range(16))
    fit = _upload(client, "linked", "A", rows, horizon=3, aggregate="mean")
    page = client.get(f"/forecasts/series/{fit.external_series.pk}/").content.decode()
    assert f'href="/forecasts/fits/{fit.pk}/" id="fit-page-link"' in page
    assert 'id="interval-caveat"' in page and "A yearly series forecast on its own" in page  # as on the fit page


def test_a_short_series_upload_offers_a_growth_rate_and_takes_it(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    rows = "year,value\n" + "".join(f"{2019 + i},{50 + 5 * i}\n" for i in range(4))
    form = client.get("/forecasts/series/").content.decode()
    assert 'name="growth_rate"' in form  # the field the short-history message points to
    resp = client.post("/forecasts/series/", {"name": "young", "units": "PB", "frequency": "A", "aggregate": "last",
                                              "horizon": "3", "file": SimpleUploadedFile("young.csv", rows.encode())})
    assert "enter a growth rate" in resp.content.decode()
    resp = client.post("/forecasts/series/", {"name": "young", "units": "PB", "frequency": "A", "aggregate": "last",
                                              "horizon": "3", "growth_rate": "20", "replace": "1",
                                              "file": SimpleUploadedFile("young.csv", rows.encode())})
    assert resp.status_code == 302
    fit = ExternalSeries.objects.get(name="young").fits.get()
    assert fit.family == "growth_rate" and fit.options["growth_rate"] == 20
    assert abs(fit.result["steps"][0]["median"] - 65 * 1.2) < 1e-6  # the last value, 20 % a year on
