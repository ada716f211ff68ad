"""The report pages in a real browser: the form, the progress bar landing on the report, the preview."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import screenshot, wait_for_job
from tests.planner.reports_data import report_inputs

pytestmark = pytest.mark.django_db(transaction=True)


def test_new_report_progress_and_report_page(page_as: Any, live_server: Any, planner_user: Any,
                                             departments: dict[str, Any], tmp_path: Path, live_worker: Any) -> None:
    from planner.reports.models import GrantReport

    data = report_inputs(tmp_path, departments)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/reports/")
    assert "No reports yet" in page.content()
    page.goto(f"{live_server.url}/reports/new/")
    page.select_option("select[name=design]", str(data["narrow"].pk))
    page.select_option("select[name=cluster]", str(data["cluster"].pk))
    screenshot(page, "reports-new")
    page.click("#report-form button[type=submit]")
    page.wait_for_selector(".job-progress")
    report = GrantReport.objects.get()
    assert wait_for_job(report.job_id, timeout_s=180).status == "succeeded"
    page.wait_for_url(f"{live_server.url}/reports/{report.pk}/", timeout=30000)
    table3 = page.locator("#table-configuration").inner_text()
    assert "536" in table3 and "11.1/8.5" in table3 and "130" in table3
    bench = page.locator("#table-benchmarks").inner_text()
    assert "471" in bench and "562" in bench and "2,702" in bench
    assert page.locator("#figure-benchmarks svg").is_visible()
    assert page.locator("#downloads a").count() == 4
    screenshot(page, "reports-detail")
    page.goto(f"{live_server.url}/reports/")
    assert "ready" in page.locator("#reports").inner_text()
    screenshot(page, "reports-list")
