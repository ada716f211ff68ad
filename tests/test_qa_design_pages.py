"""The design page as a director reads it (QA, session 25): every constraint row readable at its scale."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db


def test_the_ingest_throughput_row_shows_its_small_figures_and_each_unit_once(client: Any,
                                                                               planner_user: Any) -> None:
    narrow = load_catalog_and_designs()["narrow"]
    html = login(client, planner_user).get(f"/designs/{narrow.pk}/").content.decode()
    assert "Storage throughput for the ingest" in html
    # 10 TB a day in 2014 is 0.116 GB/s: printed as whole units it read "0 / 130"
    assert "0.116 / " in html
    # a label that already names its unit is not followed by it again ("Flash for days of ingest (TB) (TB)")
    assert "Flash for days of ingest (TB) <span" not in html


def test_the_why_card_shows_memory_per_core_and_whether_memory_was_checked(client: Any, planner_user: Any) -> None:
    optimised = load_catalog_and_designs()["optimised"]
    html = login(client, planner_user).get(f"/designs/{optimised.pk}/").content.decode()
    card = html.split('id="why-nodes"', 1)[1].split("</section>", 1)[0]
    assert "memory GB / core" in card
    assert 'id="memory-note"' in card and "Memory is not checked" in card


def test_a_constraint_met_with_almost_nothing_to_spare_is_marked_as_the_one_that_binds() -> None:
    from planner.designs.labels import is_binding

    assert is_binding({"passed": True, "required": 40.0, "available": 40.1})
    assert not is_binding({"passed": True, "required": 12.0, "available": 19.2})
    assert not is_binding({"passed": False, "required": 40.0, "available": 39.0})
    assert not is_binding({"passed": True, "required": 0.0, "available": 0.0})  # a check with no demand


def test_the_year_table_says_which_constraint_binds(client: Any, planner_user: Any) -> None:
    narrow = load_catalog_and_designs()["narrow"]
    html = login(client, planner_user).get(f"/designs/{narrow.pk}/").content.decode()
    table = html.split('id="year-table"', 1)[1].split("</table>", 1)[0]
    assert "the constraint that sized that year's purchase" in table
    assert "✓ binds" in table.split("the constraint that sized", 1)[1]
