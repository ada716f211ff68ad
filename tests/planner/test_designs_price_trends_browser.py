"""The price-trend design in a real browser: the forecast-price badge and table, and the comparison."""

from __future__ import annotations

from typing import Any

import pytest

from planner.models import Design
from tests.helpers import screenshot
from tests.planner.designs_data import load_catalog_and_designs
from tests.planner.test_designs_price_trends import fitted_disk_series

pytestmark = pytest.mark.django_db(transaction=True)


def test_price_trend_design_page_and_comparison(page_as: Any, live_server: Any, planner_user: Any) -> None:
    from planner.designs.demo import load_price_trend_design

    designs = load_catalog_and_designs()
    fit = fitted_disk_series()
    load_price_trend_design(lambda msg: None)
    saved = Design.objects.get(name__contains="disk priced by its trend (optimised")
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/{saved.pk}/")
    badge = page.locator(".price-badges .badge.forecast").first
    assert badge.is_visible()
    assert f"median of fit #{fit.pk}" in badge.inner_text()
    table = page.locator("#forecast-prices").inner_text()
    assert "×0.500" in table and "observed" in table
    page.wait_for_selector("[data-figure='fig-cost'][data-drawn='yes'] .main-svg", timeout=15000)
    screenshot(page, "designs-price-trend-detail")
    page.goto(f"{live_server.url}/designs/compare/?ids={designs['narrow'].pk}&ids={saved.pk}")
    assert f"median of fit #{fit.pk}" in page.locator("#compare-table").inner_text()
    page.wait_for_selector("[data-figure='fig-tornado-1'][data-drawn='yes'] .main-svg", timeout=30000)
    assert "forecast P10-P90" in page.locator("#sensitivity").inner_text()
    screenshot(page, "designs-price-trend-compare")
