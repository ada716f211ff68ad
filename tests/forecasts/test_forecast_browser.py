"""A planner in a real browser: fan chart page, plan page (and its editor), external series page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forecasts.demand.external import external_series_create
from forecasts.demand.plans import plan_import_file
from forecasts.demand.series import external_fit_create, forecast_fit_create, spec_from_names
from forecasts.models import ClusterCapacity
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import screenshot

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def loaded(departments: dict[str, Any]) -> dict[str, Any]:
    h = usage_history(departments, months=48)
    ClusterCapacity.objects.create(cluster=h["cluster"], effective_from="2020-01-01", cores=600)
    plan, _ = plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml")
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva"), horizon_months=36)
    series = external_series_create(name="Disk price", units="USD/TB", frequency="A",
                                    text=(ROOT / "fixtures" / "price_disk_usd_per_tb.csv").read_text())
    external_fit_create(series, horizon=5, backtest_origins=8)
    return {"plan": plan, "fit": fit, "series": series}


def test_fan_chart_page_draws_the_fan_model_table_and_backtest(page_as: Any, live_server: Any,
                                                               loaded: dict[str, Any], planner_user: Any) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/fits/{loaded['fit'].pk}/?plan=none")
    page.wait_for_selector("#fan-chart[data-drawn=yes] .main-svg")
    page.wait_for_selector("#backtest-chart[data-drawn=yes] .main-svg")
    legend = (page.locator("#fan-chart .legend").first.text_content() or "")
    assert "80% interval" in legend and "95% interval" in legend and "observed" in legend and "(chosen)" in legend
    assert "capacity" in legend
    assert "core-hours/month" in (page.locator("#fan-chart .g-ytitle").first.text_content() or "")
    assert page.locator("#model-table tbody tr").count() >= 4
    assert page.locator("#yearly-table tbody tr").count() == 7  # 2020-2026
    assert page.locator(".fc-subnav a.active").inner_text() == "Usage forecasts"
    screenshot(page, "forecast_fan_chart")


def test_plan_page_shows_the_minerva_figures_and_the_editor_recomputes(
        page_as: Any, live_server: Any, loaded: dict[str, Any], planner_user: Any) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/plans/{loaded['plan'].pk}/")
    page.wait_for_selector("#plan-chart[data-drawn=yes] .main-svg")
    row2019 = page.locator("#plan-years tbody tr", has_text="2019").inner_text()
    assert "48 M" in row2019 and "31.5 M" in row2019
    screenshot(page, "forecast_plan")
    page.click("text=Edit (saves a new version)")
    # the editor's script listens from DOMContentLoaded on: typing before the page has loaded sends
    # an input event nothing hears (a race seen in CI under load)
    page.wait_for_selector("#plan-editor")
    page.wait_for_load_state("load")
    page.fill("input[name=count-0-2]", "24")
    page.wait_for_selector("#derived-table[data-recomputed]")
    assert "recomputed" in page.inner_text("#recalc-status")
    assert "24.0" in page.locator("#derived-table tbody tr", has_text="2019").inner_text()
    screenshot(page, "forecast_plan_editor")


def test_external_series_page_shows_fan_backtest_and_csv(page_as: Any, live_server: Any,
                                                         loaded: dict[str, Any], planner_user: Any) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/series/{loaded['series'].pk}/")
    page.wait_for_selector("#series-chart[data-drawn=yes] .main-svg")
    page.wait_for_selector("#series-backtest[data-drawn=yes] .main-svg")
    assert page.locator("#steps-table tbody tr").count() == 5
    assert page.locator("a", has_text="Download forecast CSV").count() >= 1
    assert "USD/TB" in (page.locator("#series-chart .g-ytitle").first.text_content() or "")
    screenshot(page, "forecast_external_series")


def test_a_fit_that_misses_more_than_a_naive_step_warns_above_its_fan(page_as: Any, live_server: Any,
                                                                     planner_user: Any) -> None:
    values = [100 + (i % 2) for i in range(12)] + [160, 110, 190, 120, 230, 125]
    series = external_series_create(name="Jumpy archive", units="PB", frequency="A",
                                    text="year,value\n" + "".join(f"{2000 + i},{v}\n" for i, v in enumerate(values)))
    fit = external_fit_create(series, horizon=3)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/fits/{fit.pk}/")
    page.wait_for_selector("#fan-chart[data-drawn=yes] .main-svg")
    warning = page.locator("#accuracy-caveat")
    assert warning.is_visible()
    text = warning.inner_text()
    assert text.startswith(f"Backtest MASE {fit.errors['mase']:.2f}") and "plan on the 80% band" in text
    assert page.locator(".fc-subnav a.active").inner_text() == "External series"  # an external series' fit
    screenshot(page, "forecast_accuracy_caveat")
