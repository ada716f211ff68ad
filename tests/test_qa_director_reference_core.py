"""Which core a design's core-hours are counted on (QA, session 26). The design page's headline read "0.7 M
core-hours at target in 1998 (demand 0.7 M, reference core)" and its rule "relative to the reference core",
never saying which: a design started from the KTH SP2 forecast with no node type counts the SP2's core-hours
on the default 3.5 GHz core, the nexus designs on a 2.3 GHz one. The headline and the rule now name it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from planner.designs.labels import compute_capacity_rule, reference_core_label
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

SCENARIO = """name: 'Design for kth-sp2'
horizon: {start_year: 2020, end_year: 2021}
%s
demand:
- {year: 2020, core_hours: 689973}
- {year: 2021, core_hours: 805595}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
"""


def test_the_rule_names_the_reference_core_and_whose_it_is() -> None:
    assert reference_core_label({}) == "3.5 GHz reference core (the default; reference_core in the scenario)"
    assert "relative to the 3.5 GHz reference core (the default" in compute_capacity_rule({})
    assert reference_core_label({"reference_core": {"clock_ghz": 2.3}}) == "2.3 GHz reference core"
    assert reference_core_label({"reference_core": {"clock_ghz": 2.3, "arch_factor": 1.2}}) == \
        "2.3 GHz x architecture factor 1.2 reference core"
    assert reference_core_label({"reference_core": {"clock_ghz": 3.5, "note": "Ivy Bridge E5-2643 v2"}}) == \
        "3.5 GHz reference core (Ivy Bridge E5-2643 v2)"


@pytest.mark.django_db
@pytest.mark.parametrize(("reference", "shown"), [("", "3.5 GHz reference core"),
                                                  ("reference_core: {clock_ghz: 2.3}", "2.3 GHz reference core")])
def test_the_design_pages_headline_names_the_core_demand_is_counted_on(planner_user: Any, reference: str,
                                                                       shown: str) -> None:
    from planner.designs.services import design_create

    load_catalog_and_designs()
    design = design_create(text=SCENARIO % reference)
    html = login(Client(), planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert f"core-hours at target in 2020 (demand 0.7 M, on the {shown})" in html
    assert f"relative to the {shown}" in html
