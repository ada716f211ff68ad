"""Rollup reads are cached until the rollups change: a second page view costs no rollup query, a
new rollup row or a moved mapping gives the new answer at once, and each department sees its own."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

pytestmark = pytest.mark.django_db(transaction=True)  # the cache stays off inside a transaction


@pytest.fixture(autouse=True)
def fresh_stamp(settings: Any) -> None:
    from django.core.cache import caches

    settings.ROLLUP_STAMP_SECONDS = 0  # re-read the stamp on every call: no lag to wait out
    caches["rollups"].clear()


def test_a_cached_rollup_read_is_served_until_a_new_rollup_row_arrives(
        departments: dict[str, Any], planner_user: Any, genomics_viewer: Any,
        django_assert_max_num_queries: Any) -> None:
    from forecasts.models import UsageMonthly
    from forecasts.usage.selectors import usage_monthly_by_department
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=6)
    first = usage_monthly_by_department(user=planner_user)
    with django_assert_max_num_queries(2):  # the stamp and the user's groups, not the rollup
        assert usage_monthly_by_department(user=planner_user) == first
    viewer_rows = usage_monthly_by_department(user=genomics_viewer)
    assert {r["department__code"] for r in viewer_rows} == {"ggs"} != {r["department__code"] for r in first}

    row = UsageMonthly.objects.filter(department=departments["genomics"]).first()
    UsageMonthly.objects.create(cluster=row.cluster, month=date(2020, 1, 1), identity=row.identity,
                                department=departments["genomics"], queue="new", jobs=1, core_hours=1000.0)
    after = usage_monthly_by_department(user=planner_user)
    jan = [r for r in after if r["month"] == date(2020, 1, 1) and r["department__code"] == "ggs"]
    was = [r for r in first if r["month"] == date(2020, 1, 1) and r["department__code"] == "ggs"]
    assert jan[0]["core_hours"] == pytest.approx(was[0]["core_hours"] + 1000.0)


def test_a_mapping_change_gives_a_new_stamp() -> None:
    from forecasts.models import Department, IdentityMapping
    from forecasts.usage.cache import rollup_stamp

    before = rollup_stamp()
    dept = Department.objects.create(code="zz", name="Zed")
    assert rollup_stamp() != before
    middle = rollup_stamp()
    IdentityMapping.objects.create(kind="user", name="zed", department=dept)
    assert rollup_stamp() != middle
