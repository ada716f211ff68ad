"""The 'why these nodes' card speaks about the year the plan buys the most nodes in (or the last year), and says
which year and why.

Found on a QA walk: the card looked at the first year only, so on an optimised plan that starts on the nodes a
cluster already has it said "served mostly by gold-mid" (the existing nodes) although every purchase was of other
node types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from planner.designs.capacity import Purchase
from planner.designs.explain import nodes_bought, year_to_explain
from tests.helpers import login

pytestmark = pytest.mark.django_db
SCENARIOS = Path(__file__).resolve().parent.parent / "fixtures" / "scenarios"


def test_the_year_explained_is_the_one_the_plan_buys_most_nodes_in_else_the_last() -> None:
    plan = [Purchase(2014, node_type="ivy-bridge", count=10), Purchase(2014, storage_system="gss", count=50),
            Purchase(2016, node_type="haswell", count=30), Purchase(2016, node_type="ivy-bridge", count=5),
            Purchase(2017, flash_tb=100.0)]
    assert nodes_bought(plan, 2016) == {"haswell": 30, "ivy-bridge": 5}
    year, why = year_to_explain(plan, [2014, 2015, 2016, 2017])
    assert year == 2016 and why == "the year this plan buys the most nodes (30 haswell, 5 ivy-bridge)"
    assert year_to_explain([Purchase(2014, storage_system="gss", count=3)], [2014, 2015, 2016]) == (
        2016, "the last year (this plan buys no nodes for genomes)")
    # equals: the earliest
    assert year_to_explain([Purchase(2015, node_type="a", count=4), Purchase(2017, node_type="b", count=4)],
                           [2014, 2015, 2016, 2017])[0] == 2015


def test_the_card_on_a_plan_that_buys_later_names_that_year_and_the_node_types_bought(
        client: Client, planner_user: Any) -> None:
    from planner.designs.services import design_create
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()
    text = (SCENARIOS / "minerva_narrow_flash.yaml").read_text(encoding="utf-8")
    # the study's plan with its phase 2 made the larger purchase: 2015 is the year it buys the most nodes in
    text = text.replace("{year: 2015, node_type: haswell, count: 207", "{year: 2015, node_type: haswell, count: 400")
    assert "count: 400" in text
    design = design_create(text=text)
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    card = html.split('id="why-nodes"', 1)[1].split("</section>", 1)[0]
    assert "the performance model in 2015" in card
    assert "2015: the year this plan buys the most nodes (400 haswell)" in card
    assert card.split('id="why-bought">', 1)[1].startswith("400 haswell")
    # haswell misses the 24 h turnaround: bought for core-hours, it runs no genomes, and the card says so
    assert "which run none of the 40.0 genomes/day" in card and "Served mostly by <strong>ivy-bridge</strong>" in card
    assert "(nodes the design has from before 2015)" in card
