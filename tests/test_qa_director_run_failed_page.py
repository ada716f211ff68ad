"""An optimiser run that fails while its page is open (QA, session 26: "Run the optimiser" on the first KTH SP2
design). The page kept its heading "Optimiser run #5: Queued" and "This page moves on to the result when the
worker finishes" under a progress card reading "failed", forever: a failed job had no result to move on to.
The failed job now names the run page as where its details are, and the page loads itself again to show
"Failed" with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import screenshot
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_a_run_failing_while_watched_shows_failed_and_why(page_as: Any, live_server: Any, planner_user: Any) -> None:
    from planner.designs.services import optimizer_run_fail, optimizer_run_start

    design = load_catalog_and_designs()["optimised"]
    run = optimizer_run_start(design=design, user=planner_user)  # no worker: it stays queued while we look
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/runs/{run.pk}/")
    assert page.locator("#run-status").inner_text() == "Queued"
    page.wait_for_selector(".job-progress")
    optimizer_run_fail(run.pk, run.job_id, "ValueError: the solver gave up")  # what the task does on an error
    page.wait_for_selector(".errors", timeout=15000)
    assert "The run failed: ValueError: the solver gave up" in page.locator(".errors").inner_text()
    assert page.locator("#run-status").inner_text() != "Queued" and page.locator(".job-progress").count() == 0
    assert "moves on to the result" not in page.content()
    screenshot(page, "qa-director-run-failed")
