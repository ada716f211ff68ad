"""A planner in a real browser: the combined forecast's fan chart with a partial month left out,
and a panel uploaded and scored."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forecasts.demand.series import forecast_fit_create, spec_from_names
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_fan_chart_shows_the_combination_its_members_and_the_partial_month_apart(
        page_as: Any, live_server: Any, departments: dict[str, Any], planner_user: Any) -> None:
    from forecasts.accounting.models import IngestRun

    h = usage_history(departments, months=49)  # Jan 2020 .. Jan 2024, logs ending 6 January
    IngestRun.objects.create(cluster=h["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2024, 1, 6, 9, tzinfo=UTC))
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva"), horizon_months=35)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/fits/{fit.pk}/?plan=none")
    page.wait_for_selector("#fan-chart[data-drawn=yes] .main-svg")
    legend = page.locator("#fan-chart .legend").first.text_content() or ""
    assert "combined (chosen)" in legend and "partial month" in legend
    assert "2024-01 is left out of the fit" in page.inner_text("#partial-month")
    assert "Guerrero" in page.inner_text("#scale-rule") or "scale" in page.inner_text("#scale-rule")
    table = page.inner_text("#model-table")
    for member in ("combined", "ets", "theta", "dotm", "arima", "rwd"):
        assert member in table
    # in words, with the code a planner pins by beside them
    assert "random walk with drift" in table and "dynamic optimised Theta" in table and "the combination" in table
    assert "(part year" in page.inner_text("#yearly-table")  # 2026 has 11 forecast months
    screenshot(page, "forecast_engine_fan_chart")


def test_a_planner_uploads_a_panel_and_reads_the_scores(page_as: Any, live_server: Any, planner_user: Any,
                                                        tmp_path: Path) -> None:
    rows = ["series_id,timestamp,value"]
    for k in range(4):
        rows += [f"S{k},{1980 + i},{100 * (1.03 + 0.01 * k) ** i * (1 + 0.03 * ((i * 7 + k) % 5 - 2)):.2f}"
                 for i in range(26)]
    path = tmp_path / "panel.csv"
    path.write_text("\n".join(rows) + "\n")
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/forecasts/panel/")
    page.set_input_files("input[name=file]", str(path))
    page.fill("input[name=horizon]", "6")
    page.fill("input[name=holdout]", "6")
    page.click("#panel-upload button.primary")
    page.wait_for_selector("#panel-scores")
    scores = page.inner_text("#panel-scores")
    assert "combined" in scores and "theta" in scores and "global" in scores  # the cross-learned member
    assert "the pooled model (learned across the panel)" in scores and "damped ETS" in scores
    assert "gradient-boosted trees (LightGBM)" in page.inner_text("body")
    assert "4 of 4 series scored on their last 6 points" in page.inner_text("#panel-result h2")
    screenshot(page, "forecast_engine_panel")
