"""The Hardware and Designs pages in a real browser: numbers and charts visible, screenshots to look at."""

from __future__ import annotations

from typing import Any

import pytest

from planner.designs.services import optimizer_run_execute
from planner.models import OptimizerRun
from tests.helpers import screenshot
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db(transaction=True)


def _chart_drawn(page: Any, fig_id: str) -> None:
    page.wait_for_selector(f"[data-figure='{fig_id}'][data-drawn='yes'] .main-svg", timeout=15000)


def test_catalog_and_benchmarks_pages(page_as: Any, live_server: Any, planner_user: Any) -> None:
    load_catalog_and_designs()
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/hardware/")
    assert page.locator("#node-types").inner_text().count("ivy-bridge") == 1
    assert "isilon-h600" in page.locator("#storage-systems").inner_text()
    screenshot(page, "designs-hardware-catalog")
    page.goto(f"{live_server.url}/hardware/benchmarks/")
    speedups = page.locator("#speedups").inner_text()
    assert "2.51x" in speedups and "1.91x" in speedups and "4.81x" in speedups
    rows = page.locator("#derived").inner_text()
    assert "471" in rows and "562" in rows and "2,702" in rows
    assert "325.4" in page.locator("#batches").inner_text()
    screenshot(page, "designs-benchmarks")


def test_design_page_and_comparison_with_tornado(page_as: Any, live_server: Any, planner_user: Any) -> None:
    designs = load_catalog_and_designs()
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/")
    assert "narrow high-clock" in page.locator("#designs").inner_text()
    screenshot(page, "designs-list")
    page.goto(f"{live_server.url}/designs/{designs['narrow'].pk}/")
    for fig in ("fig-capacity", "fig-cost", "fig-genomes", "fig-cpg"):
        _chart_drawn(page, fig)
    assert "✗ short" in page.locator("#year-table").inner_text()
    screenshot(page, "designs-detail-narrow")
    page.goto(f"{live_server.url}/designs/{designs['narrow'].pk}/edit/")
    page.fill("textarea[name=scenario]", designs["narrow"].scenario_yaml.replace("count: 209", "count: many"))
    page.click("button[value=evaluate]")
    assert "purchases[0].count: expected an integer" in page.locator("#scenario-errors").inner_text()
    screenshot(page, "designs-editor-error")
    page.goto(f"{live_server.url}/designs/compare/?ids={designs['wide'].pk}&ids={designs['narrow'].pk}")
    why = page.locator("#why").inner_text()
    assert "cannot meet the genomes demand" in why and "genomes/day" in why and "core-hours" in why
    for fig in ("fig-capacity", "fig-cost", "fig-genomes", "fig-cpg", "fig-tornado-0", "fig-tornado-1"):
        _chart_drawn(page, fig)
    assert "Hardware prices" in page.locator("#sensitivity").inner_text()
    screenshot(page, "designs-compare")


def test_optimiser_run_page_shows_the_result(page_as: Any, live_server: Any, planner_user: Any) -> None:
    designs = load_catalog_and_designs()
    run = optimizer_run_execute(OptimizerRun.objects.create(design=designs["optimised"]).pk)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/runs/{run.pk}/")
    status = page.locator("#run-status").get_attribute("data-status")
    assert status in ("optimal", "gap")
    words = page.locator("#run-status").inner_text()  # the status in words, not the solver's "gap"
    assert words.startswith("Optimal" if status == "optimal" else "Within ")
    gap = page.locator("#kpi-gap").inner_text()  # how far from the cheapest plan, in percent
    assert gap == "Optimal" if status == "optimal" else gap == f"≤ {100 * run.result['mip_gap']:.2f}%"
    assert "ivy-bridge" in page.locator("#purchases").inner_text()  # the 2013 candidates only
    details = page.locator("#solver-details")  # the solver's own words, folded away until asked for
    assert not details.locator("p").is_visible()
    details.locator("summary").click()
    assert details.locator("p").inner_text().startswith("HiGHS:")
    _chart_drawn(page, "fig-capacity")
    screenshot(page, "designs-optimiser-run")
