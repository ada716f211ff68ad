"""A first-time visitor's walk through the demo (dashboard, forecasts, designs, compare, report, chargeback),
session 27: what read wrong on a page is held here."""

from __future__ import annotations

import html as html_lib
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login


@pytest.mark.django_db
def test_the_chargeback_month_page_ends_the_rate_plans_note_once(
        departments: dict[str, Any], tmp_path: Any, admin_user: Any) -> None:
    """The demo's rate-plan note ends with a full stop ('... storage $5 per TB-month.') and the month page wrote it
    inside its own sentence, so the demo's December 2019 read 'storage $5 per TB-month.. Each statement gives ...'."""
    from forecasts.chargeback.models import RatePlan
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import logs_cover_march, minerva_plan, small_site

    site = small_site(tmp_path)
    logs_cover_march(tmp_path)
    minerva_plan()
    RatePlan.objects.update(note="Illustrative rates, not a site's: base $0.02 per core-hour; storage $5 per TB-month.")
    statements_compute(month=site["month"])
    page = html_lib.unescape(login(Client(), admin_user).get(
        f"/chargeback/?month={site['month']:%Y-%m}").content.decode())
    line = " ".join(page.split('id="rate-plans">')[1].split("</p>")[0].split())
    assert "storage $5 per TB-month. Each statement gives the rate of each line." in line
    assert ".." not in line
    assert "Illustrative rates, not a site's: base $0.02 per core-hour" in line


@pytest.mark.django_db
def test_a_storage_fits_page_leads_to_the_combined_projection_with_it_chosen(
        departments: dict[str, Any], settings: Any, tmp_path: Any, planner_user: Any) -> None:
    """The demo's storage forecast page offered no next step: a core-hours fit offers 'Start a design', but the
    storage fit's only way on was the Combined projection tab, which opens with no storage trend chosen, so the
    visitor saw no storage growth there. The page now links the combined projection with this fit chosen."""
    from forecasts.demand.demo import DEMO_PLAN, FIXTURES
    from forecasts.demand.models import ForecastFit
    from forecasts.demand.plans import plan_import_file
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.workload.demo import load_storage

    settings.DATA_DIR = tmp_path
    load_storage(lambda _: None)  # the demo's quarterly scans of nexus-gpfs
    plan_import_file(FIXTURES / DEMO_PLAN, source="demo", department="ggs")  # the demo's own sequencing plan
    fit = forecast_fit_create(SeriesSpec("storage_pb"), horizon_months=36)
    client = login(Client(), planner_user)
    page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert 'id="start-design"' not in page
    href = html_lib.unescape(page.split('id="storage-in-combined" href="')[1].split('"')[0])
    assert href == f"/forecasts/combined/?storage_fit={fit.pk}"
    response = client.get(href)
    assert f'<option value="{fit.pk}" selected>' in response.content.decode()
    rows = {r["year"]: r for r in response.context["projection"]["years"]}
    trend_2021 = next(y["median"] for y in fit.yearly if y["year"] == 2021)
    assert rows[2021]["has_storage"]  # the trend's PB held is in the table, on top of the plan's
    assert rows[2021]["stored_pb"]["median"] == pytest.approx(rows[2021]["plan_stored_pb"] + trend_2021, rel=0.02)
    assert ForecastFit.objects.filter(metric="storage_pb").count() == 1


@pytest.mark.django_db
def test_the_compare_pages_cost_chart_names_the_designs_compared(planner_user: Any) -> None:
    """Comparing the demo's design for nexus with its optimised plan, the cost chart was titled 'Cost by kind per
    year (D1..D4 = designs in table order)' over two designs; it names the designs there are."""
    from tests.planner.designs_data import load_catalog_and_designs

    designs = load_catalog_and_designs()
    client = login(Client(), planner_user)
    two = client.get(f"/designs/compare/?ids={designs['wide'].pk}&ids={designs['narrow'].pk}").content.decode()
    assert "D1, D2 = designs in table order" in two and "D1..D4" not in two
    ids = "&".join(f"ids={d.pk}" for d in designs.values())
    assert "D1, D2, D3 = designs in table order" in client.get(f"/designs/compare/?{ids}").content.decode()


@pytest.mark.django_db
def test_the_dashboards_forecasts_card_quotes_storage_as_well_as_compute(
        departments: dict[str, Any], settings: Any, tmp_path: Any, planner_user: Any) -> None:
    """The dashboard's Forecasts card asks 'How much compute and storage will be needed' and quoted only the
    core-hours forecast, though the demo now has a storage forecast; it quotes the storage one's last whole year
    too, as the fit page gives it."""
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.workload.demo import load_storage
    from tests.forecasts.forecast_factories import usage_history

    settings.DATA_DIR = tmp_path
    usage_history(departments, months=36)
    forecast_fit_create(SeriesSpec("core_hours"), horizon_months=36)
    load_storage(lambda _: None)
    storage = forecast_fit_create(SeriesSpec("storage_pb"), horizon_months=36)
    page = " ".join(html_lib.unescape(login(Client(), planner_user).get("/").content.decode()).split())
    card = page.split("How much compute and storage")[1].split("</p>", 2)[1]
    assert "core-hours in total" in card
    year = [y for y in storage.yearly if y["periods_forecast"] and y["complete"] and not y.get("partial")][-1]
    assert f"all file systems: {year['year']} (whole year): {year['median']:,.3g} PB stored at year end" in card


@pytest.mark.django_db
def test_the_chance_sections_precision_is_for_the_paths_it_counted(planner_user: Any) -> None:
    """The demo's Minerva narrow-flash design is judged on 500 paths and its page said 'Share of 500 joint demand
    paths ... Direct counts: about ±1 point at 90% with 1,000 paths': the precision quoted was not its own. It
    is now the binomial standard error at 90 % for the paths counted (100 x sqrt(0.09 / n): 1.3 points on 500)."""
    import yaml

    from planner.designs.demo_paths import UNCERTAINTY
    from planner.designs.services import design_create, design_evaluate
    from tests.planner.designs_data import load_catalog_and_designs

    base = load_catalog_and_designs()["narrow"]
    for n, said in ((500, "about ±1.3 points at 90% with 500 paths"), (200, "about ±2.1 points at 90% with 200 paths")):
        data = dict(base.scenario) | {"uncertainty": UNCERTAINTY | {"paths": n}}
        design = design_create(text=yaml.safe_dump(data, sort_keys=False), parent=base)
        design_evaluate(design=design)
        page = " ".join(login(Client(), planner_user).get(f"/designs/{design.pk}/").content.decode().split())
        assert f"Share of {n} joint demand paths" in page
        assert said in page and "with 1,000 paths" not in page
