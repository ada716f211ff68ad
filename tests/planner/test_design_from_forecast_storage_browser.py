"""A planner starts a design from a core-hours forecast with the storage forecast chosen too, in a real browser,
and reads the chance that storage holds each year (screenshots to look at)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import screenshot
from tests.planner.test_design_from_forecast_storage import site  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_planner_checks_storage_on_the_storage_forecast_from_the_start_form(page_as: Any, live_server: Any,
                                                                             planner_user: Any,
                                                                             site: dict[str, Any]) -> None:  # noqa: F811
    from planner.designs.models import Design

    core, storage = site["core"], site["storage"]
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/from-forecast/{core.pk}/")
    page.wait_for_selector("#from-forecast-form")
    assert page.input_value("#storage-fit") == ""  # compute only unless the planner chooses one
    page.select_option("#storage-fit", str(storage.pk))
    page.select_option("#storage-system", "ddn-sfa10k")  # the scanned file systems, owned as these units
    page.locator("#storage-fit").scroll_into_view_if_needed()
    screenshot(page, "designs-from-forecast-storage-form")
    page.click("text=Start the design")
    page.wait_for_url("**/designs/*/edit/")
    design = Design.objects.latest("pk")
    assert design.scenario["uncertainty"]["forecast"]["storage_fit"] == storage.pk
    assert sum(e["count"] for e in design.scenario["existing"]) == 2
    page.click("text=Save and evaluate")
    page.wait_for_selector("#chance-table")
    table = page.locator("#chance-table").inner_text()
    assert "storage" in table.lower() and all(str(y) in table for y in (2024, 2025, 2026)), table
    page.wait_for_selector("[data-figure='fig-fan-storage_tb'][data-drawn='yes'] .main-svg", timeout=15000)
    page.locator("#chance").scroll_into_view_if_needed()
    screenshot(page, "designs-from-forecast-storage-chance")
