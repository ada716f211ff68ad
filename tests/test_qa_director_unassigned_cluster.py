"""Mapping a new cluster's users to a new department (QA, session 26: the KTH SP2 trace uploaded beside the
demo's nexus). The ingest run's page said "On kth-sp2 ... 560,164 core-hours landed in Unassigned ... Map
them to departments", but the link opened every cluster's Unassigned list: 664,961 core-hours, nexus's
identities (ext03) among KTH's, no column or filter to tell them apart. The link now names the cluster, the
page lists that cluster's identities with the run page's total, and mapping one keeps the list on it."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from tests.helpers import screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def _unassigned(departments: dict[str, Any]) -> Any:
    from forecasts.models import Cluster, Department, Identity, IngestRun, UsageMonthly

    bucket, _ = Department.objects.get_or_create(code=Department.UNASSIGNED_CODE, defaults={"name": "Unassigned"})
    nexus, sp2 = Cluster.objects.create(name="nexus"), Cluster.objects.create(name="kth-sp2")
    ext = Identity.objects.create(user="ext03", group="visitors", account="startup-alloc")
    u6, u7 = Identity.objects.create(user="u6", group="g6"), Identity.objects.create(user="u7", group="g7")
    UsageMonthly.objects.bulk_create([
        UsageMonthly(cluster=nexus, month=date(2019, 5, 1), identity=ext, department=bucket, jobs=2011,
                     core_hours=42_739.0),
        UsageMonthly(cluster=sp2, month=date(1997, 1, 1), identity=u6, department=bucket, jobs=334,
                     core_hours=47_128.0),
        UsageMonthly(cluster=sp2, month=date(1997, 2, 1), identity=u7, department=bucket, jobs=100,
                     core_hours=1_000.0),
    ])
    return IngestRun.objects.create(cluster=sp2, format="swf", status=IngestRun.Status.COMPLETED, records_read=444,
                                    jobs_ingested=444, first_start=datetime(1997, 1, 2, tzinfo=UTC),
                                    last_end=datetime(1997, 2, 27, tzinfo=UTC))


def test_the_runs_map_link_lists_that_clusters_identities_with_its_total(
        page_as: Any, live_server: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    run = _unassigned(departments)
    page = page_as(planner_user)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/usage/ingest/{run.pk}/")
    assert "48,128 core-hours" in page.locator(".unassigned-share").inner_text()
    page.click("text=Map them to departments")
    page.wait_for_url(f"{live_server.url}/usage/unassigned/?cluster=kth-sp2")
    kpis = page.locator(".kpis").inner_text()
    assert "48,128" in kpis and "unassigned core-hours on kth-sp2" in kpis and "2\nunmapped identities" in kpis
    table = page.locator("table.unassigned").inner_text()
    assert "u6" in table and "u7" in table and "ext03" not in table
    screenshot(page, "qa-director-unassigned-cluster")
    row = page.locator("table.unassigned tr", has_text="u6")
    row.locator("select[name=kind]").select_option("group")
    row.locator("select[name=department]").select_option(label="Genetics and Genomic Sciences")
    row.locator("button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/usage/unassigned/?cluster=kth-sp2")
    assert "Mapped group g6" in page.content()
    assert "1,000" in page.locator(".kpis").inner_text()
    assert "ext03" not in page.locator("table.unassigned").inner_text()
    page.goto(f"{live_server.url}/usage/unassigned/")
    assert "ext03" in page.locator("table.unassigned").inner_text()
    assert "43,739" in page.locator(".kpis").inner_text() and "all clusters" in page.locator(".kpis").inner_text()
    assert not errors, errors
