"""Price trends in designs, Django side: price_trends resolved against stored forecasts, recorded on the
evaluation, shown on the design and comparison pages, used by the command, the tornado and the demo."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from forecasts.models import ForecastFit
from planner.models import Design, DesignEvaluation, OptimizerRun
from tests.helpers import login
from tests.planner.designs_data import ROOT, SCENARIOS, load_catalog_and_designs

pytestmark = pytest.mark.django_db
TREND = SCENARIOS / "minerva_optimised_price_trend.yaml"
SERIES = "Disk price (illustrative)"


def fitted_disk_series() -> ForecastFit:
    """The demo disk $/TB series, stored and fitted as the forecasting demo step does."""
    from forecasts.demand.external import external_series_create
    from forecasts.demand.series import external_fit_create

    series = external_series_create(
        name=SERIES, units="USD/TB", frequency="A", aggregate="mean",
        text=(ROOT / "fixtures" / "price_disk_usd_per_tb.csv").read_text(), source_name="price_disk_usd_per_tb.csv",
    )
    return external_fit_create(series, horizon=5, backtest_origins=8)


def trend_design(**changes: Any) -> Design:
    from planner.designs.services import design_create

    text = TREND.read_text(encoding="utf-8")
    for old, new in changes.items():
        text = text.replace(old, new)
    return design_create(text=text)


def _run(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_evaluate_design_on_the_price_trend_scenario_reports_the_forecast_prices() -> None:
    fit = fitted_disk_series()
    out = _run("evaluate_design", str(TREND), "--json")
    (src,) = out["price_sources"]
    assert (src["series"], src["fit_id"], src["percentile"], src["base_year"]) == (SERIES, fit.pk, "median", 2014)
    assert src["items"] == ["ddn-sfa10k", "ddn-sfa12k", "ibm-gss26", "lustre-dell"]
    assert src["multipliers"]["2014"] == 1.0 and src["multipliers"]["2019"] == pytest.approx(20.5 / 41.0)
    assert out["evaluation"]["price_index"]["storage"]["ibm-gss26"]["2017"] == pytest.approx(26 / 41)
    plan = _run("optimize_design", str(TREND), "--time-limit", "20")
    assert plan["status"] in ("optimal", "gap")


def test_evaluate_design_without_a_fitted_series_names_the_field() -> None:
    with pytest.raises(CommandError, match=r"price_trends\.storage\.series: no price series 'Disk price"):
        call_command("evaluate_design", str(TREND), stdout=io.StringIO(), stderr=io.StringIO())


def test_a_bad_percentile_is_rejected_naming_the_field(tmp_path: Path) -> None:
    fitted_disk_series()
    bad = tmp_path / "bad.yaml"
    bad.write_text(TREND.read_text().replace("percentile: median", "percentile: p95")
                   .replace("catalog: ../catalog.yaml", f"catalog: {ROOT / 'fixtures' / 'catalog.yaml'}"))
    with pytest.raises(CommandError, match=r"price_trends\.storage\.percentile: expected one of median, p10, p90"):
        call_command("evaluate_design", str(bad), stdout=io.StringIO(), stderr=io.StringIO())


def test_the_evaluation_records_which_prices_were_forecast_and_a_refit_makes_a_new_one() -> None:
    from forecasts.demand.series import refit_fit
    from planner.designs.services import design_evaluate

    load_catalog_and_designs()
    fit = fitted_disk_series()
    design = trend_design()
    ev = design_evaluate(design=design)
    (src,) = ev.price_sources
    assert src["fit_id"] == fit.pk and src["series_id"] == fit.external_series_id
    assert [y["year"] for y in src["years"]] == list(range(2014, 2020))
    assert all(y["observed"] for y in src["years"])  # 2014-2019 are history in the demo series
    assert src["years"][-1]["multiplier"] == pytest.approx(0.5)
    assert design_evaluate(design=design).pk == ev.pk  # same inputs: reused
    refit_fit(fit)
    again = design_evaluate(design=design)
    assert again.pk != ev.pk and again.price_sources[0]["fit_id"] != fit.pk


def test_the_design_page_shows_the_forecast_price_badge_and_table(client: Any, planner_user: Any) -> None:
    load_catalog_and_designs()
    fit = fitted_disk_series()
    design = trend_design()
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert f"forecast: disk storage (USD/TB), median of fit #{fit.pk}" in html
    assert 'id="forecast-prices"' in html and "×0.500" in html and "observed" in html
    assert f'href="/forecasts/series/{fit.external_series_id}/"' in html
    # a design with constant prices has neither
    plain = Design.objects.get(name__contains="narrow")
    assert "badge forecast" not in client.get(f"/designs/{plain.pk}/").content.decode()


def test_the_comparison_shows_which_prices_were_forecast_and_the_tornado_uses_p10_p90(
        client: Any, planner_user: Any) -> None:
    designs = load_catalog_and_designs()
    fit = fitted_disk_series()
    design = trend_design()
    html = login(client, planner_user).get(
        f"/designs/compare/?ids={designs['narrow'].pk}&ids={design.pk}").content.decode()
    assert f"median of fit #{fit.pk}" in html and "catalog prices, constant" in html
    sens = DesignEvaluation.objects.filter(design=design).latest("created_at").sensitivity
    prices = next(b for b in sens["bars"] if b["factor"] == "prices")
    assert "disk storage: forecast P10-P90" in prices["label"]
    assert "forecast prices: P10" in html


def test_the_demo_step_makes_the_price_trend_design_after_the_forecast_and_is_idempotent() -> None:
    from planner.designs.demo import load_price_trend_design

    load_catalog_and_designs()
    logs: list[str] = []
    load_price_trend_design(logs.append)
    assert "skipped" in logs[0]
    fitted_disk_series()
    load_price_trend_design(logs.append)
    design = Design.objects.get(name="Minerva 2014-2019: the problem to optimise, disk priced by its trend")
    run = design.optimizer_runs.get()
    assert run.status in (OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP) and run.result_design_id
    saved = run.result_design
    assert saved is not None and "price_trends" in saved.scenario
    assert saved.evaluations.get().price_sources[0]["series"] == SERIES
    count = Design.objects.count()
    load_price_trend_design(logs.append)
    assert Design.objects.count() == count and OptimizerRun.objects.filter(design=design).count() == 1


def test_the_api_lists_the_forecast_prices_of_the_latest_evaluation(client: Any, planner_user: Any) -> None:
    from planner.designs.services import design_evaluate

    load_catalog_and_designs()
    fit = fitted_disk_series()
    design = trend_design()
    design_evaluate(design=design)
    body = login(client, planner_user).get(f"/api/v1/designs/{design.pk}/").json()
    assert body["latest_evaluation"]["forecast_prices"] == [
        {"target": "disk storage", "series": SERIES, "fit_id": fit.pk, "percentile": "median"}]
