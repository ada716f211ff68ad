""""Use this one" on every row of the model table pins that member, from the fit page and the series page alike.

Found on a QA walk: the model table offers "Use this one" on the scale ensemble's members too ('theta_log',
'ets_damped_orig', ...), but the fit page answered 404 for them (only the plain member names were accepted); and on
an external series' page the same buttons posted to the series' refit form, which refitted with its own defaults
(a 5-period horizon, not the fit's 24) and refused the other-scale names as an unknown model. A member on the other
scale is now pinned as that member with its scale forced (what `--family theta --log` does), and the buttons post to
the fit, so the pinned forecast keeps the fit's horizon and settings."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.models import ForecastFit
from tests.helpers import login

pytestmark = pytest.mark.django_db

# noisy linear growth: the log rule keeps the original scale, so the '_log' twins are on the model table
VALUES = [400_000 + 3_000 * i + 9_000 * math.sin(2.1 * i) for i in range(40)]
LINE = "month,value\n" + "".join(f"{2022 + i // 12}-{i % 12 + 1:02d},{v:.0f}\n" for i, v in enumerate(VALUES))


@pytest.fixture
def fit(client: Client, planner_user: Any) -> ForecastFit:
    login(client, planner_user)
    made = client.post("/api/v1/external-series/", {"name": "line", "units": "core-hours/month", "frequency": "M",
                                                     "aggregate": "sum", "csv": LINE}, content_type="application/json")
    body = client.post(f"/api/v1/external-series/{made.json()['id']}/forecast/", {"horizon": 24},
                       content_type="application/json").json()
    return ForecastFit.objects.get(pk=body["fit"])


def test_an_other_scale_member_is_pinned_with_its_scale(client: Client, fit: ForecastFit) -> None:
    assert fit.result["log"] is False and "theta_log" in {f["family"] for f in fit.result["fits"]}
    page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert 'value="theta_log"' in page
    resp = client.post(f"/forecasts/fits/{fit.pk}/", {"family": "theta_log"})
    assert resp.status_code == 302
    pinned = ForecastFit.objects.latest("created_at")
    assert pinned.pk != fit.pk and pinned.family == "theta" and pinned.options["log"] is True
    assert pinned.result["log"] is True and pinned.options["horizon"] == 24
    remake = "forecast_series FILE --frequency M --horizon 24 --family theta --log"
    assert remake in client.get(f"/forecasts/fits/{pinned.pk}/").content.decode()
    assert remake in client.get(f"/forecasts/series/{fit.external_series_id}/").content.decode()


def test_the_series_pages_buttons_pin_on_the_fit_keeping_its_horizon(client: Client, fit: ForecastFit) -> None:
    page = client.get(f"/forecasts/series/{fit.external_series_id}/").content.decode()
    assert f'action="/forecasts/fits/{fit.pk}/"' in page
    client.post(f"/forecasts/fits/{fit.pk}/", {"family": "dotm"})
    pinned = ForecastFit.objects.latest("created_at")
    assert pinned.family == "dotm" and pinned.options["horizon"] == 24 and len(pinned.result["steps"]) == 24


def test_the_api_pins_the_names_its_members_list(client: Client, fit: ForecastFit) -> None:
    """The API's members list names 'theta_log'; POSTing that name as the family was refused as not a valid choice."""
    listed = {m["family"] for m in client.get(f"/api/v1/forecasts/{fit.pk}/").json()["summary"]["members"]}
    assert "theta_log" in listed
    made = client.post(f"/api/v1/external-series/{fit.external_series_id}/forecast/",
                       {"horizon": 24, "family": "theta_log"}, content_type="application/json")
    assert made.status_code == 201, made.content
    assert made.json()["family"] == "theta" and made.json()["options"]["log"] is True


def test_a_usage_series_is_pinned_the_same_way(client: Client, departments: dict[str, Any],
                                               planner_user: Any) -> None:
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=36)
    login(client, planner_user)
    made = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "minerva", "horizon_months": 12,
                                              "family": "dotm_orig"}, content_type="application/json")
    assert made.status_code == 201, made.content
    summary = made.json()["summary"]
    assert summary["family"] == "dotm" and summary["options"]["log"] is False and summary["log_scale"] is False
