"""A department head reads their statement and year-to-date chart in a real browser."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def three_months(departments: Any, tmp_path: Path) -> None:
    from forecasts.accounting.parsers.synth import default_people, slurm_lines
    from forecasts.chargeback.services import statements_compute
    from forecasts.models import Department, DepartmentAdjustment, Project
    from tests.forecasts.chargeback_data import ingest_lines, map_accounts, minerva_plan

    people = default_people(60)
    for code in {p.group for p in people}:
        Department.objects.get_or_create(code=code, defaults={"name": code.upper()})
    for p in people:
        Project.objects.get_or_create(name=p.account, defaults={"department": Department.objects.get(code=p.group),
                                                                "pi": f"Dr. {p.account.split('-')[0].title()}"})
    lines = slurm_lines(3000, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 4, 1, tzinfo=UTC),
                        cluster="nexus", people=people, seed=5)
    ingest_lines(list(lines), tmp_path, cluster="nexus")
    map_accounts([(p.account, p.group, p.account) for p in people])
    plan = minerva_plan(name="FY24 rates")
    DepartmentAdjustment.objects.create(plan=plan, department=departments["chemistry"], subsidy_percent=Decimal(20))
    for month in (date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)):
        statements_compute(month=month)


def test_a_viewer_reads_the_statement_and_the_year_to_date_chart(page_as: Any, live_server: Any,
                                                                 chemistry_viewer: Any, three_months: None) -> None:
    from forecasts.models import Statement

    statement = Statement.objects.get(department__code="scb", month="2024-03-01", is_current=True)
    page = page_as(chemistry_viewer)
    page.goto(f"{live_server.url}/chargeback/")
    assert page.locator("#kpi-total").inner_text() == f"${statement.total_usd:,}"
    assert "Genetics and Genomic Sciences" not in page.content()
    screenshot(page, "chargeback-month-viewer")
    page.click("text=Structural and Chemical Biology")
    page.wait_for_url(f"**/chargeback/statements/{statement.pk}/")
    assert page.locator("#kpi-total").inner_text() == f"${statement.total_usd:,}"
    assert page.locator("#by-project tbody tr").count() >= 2
    assert page.locator("#top-jobs tbody tr").count() >= 1
    assert "Subsidy" in page.locator("#by-project").inner_text()
    screenshot(page, "chargeback-statement")
    page.click("text=Structural and Chemical Biology 2024")
    page.wait_for_selector("#ytd-chart[data-drawn=yes]")
    assert page.locator("#ytd-chart .bars path").count() >= 3  # three months of compute bars
    assert page.locator(".chart-actions >> text=Download CSV").is_visible()
    screenshot(page, "chargeback-ytd")


def test_a_planner_sees_every_department_of_the_month(page_as: Any, live_server: Any, planner_user: Any,
                                                      three_months: None) -> None:
    from forecasts.models import Statement

    page = page_as(planner_user)
    page.goto(f"{live_server.url}/chargeback/?month=2024-02")
    rows = page.locator("#statements tbody tr").count()
    assert rows == Statement.objects.filter(month="2024-02-01", is_current=True).count() >= 5
    assert page.get_by_role("button", name="Compute").is_visible()
    screenshot(page, "chargeback-month-planner")
