"""A design linked to a forecast never answers 500 for its demand paths, and one started from a projection at an
entered growth rate is judged on that projection's single path, saying so.

Found on a QA walk: a design started from a fit made from an entered growth rate (a 2-month history: "growth rate
you entered, no interval, no backtest") re-ran the forecast engine for its sample paths; the engine refuses so short
a history (ShortHistoryError, not a PathsError), so the design page answered 500 for good."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.paths import PathsError
from forecasts.demand.series import forecast_fit_create, spec_from_names
from planner.designs.models import Design
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


def _entered_rate_fit(departments: dict[str, Any]) -> Any:
    usage_history(departments, months=2, cluster="young", start=date(2024, 3, 1))
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="young"), horizon_months=36,
                              growth_rate=20.0)
    assert fit.family == "growth_rate"
    return fit


def test_a_design_from_an_entered_growth_rate_is_judged_on_its_single_path(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    fit = _entered_rate_fit(departments)
    login(client, planner_user)
    start = client.get(f"/designs/from-forecast/{fit.pk}/").content.decode()
    lead = start.split('id="judged-on">', 1)[1].split("</p>", 1)[0]
    assert "1,000 sample paths" not in lead and "single path" in lead and "20 % a year" in lead
    assert client.post(f"/designs/from-forecast/{fit.pk}/", {}).status_code == 302
    design = Design.objects.latest("pk")
    assert "single path" in design.scenario["description"]
    page = client.get(f"/designs/{design.pk}/")
    assert page.status_code == 200  # was 500: ShortHistoryError from the engine
    html = page.content.decode()
    note = html.split('id="single-path">', 1)[1].split("</p>", 1)[0]
    assert "Judged on the entered growth rate's single path: no uncertainty" in note
    assert f"forecast #{fit.pk}, 20 % a year as entered" in note
    table = html.split('id="chance-table"', 1)[1].split("</table>", 1)[0]
    shares = {cell.split("</strong>", 1)[0] for cell in table.split("<strong>")[1:]}
    assert shares <= {"0%", "100%"}  # one path: each year holds or falls short
    assert "sample paths" not in html.split('id="chance"', 1)[1].split("</section>", 1)[0]


def test_the_single_path_is_the_projection_s_own_months_on_every_row(departments: dict[str, Any]) -> None:
    from planner.designs.forecast_links import fit_paths

    fit = _entered_rate_fit(departments)
    months, paths = fit_paths(fit, 50, 0)
    steps = fit.result["steps"]
    assert months[0] == date.fromisoformat(steps[0]["date"]) and len(months) == len(steps) == 36
    assert paths.shape == (50, 36) and (paths == paths[0]).all()
    assert paths[0, 0] == pytest.approx(steps[0]["median"])


def test_a_plan_for_a_service_level_on_an_entered_rate_is_bought_for_its_path(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    from planner.designs.models import OptimizerRun
    from planner.designs.services_paths import service_level_run_create, service_level_run_execute

    fit = _entered_rate_fit(departments)
    login(client, planner_user).post(f"/designs/from-forecast/{fit.pk}/", {})
    design = Design.objects.latest("pk")
    run = service_level_run_execute(service_level_run_create(design=design, alpha=0.9, n_paths=20).pk)
    assert run.status != OptimizerRun.Status.FAILED, run.message
    every = run.result["service_level"]["out_of_sample"]
    assert every and set(every.values()) == {1.0}  # the one path, covered


def test_an_engine_refusal_is_a_reason_on_the_design_page_never_a_500(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    """A statistical fit whose stored history the engine no longer accepts (here cut to 2 months) gives
    PathsError, which the page shows as the reason the paths cannot be built."""
    from planner.designs.forecast_links import fit_paths

    usage_history(departments, months=30, cluster="old")
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="old"), horizon_months=36)
    login(client, planner_user).post(f"/designs/from-forecast/{fit.pk}/", {})
    design = Design.objects.latest("pk")
    fit.values = fit.values[:2]
    fit.save(update_fields=["values"])
    with pytest.raises(PathsError, match=f"forecast fit #{fit.pk}: its sample paths cannot be re-made"):
        fit_paths(fit, 10, 0)
    page = client.get(f"/designs/{design.pk}/")
    assert page.status_code == 200
    assert "The demand paths cannot be built" in page.content.decode()


def test_a_new_version_on_the_newest_forecast_takes_its_demand_and_names_it(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    """The new version repointed the paths to the new fit but kept the old fit's medians as its demand (a design
    showed 25,961,252 core-hours where the new fit's median was 25,913,594) and the old fit's number in its name."""
    from forecasts.models import Cluster

    usage_history(departments, months=48)
    spec = spec_from_names(metric="core_hours", cluster="minerva")
    old = forecast_fit_create(spec, horizon_months=36, through=date(2023, 6, 1))
    login(client, planner_user).post(f"/designs/from-forecast/{old.pk}/", {"start_year": 2024, "end_year": 2025})
    design = Design.objects.latest("pk")
    design.scenario["demand"][0]["storage_tb"] = 12.5  # a figure the planner typed in stays
    design.save(update_fields=["scenario"])
    new = forecast_fit_create(spec, horizon_months=36)
    medians = {int(y["year"]): float(y["median"]) for y in new.yearly}
    assert medians[2024] != pytest.approx({int(y["year"]): y["median"] for y in old.yearly}[2024], rel=1e-6)
    assert Cluster.objects.get(name="minerva")
    resp = client.post(f"/designs/{design.pk}/newest-forecasts/")
    v2 = Design.objects.latest("pk")
    assert resp.status_code == 302 and v2.parent_id == design.pk
    assert v2.scenario["uncertainty"]["forecast"]["core_fit"] == new.pk
    demand = {r["year"]: r for r in v2.scenario["demand"]}
    assert demand[2024]["core_hours"] == pytest.approx(medians[2024], abs=0.5)
    assert demand[2025]["core_hours"] == pytest.approx(medians[2025], abs=0.5)
    assert demand[2024]["storage_tb"] == 12.5
    assert v2.name == f"Design for minerva from forecast #{new.pk}" and f"#{old.pk}" not in v2.name
    assert f"forecast #{new.pk}" in v2.scenario["description"] and f"#{old.pk} " not in v2.scenario["description"]
    # the design page's figure is the new fit's median
    html = client.get(f"/designs/{v2.pk}/").content.decode()
    assert f"{medians[2024]:,.0f}" in html.replace("&#x2C;", ",") or f"{medians[2024] / 1e6:.1f} M" in html


def test_a_new_fit_that_does_not_cover_the_design_s_years_is_a_message_not_a_500(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    usage_history(departments, months=48)
    spec = spec_from_names(metric="core_hours", cluster="minerva")
    old = forecast_fit_create(spec, horizon_months=36)
    login(client, planner_user).post(f"/designs/from-forecast/{old.pk}/", {"start_year": 2024, "end_year": 2026})
    design = Design.objects.latest("pk")
    forecast_fit_create(spec, horizon_months=12)  # whole years 2024 only
    resp = client.post(f"/designs/{design.pk}/newest-forecasts/", follow=True)
    assert resp.status_code == 200 and Design.objects.latest("pk").pk == design.pk
    assert "has no whole-year figure for 2025, 2026" in resp.content.decode()


def test_the_rebuilt_demand_keeps_the_plan_and_the_clock_conversion_of_the_first_version(
        departments: dict[str, Any], catalog: None) -> None:
    """With a sequencer plan on the trend and the cluster's nodes owned, a year's demand is the new fit's median
    converted to the plan's reference core by clock, plus the plan's core-hours: what the paths add."""
    import yaml as pyyaml

    from forecasts.accounting.models import ClusterCapacity
    from forecasts.demand.plans import plan_from_document, plan_of, plan_save
    from forecasts.demand.series import SeriesSpec
    from forecasts.models import Cluster
    from planner.designs.forecast_links import design_use_newest_forecasts, whole_plan_years
    from planner.designs.services_paths import design_from_forecast

    text = (Path(__file__).resolve().parent.parent / "fixtures" / "minerva_sequencer_plan.yaml").read_text()
    for old, new in (("2019-", "2030-"), ("2015-", "2026-"), ("2013-", "2024-")):
        text = text.replace(old, new)
    row = plan_save(plan_from_document(pyyaml.safe_load(text) | {"name": "plan", "department": "ggs"}),
                    source="test")[0]
    usage_history(departments, months=48)
    minerva = Cluster.objects.get(name="minerva")
    ClusterCapacity.objects.create(cluster=minerva, effective_from=date(2021, 6, 1), cores=2560, nodes=40)
    spec = SeriesSpec("core_hours", cluster=minerva, exclude_department=departments["genomics"])
    old = forecast_fit_create(spec, horizon_months=36, through=date(2023, 6, 1))
    design = design_from_forecast(fit=old, start_year=2024, end_year=2025, plan=row, node_type="ivy-bridge")
    links = design.scenario["uncertainty"]["forecast"]
    factor = links["cluster_clock_ghz"] / plan_of(row).reference_clock_ghz
    assert factor != 1.0
    new = forecast_fit_create(spec, horizon_months=36)
    v2 = design_use_newest_forecasts(design=design)
    plan_hours = {p.year: p.core_hours for p in whole_plan_years(plan_of(row))}
    medians = {int(y["year"]): float(y["median"]) for y in new.yearly}
    for r in v2.scenario["demand"]:
        assert r["core_hours"] == pytest.approx(medians[r["year"]] * factor + plan_hours.get(r["year"], 0.0),
                                                abs=0.5)
    assert v2.scenario["existing"] == design.scenario["existing"]
    assert v2.scenario["uncertainty"]["forecast"] == links | {"core_fit": new.pk}


def test_a_newer_forecast_is_said_in_words_near_the_top_and_demand_figures_are_rounded(
        client: Client, departments: dict[str, Any], planner_user: Any, catalog: None) -> None:
    """The notice sat below the chance table, far below the fold, and read 'core_fit #13' (a key name); the
    generated scenario printed core_hours: 25961252.370948516."""
    from planner.designs.services import design_evaluate

    usage_history(departments, months=48)
    spec = spec_from_names(metric="core_hours", cluster="minerva")
    old = forecast_fit_create(spec, horizon_months=36)
    login(client, planner_user).post(f"/designs/from-forecast/{old.pk}/", {})
    design = Design.objects.latest("pk")
    assert all(isinstance(r["core_hours"], int) for r in design.scenario["demand"])
    assert "core_hours: " in design.scenario_yaml
    for line in design.scenario_yaml.splitlines():
        if "core_hours:" in line:
            assert "." not in line.split("core_hours:", 1)[1], line  # whole core-hours
    design_evaluate(design=design)
    assert 'id="newer-forecast"' not in client.get(f"/designs/{design.pk}/").content.decode()
    new = forecast_fit_create(spec, horizon_months=36)
    html = client.get(f"/designs/{design.pk}/").content.decode()
    notice = html.split('id="newer-forecast"', 1)[1].split("</form>", 1)[0]
    made = new.created_at.strftime("%Y-%m-%d")
    words = " ".join(notice.split())
    assert f'A newer core-hours forecast (<a href="/forecasts/fits/{new.pk}/">#{new.pk}</a>, made {made}) exists' \
           in words and f"(#{old.pk})" in words and "Make a new version from it" in words
    assert "stay viewable" in words and "core_fit" not in html.split('id="chance"', 1)[0]
    # near the top: before the key figures and the year table, not below the chance table
    assert html.index('id="newer-forecast"') < html.index('class="kpis"') < html.index('id="chance"')
    client.post(f"/designs/{design.pk}/newest-forecasts/")
    v2 = Design.objects.latest("pk")
    assert 'id="newer-forecast"' not in client.get(f"/designs/{v2.pk}/").content.decode()
    html_old = client.get(f"/designs/{design.pk}/").content.decode()  # the old version: a newer version exists
    assert 'id="newer-forecast"' not in html_old and f"/designs/{v2.pk}/" in html_old


def test_a_fan_of_one_path_draws_no_empty_bands() -> None:
    from planner.designs.charts_paths import demand_fan

    result = {"years": [{"year": 2025, "normalised_core_hours_at_target": 2e6}]}
    one = demand_fan(result, {"core_hours": {2025: [3e6] * 5}}, "core_hours")
    assert [t["name"] for t in one["data"]] == ["capacity", "demand (one path, no uncertainty)"]
    fan = demand_fan(result, {"core_hours": {2025: [1e6, 2e6, 3e6, 4e6, 5e6]}}, "core_hours")
    assert [t["name"] for t in fan["data"]] == ["capacity", "demand 5–95%", "demand 10–90%", "demand median"]


def test_a_saved_plan_s_new_version_keeps_the_quoted_name_of_the_design_it_was_bought_for(
        departments: dict[str, Any], catalog: None) -> None:
    """An optimised plan's description quotes the design it was bought for: that design keeps its name, so the
    quote keeps 'forecast #old' while the plan's own words move to the new fit."""
    from planner.designs.forecast_links import design_use_newest_forecasts
    from planner.designs.services_paths import design_from_forecast

    usage_history(departments, months=48)
    spec = spec_from_names(metric="core_hours", cluster="minerva")
    old = forecast_fit_create(spec, horizon_months=36)
    design = design_from_forecast(fit=old, start_year=2024, end_year=2025)
    quoted = f'The optimiser chose for "Design for minerva from forecast #{old.pk}". '
    design.scenario["description"] = quoted + design.scenario["description"]
    design.save(update_fields=["scenario"])
    new = forecast_fit_create(spec, horizon_months=36)
    v2 = design_use_newest_forecasts(design=design)
    assert v2.scenario["description"].startswith(quoted)
    assert f"Demand from the core-hours forecast #{new.pk} (minerva)" in v2.scenario["description"]
