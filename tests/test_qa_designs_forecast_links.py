"""A design linked to a forecast never answers 500 for its demand paths, and one started from a projection at an
entered growth rate is judged on that projection's single path, saying so.

Found on a QA walk: a design started from a fit made from an entered growth rate (a 2-month history: "growth rate
you entered, no interval, no backtest") re-ran the forecast engine for its sample paths; the engine refuses so short
a history (ShortHistoryError, not a PathsError), so the design page answered 500 for good."""

from __future__ import annotations

from datetime import date
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
