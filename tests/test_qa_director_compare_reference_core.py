"""Comparing the demo's nexus plan with the new KTH SP2 plan (QA, session 26). The side-by-side page and its
chart "Compute at the utilisation target vs demand (reference core)" set 45.5 M core-hours of one beside
1.2 M of the other without saying that the first counts them on a 2.3 GHz core and the second on a 0.5 GHz
one. The table now has a "Core-hours counted on" row, and a warning when the designs' cores differ."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db

SCENARIO = """name: '%s'
horizon: {start_year: 2020, end_year: 2021}
%s
demand:
- {year: 2020, core_hours: 689973}
- {year: 2021, core_hours: 805595}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
"""


def _compare(planner_user: Any, first: str, second: str) -> str:
    from planner.designs.services import design_create, design_evaluate

    load_catalog_and_designs()
    a = design_create(text=SCENARIO % ("A", first))
    b = design_create(text=SCENARIO % ("B", second))
    for d in (a, b):
        design_evaluate(design=d)
    html = login(Client(), planner_user).get(f"/designs/compare/?ids={a.pk}&ids={b.pk}").content.decode()
    return " ".join(html.split())


def test_designs_on_different_cores_say_so(planner_user: Any) -> None:
    html = _compare(planner_user, "reference_core: {clock_ghz: 2.3}", "")
    assert ('<tr><td>Core-hours counted on</td><td class="num">2.3 GHz reference core</td>'
            '<td class="num">3.5 GHz reference core</td></tr>') in html
    assert 'id="cores-differ"' in html


def test_designs_on_the_same_core_carry_no_warning(planner_user: Any) -> None:
    html = _compare(planner_user, "reference_core: {clock_ghz: 3.5}", "")
    assert "<td>Core-hours counted on</td>" in html and 'id="cores-differ"' not in html
