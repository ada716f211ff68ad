"""A brand-new series (5 months) uploaded as an external series: the refusal asks for a growth rate, and every way
in must take one.

Found on a QA walk: uploading 5 months on /forecasts/series/ said "5 months of history; at least 8 are needed ...
or enter a growth rate for a projection", but had stored the series anyway, so uploading it again with a rate was
refused ("a series named ... exists"); the series' own page (its "Refit" form) and
POST /api/v1/external-series/{id}/forecast/ had no growth rate at all, so they answered the same message forever."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from forecasts.demand.models import ExternalSeries
from tests.helpers import login

pytestmark = pytest.mark.django_db

YOUNG = "month,value\n2025-08,100000\n2025-09,115000\n2025-10,131000\n2025-11,144000\n2025-12,160000\n"


def _upload(client: Client, rate: str = "") -> Any:
    return client.post("/forecasts/series/", {
        "name": "young cluster", "units": "core-hours/month", "frequency": "M", "aggregate": "sum", "horizon": "12",
        "growth_rate": rate, "log": "auto", "file": SimpleUploadedFile("young.csv", YOUNG.encode())})


def test_a_refused_upload_stores_nothing_so_the_rate_can_be_given_next(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    refused = _upload(client).content.decode()
    assert "5 months of history; at least 8 are needed" in refused and "growth rate" in refused
    assert not ExternalSeries.objects.filter(name="young cluster").exists()
    made = _upload(client, "20")
    assert made.status_code == 302
    fit = ExternalSeries.objects.get(name="young cluster").fits.get()
    assert fit.family == "growth_rate"


def test_the_series_page_and_the_api_take_a_growth_rate(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/external-series/", {"name": "young", "units": "core-hours/month", "frequency": "M",
                                                     "aggregate": "sum", "csv": YOUNG}, content_type="application/json")
    sid = made.json()["id"]
    refused = client.post(f"/api/v1/external-series/{sid}/forecast/", {"horizon": 12},
                          content_type="application/json")
    assert refused.status_code == 400 and "at least 8 are needed" in str(refused.json()["series"])
    fit = client.post(f"/api/v1/external-series/{sid}/forecast/", {"horizon": 12, "growth_rate": 20},
                      content_type="application/json")
    assert fit.status_code == 201, fit.content
    assert fit.json()["family"] == "growth_rate" and len(fit.json()["forecast"]) == 12
    page = client.get(f"/forecasts/series/{sid}/").content.decode()
    assert 'name="growth_rate"' in page
    client.post(f"/forecasts/series/{sid}/", {"horizon": "6", "backtest": "12", "log": "auto", "growth_rate": "10"})
    latest = ExternalSeries.objects.get(pk=sid).fits.order_by("-created_at").first()
    assert latest.family == "growth_rate" and latest.options["growth_rate"] == 10.0 and latest.options["horizon"] == 6
