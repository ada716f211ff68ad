"""The design-from-forecast form's "Counted twice?" note follows the chosen plan's department, in a real browser."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import screenshot
from tests.planner.test_design_from_forecast_plan_department import _plan

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_note_shows_the_chosen_plan_s_department_only_where_its_sequencing_would_count_twice(
        page_as: Any, live_server: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=48)
    minerva = Cluster.objects.get(name="minerva")
    everyone = forecast_fit_create(SeriesSpec("core_hours", cluster=minerva), horizon_months=36)
    scb = forecast_fit_create(SeriesSpec("core_hours", cluster=minerva, department=departments["chemistry"]),
                              horizon_months=36)
    ggs_plan, plain = _plan("Minerva from 2024, ggs", "ggs"), _plan("Minerva from 2024", None)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/from-forecast/{everyone.pk}/")
    ggs_note, general = "#plan-overlap [data-department='ggs']", "#plan-overlap [data-department='']"
    assert not page.is_visible("#plan-overlap")
    page.select_option("#plan", str(ggs_plan.pk))
    assert page.is_visible(ggs_note) and not page.is_visible(general)
    assert "A plan of department ggs's sequencing" in page.inner_text("#plan-overlap")
    screenshot(page, "designs-from-forecast-plan-department")
    page.select_option("#plan", str(plain.pk))
    assert page.is_visible(general) and not page.is_visible(ggs_note)
    page.select_option("#plan", "")
    assert not page.is_visible("#plan-overlap")
    # scb's own trend holds none of ggs's sequencing: no question for the ggs plan, the old one for the other
    page.goto(f"{live_server.url}/designs/from-forecast/{scb.pk}/")
    page.select_option("#plan", str(ggs_plan.pk))
    assert not page.is_visible("#plan-overlap")
    page.select_option("#plan", str(plain.pk))
    assert page.is_visible(general)


def test_the_note_shows_only_while_the_plan_s_years_meet_the_design_s(
        page_as: Any, live_server: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    """A plan that adds nothing in the chosen years cannot count anything twice (the server refuses only a
    plan that adds core-hours there): the note follows the From/To years as well as the plan."""
    import yaml

    from forecasts.demand.plans import plan_from_document, plan_save
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from tests.forecasts.forecast_factories import usage_history
    from tests.planner.test_design_from_forecast_plan_department import MINERVA

    usage_history(departments, months=48)  # 2020-2023: the forecast's whole years are 2024-2026
    everyone = forecast_fit_create(SeriesSpec("core_hours", cluster=Cluster.objects.get(name="minerva")),
                                   horizon_months=36)
    text = MINERVA.read_text()
    for old, new in (("2019-", "2030-"), ("2015-", "2028-"), ("2013-", "2026-")):
        text = text.replace(old, new)  # the plan starts in 2026
    late = plan_save(plan_from_document(yaml.safe_load(text) | {"name": "from 2026", "department": "ggs"}),
                     source="test")[0]
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/from-forecast/{everyone.pk}/")
    page.select_option("#start-year", "2024")
    page.select_option("#end-year", "2025")
    page.select_option("#plan", str(late.pk))
    assert not page.is_visible("#plan-overlap")
    page.select_option("#end-year", "2026")
    assert page.is_visible("#plan-overlap [data-department='ggs']")
    page.select_option("#start-year", "2026")
    assert page.is_visible("#plan-overlap")
