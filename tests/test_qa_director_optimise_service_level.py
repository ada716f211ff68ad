"""'Run the optimiser' on a design started from a forecast (QA, session 26). Such a design's scenario says
optimize.service_level: 0.9, which docs/scenario-format.md reads as "buys the cheapest plan holding ... on 90%
of the demand paths each year" (optimize_design --service-level honours it), yet the design page's button
bought for the median figures alone: the KTH SP2 plan it saved held on 50% of the paths in 1998 and 1999.
The button now buys the scenario's service level (with the cost of 50-95 %); without one it is unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db

SCENARIO = """name: 'Design for a new cluster'
horizon: {start_year: 2020, end_year: 2021}
demand:
- {year: 2020, core_hours: 2000000}
- {year: 2021, core_hours: 2400000}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
uncertainty: {paths: 200, seed: 0, sigma_per_year: {core_hours: 0.1}}
%s
"""


@pytest.mark.parametrize(("optimize", "kind", "level"), [("optimize: {service_level: 0.9}", "service_level", 0.9),
                                                          ("", None, None)])
def test_run_the_optimiser_buys_the_scenarios_service_level(planner_user: Any, optimize: str, kind: str | None,
                                                            level: float | None) -> None:
    from planner.designs.services import design_create
    from planner.models import OptimizerRun

    load_catalog_and_designs()
    design = design_create(text=SCENARIO % optimize)
    client = login(Client(), planner_user)
    response = client.post(f"/designs/{design.pk}/optimize/", {"time_limit_s": ""})
    run = OptimizerRun.objects.get(design=design)
    assert response.status_code == 302 and response["Location"] == f"/designs/runs/{run.pk}/"
    assert run.params.get("kind") == kind and run.params.get("service_level") == level
    if kind:
        assert run.job.kind == "service_level"
        page = client.get(response["Location"]).content.decode()
        assert "holding on 90% of its demand paths (optimize.service_level)" in page
