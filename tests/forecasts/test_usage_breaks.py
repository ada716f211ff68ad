"""A month whose usage falls (or jumps) more than a hundredfold against the month before is named on the usage
page as a break: a report test's cluster had its last whole month at 212 core-hours after 368,000, and nothing on
the page said so while the forecast of that series went wild (docs/forecasting.md, the scale rule)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from forecasts.usage.breaks import breaks
from tests.helpers import login

pytestmark = pytest.mark.django_db


def test_breaks_are_hundredfold_changes_either_way_and_empty_months_are_not_compared() -> None:
    m = [date(2023, k, 1) for k in range(1, 7)]
    assert breaks([(m[0], 1000.0), (m[1], 9.0), (m[2], 950.0), (m[3], 0.0), (m[4], 1200.0), (m[5], 12.5)]) == [
        (m[1], 9.0, m[0], 1000.0), (m[2], 950.0, m[1], 9.0)]
    assert breaks([(m[0], 1000.0), (m[1], 10.0)]) == []  # exactly a hundredfold: not more
    assert breaks([]) == [] and breaks([(m[0], 5.0)]) == []


def test_the_usage_page_names_a_month_that_fell_a_hundredfold(client: Any, planner_user: Any,
                                                              departments: dict[str, Any]) -> None:
    from forecasts.models import Cluster, Identity, UsageMonthly
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=12, cluster="minerva", start=date(2023, 1, 1))
    login(client, planner_user)
    assert 'id="usage-breaks"' not in client.get("/usage/").content.decode()
    who = Identity.objects.get_or_create(user="gina", group="ggs", account="")[0]
    UsageMonthly.objects.create(cluster=Cluster.objects.get(name="minerva"), month=date(2024, 1, 1), identity=who,
                                department=departments["genomics"], jobs=4, core_hours=212.0)
    html = client.get("/usage/").content.decode()
    note = " ".join(html.split('id="usage-breaks">')[1].split("</p>")[0].split())
    assert note.startswith("January 2024 has 212 core-hours against ") and "in December 2023" in note
    assert "more than a hundredfold in one month is a break" in note
