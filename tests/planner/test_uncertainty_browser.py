"""The chance a design is enough and the cost of confidence, in a real browser (screenshots to look at)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from planner.designs.models import OptimizerRun
from planner.designs.services import design_create, design_evaluate
from tests.helpers import screenshot
from tests.planner.test_uncertainty_pages import SMALL

pytestmark = pytest.mark.django_db(transaction=True)


def _drawn(page: Any, fig_id: str) -> None:
    page.wait_for_selector(f"[data-figure='{fig_id}'][data-drawn='yes'] .main-svg", timeout=15000)


def test_a_planner_sees_the_chance_buys_90_percent_and_reads_the_cost_curve(page_as: Any, live_server: Any,
                                                                             planner_user: Any) -> None:
    from planner.designs.services_paths import service_level_run_execute
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()
    design = design_create(text=yaml.safe_dump(SMALL))
    design_evaluate(design=design)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    table = page.locator("#chance-table").inner_text()
    assert "2015" in table and "2016" in table and "%" in table
    _drawn(page, "fig-fan-core_hours")
    page.locator("#chance").scroll_into_view_if_needed()
    screenshot(page, "designs-chance")
    page.click("#chance button.primary")
    page.wait_for_url("**/designs/runs/**")
    run = OptimizerRun.objects.get(design=design)
    if run.status in ("queued", "running"):  # no worker in this test: do what it does
        service_level_run_execute(run.pk)
    page.goto(f"{live_server.url}/designs/runs/{run.pk}/")
    assert "Bought for 90% of the demand paths" in page.content()
    _drawn(page, "fig-confidence")
    assert "95%" in page.locator("#confidence-table").inner_text()
    screenshot(page, "designs-cost-of-confidence")


def test_a_planner_starts_a_design_from_a_forecast_page_and_sees_the_chance_each_year(
        page_as: Any, live_server: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    from datetime import date

    from forecasts.accounting.models import ClusterCapacity
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from planner.designs.models import Design
    from planner.hardware.services import catalog_load_yaml
    from tests.forecasts.forecast_factories import usage_history

    catalog_load_yaml()
    usage_history(departments, months=48)
    cluster = Cluster.objects.get(name="minerva")
    ClusterCapacity.objects.create(cluster=cluster, effective_from=date(2019, 1, 1), cores=1536, nodes=24)
    fit = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster), horizon_months=36)
    from tests.planner.test_design_from_forecast_plan_department import _plan

    plan = _plan("Minerva from 2024", None)  # in the forecast's years: a plan outside them adds nothing
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/fits/{fit.pk}/")
    page.click("text=Start a design from this forecast")  # to the form: visiting its address makes nothing
    page.wait_for_selector("#from-forecast-form")
    assert page.input_value("#node-type") == "amd-interlagos"  # the cluster's 64-core nodes, preselected
    screenshot(page, "designs-from-forecast-form")
    # a plan on a forecast of every department: the form asks whether its sequencing is new to the cluster
    # the plan on the forecast's chart comes preselected (it adds core-hours in these years); without it, no note
    assert page.input_value("#plan") == str(plan.pk)
    page.select_option("#plan", "")
    assert not page.is_visible("#plan-overlap")
    page.select_option("#plan", str(plan.pk))
    assert page.is_visible("#plan-overlap") and "counted twice" in page.inner_text("#plan-overlap").lower()
    screenshot(page, "designs-from-forecast-plan-overlap")
    page.select_option("#plan", "")
    page.click("text=Start the design")
    page.wait_for_url("**/designs/*/edit/")
    design = Design.objects.latest("pk")
    assert design.scenario["uncertainty"]["forecast"]["core_fit"] == fit.pk
    assert design.scenario["existing"][0]["count"] == 24
    page.click("text=Save and evaluate")
    page.wait_for_selector("#chance-table")
    table = page.locator("#chance-table").inner_text()
    assert all(str(y) in table for y in (2024, 2025, 2026)) and "%" in table
    assert "core-hours at target in 2024" in page.locator(".kpis").inner_text()
    screenshot(page, "designs-from-forecast")
