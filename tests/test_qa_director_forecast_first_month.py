"""A new cluster's forecast (QA, session 26: the KTH SP2 trace uploaded as cluster kth-sp2). Its logs begin on
30 September 1996, so September held one day's usage (100 core-hours against ~50,000 in a whole month), yet
the forecast fitted it as a whole month ("history 1996-09 - 1997-07 (11 whole months)"): the random walk's drift
and the members' levels started from it, and the 1999 80% band reached 0. A month the logs begin inside is
now left out of the fit, as the month they end inside is, and the fit page says so."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _cluster(departments: dict[str, Any], name: str, first_start: datetime) -> None:
    from forecasts.accounting.models import IngestRun
    from forecasts.models import UsageMonthly

    data = usage_history(departments, months=25, cluster=name, start=date(2019, 9, 1))  # Sep 2019 .. Sep 2021
    if first_start.day != 1:  # a day of usage in the month the logs begin inside
        UsageMonthly.objects.filter(cluster=data["cluster"], month=date(2019, 9, 1)).update(core_hours=25.0)
    IngestRun.objects.create(cluster=data["cluster"], format="swf", status=IngestRun.Status.COMPLETED,
                             first_start=first_start, last_end=datetime(2021, 9, 30, 23, tzinfo=UTC))


def test_the_month_the_logs_begin_inside_is_left_out_of_the_fit_and_named(
        departments: dict[str, Any], planner_user: Any) -> None:
    from forecasts.demand.series import forecast_fit_create, spec_from_names

    _cluster(departments, "late", datetime(2019, 9, 30, 12, 10, tzinfo=UTC))
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="late"), horizon_months=12)
    assert fit.start == date(2019, 10, 1) and len(fit.values) == 24
    first = fit.result["first_part_period"]
    assert first["month"] == "2019-09-01" and first["value"] == pytest.approx(100.0)
    assert first["logs_start"].startswith("2019-09-30")
    html = login(Client(), planner_user).get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert 'id="first-part-month"' in html
    assert "2019-09 is left out of the fit and the chart: the logs begin 2019-09-30" in html


def test_logs_beginning_on_a_months_first_day_keep_that_month(departments: dict[str, Any]) -> None:
    from forecasts.demand.series import forecast_fit_create, spec_from_names

    _cluster(departments, "whole", datetime(2019, 9, 1, 0, 5, tzinfo=UTC))
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="whole"), horizon_months=12)
    assert fit.start == date(2019, 9, 1) and len(fit.values) == 25
    assert "first_part_period" not in fit.result
