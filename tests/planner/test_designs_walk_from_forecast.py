"""A design started from one department's forecast is named for the department and does not preselect owning the
whole shared cluster (it says why, and a planner may still choose it); the service-level form takes percents in its
range only, never reinterpreting 0.9 as 0.9 % or refusing 150 in a share's words."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import yaml

from planner.designs.models import Design, OptimizerRun
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


@pytest.fixture
def fits(departments: dict[str, Any], catalog: None) -> dict[str, Any]:
    """minerva's core-hours 2020-2023 of ggs and scb with its capacity records, and fits of one department, of all
    but one and of every department."""
    from forecasts.accounting.models import ClusterCapacity
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=48)
    cluster = Cluster.objects.get(name="minerva")
    ClusterCapacity.objects.create(cluster=cluster, effective_from=date(2021, 6, 1), cores=2560, nodes=40)
    scb = departments["chemistry"]

    def fit(**kw: Any) -> Any:
        return forecast_fit_create(SeriesSpec("core_hours", cluster=cluster, **kw), horizon_months=36)

    return {"scb only": fit(department=scb), "all but scb": fit(exclude_department=scb), "every": fit()}


def test_a_one_department_forecast_names_the_department_and_does_not_preselect_the_cluster_s_nodes(
        client: Any, planner_user: Any, fits: dict[str, Any]) -> None:
    one = fits["scb only"]
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{one.pk}/").content.decode()
    assert '<option value="amd-interlagos" selected>' not in form  # not chosen for the planner...
    assert '<option value="amd-interlagos" >' in form  # ...but offered
    why = form.split('id="node-type-shared">')[1].split("</p>")[0]
    assert "department scb&#x27;s core-hours alone" in why or "department scb's core-hours alone" in why
    assert "overstate what scb has" in why and "Choose amd-interlagos above to count them anyway" in why
    # the whole cluster's forecast keeps the preselection, without the note
    whole = client.get(f"/designs/from-forecast/{fits['every'].pk}/").content.decode()
    assert '<option value="amd-interlagos" selected>' in whole and 'id="node-type-shared"' not in whole
    # the design is named for the department, and says so when it owns the cluster's nodes anyway
    client.post(f"/designs/from-forecast/{one.pk}/", {})
    design = Design.objects.latest("pk")
    assert design.name == f"Design for scb on minerva from forecast #{one.pk}"
    assert f"forecast #{one.pk} (scb on minerva)" in design.scenario["description"]
    assert "existing" not in design.scenario
    client.post(f"/designs/from-forecast/{one.pk}/", {"node_type": "amd-interlagos"})
    owning = Design.objects.latest("pk")
    assert owning.scenario["existing"] and "shared with departments other than scb" in owning.scenario["description"]


def test_a_forecast_without_one_department_is_named_for_it_too(client: Any, planner_user: Any,
                                                               fits: dict[str, Any]) -> None:
    but = fits["all but scb"]
    login(client, planner_user).post(f"/designs/from-forecast/{but.pk}/", {})
    design = Design.objects.latest("pk")
    assert design.name == f"Design for all but scb on minerva from forecast #{but.pk}"
    assert "(all but scb on minerva)" in design.scenario["description"]
    every = fits["every"]
    client.post(f"/designs/from-forecast/{every.pk}/", {})
    assert Design.objects.latest("pk").name == f"Design for minerva from forecast #{every.pk}"


def test_the_forecast_scope_in_words() -> None:
    from planner.designs.labels import forecast_scope

    assert forecast_scope("nexus", "scb") == "scb on nexus"
    assert forecast_scope("nexus", excluded="scb") == "all but scb on nexus"
    assert forecast_scope("nexus") == "nexus" and forecast_scope(None) == "all clusters"


SMALL = {
    "name": "Two years under uncertainty", "horizon": {"start_year": 2015, "end_year": 2016},
    "demand": [{"year": 2015, "core_hours": 4.0e5}, {"year": 2016, "core_hours": 6.0e5}],
    "constraints": {"off": ["storage_tb", "genomes_per_day", "ingest_tb_per_day", "files"]},
    "purchases": [{"year": 2015, "node_type": "haswell", "count": 12}],
    "uncertainty": {"paths": 50, "seed": 4, "sigma_per_year": {"core_hours": 0.2}},
}


@pytest.mark.parametrize("raw", ["0.9", "150", "49", "100", "nan", "inf", "-90", "ninety", ""])
def test_a_service_level_outside_the_form_s_percent_range_is_refused_in_percent(
        client: Any, planner_user: Any, catalog: None, raw: str) -> None:
    from planner.designs.services import design_create

    design = design_create(text=yaml.safe_dump(SMALL))
    resp = login(client, planner_user).post(f"/designs/{design.pk}/service-level/", {"service_level": raw},
                                            follow=True)
    assert resp.status_code == 200 and not OptimizerRun.objects.exists()
    html = resp.content.decode()
    assert "service level must be between 50 and 99 %" in html and "must be in (0, 1]" not in html


@pytest.mark.parametrize(("raw", "alpha"), [("50", 0.5), ("90", 0.9), ("95", 0.95), ("97.5", 0.975)])
def test_a_service_level_in_range_is_taken_as_a_percentage(client: Any, planner_user: Any, catalog: None,
                                                           raw: str, alpha: float) -> None:
    from planner.designs.services import design_create

    design = design_create(text=yaml.safe_dump(SMALL))
    resp = login(client, planner_user).post(f"/designs/{design.pk}/service-level/", {"service_level": raw})
    run = OptimizerRun.objects.get()
    assert resp["Location"] == f"/designs/runs/{run.pk}/" and run.params["service_level"] == pytest.approx(alpha)
