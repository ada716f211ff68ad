"""A director designing for a cluster whose history is old (QA, session 26: the KTH SP2 trace of 1996-97,
forecast to 1998-1999): no node type or storage system of the catalog is sold in those years. "Run the
optimiser" failed with scipy's "ValueError: `c` must be a one-dimensional array of finite numbers with at
least one element" (an empty program handed to HiGHS); it now ends infeasible, saying nothing is sold in
the design's years and when each candidate is."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db

SCENARIO = """name: 'Design for kth-sp2 from forecast #9'
horizon: {start_year: 1998, end_year: 1999}
demand:
- {year: 1998, core_hours: 689973}
- {year: 1999, core_hours: %s}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
"""


def _design(core_hours_1999: int) -> Any:
    from planner.designs.services import design_create

    load_catalog_and_designs()
    return design_create(text=SCENARIO % core_hours_1999)


def test_a_design_whose_years_no_candidate_is_sold_in_ends_infeasible_saying_why(planner_user: Any) -> None:
    from planner.designs.services import optimizer_run_execute
    from planner.models import OptimizerRun

    design = _design(805595)
    run = optimizer_run_execute(OptimizerRun.objects.create(design=design).pk)
    assert run.status == "infeasible"
    assert "sold in 1998-1999" in run.message and "amd-interlagos 2011-2015" in run.message
    assert "xeon-e5-2697v4 2016-on" in run.message
    assert {(s["constraint"], s["year"]) for s in run.result["shortfalls"]} == {("core_hours", 1998),
                                                                               ("core_hours", 1999)}
    page = login(Client(), planner_user).get(f"/designs/runs/{run.pk}/").content.decode()
    assert "No purchase plan meets every constraint" in page and "sold in 1998-1999" in page
    assert "ValueError" not in page


def test_with_nothing_sold_and_nothing_needed_the_plan_is_the_design_as_given() -> None:
    import yaml

    from planner.designs.optimize import optimize_design
    from planner.designs.services import design_scenario

    load_catalog_and_designs()
    sc = design_scenario(yaml.safe_load((SCENARIO % 0).replace("689973", "0")))
    res = optimize_design(sc.design, sc.catalog)
    assert res.status == "optimal" and res.purchases == [] and res.npv_usd == 0.0
    assert "nothing to buy" in res.message
