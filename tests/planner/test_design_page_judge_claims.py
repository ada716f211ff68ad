"""The design page's claims an outside judge found wrong or unclear (session 27): what a director reads on the
page and in its chart JSON, for the judge cases of tests/planner/judge_cases/."""

from __future__ import annotations

import html as html_lib
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.helpers import login

CASES = Path(__file__).resolve().parent / "judge_cases"


def _page(client: Any, planner_user: Any, text: str) -> str:
    call_command("import_catalog", str(CASES / "site_catalog.yaml"), stdout=io.StringIO())
    login(client, planner_user)
    page = client.post("/designs/new/", {"scenario": text, "action": "evaluate"}, follow=True)
    assert page.status_code == 200
    return page.content.decode()


def _figure(html: str, name: str) -> dict[str, Any]:
    found = re.search(rf'<script id="{name}" type="application/json">(.*?)</script>', html, re.S)
    assert found, name
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_the_compute_chart_draws_no_demand_line_when_the_check_is_off(client: Any, planner_user: Any) -> None:
    """c3 turns the core-hours check off (constraints.off: [core_hours, files]): the compute chart still drew a
    'demand' line at 0, read as no core-hours asked and every bar as spare."""
    fig = _figure(_page(client, planner_user, (CASES / "c3_turnaround_narrow.yaml").read_text()), "fig-capacity")
    assert [t["name"] for t in fig["data"] if t["type"] == "scatter"] == []
    assert "core-hours check off" in fig["layout"]["title"]["text"]
    assert any(t["type"] == "bar" for t in fig["data"])  # the capacity bars stay
    # c1 checks core-hours: its demand line stays, at the demand asked
    fig = _figure(_page(client, planner_user, (CASES / "c1_tiny_site.yaml").read_text()), "fig-capacity")
    demand = next(t for t in fig["data"] if t["name"] == "demand")
    assert demand["y"] == [0.3, 0.6]
    assert "check off" not in fig["layout"]["title"]["text"]


C1_PLAN = ("purchases: [{year: 2020, node_type: wide-64, count: 1}, {year: 2020, node_type: tiny-4, count: 2}, "
           "{year: 2021, node_type: wide-64, count: 1}, {year: 2021, node_type: tiny-4, count: 1}]")


def _grid_row(html: str, label: str) -> list[str]:
    """The year table's cells of one constraint row, as text."""
    row = html.split(f"<td>{label}")[1].split("</tr>")[0]
    return [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in row.split("<td class=")[1:]]


@pytest.mark.django_db
def test_the_year_table_marks_a_constraint_one_unit_fewer_would_break(client: Any, planner_user: Any) -> None:
    """c1's cheapest plan meets 2020's 300,000 core-hours with 315,300 (5.1 % over: whole nodes), and one 4-core
    node fewer falls short; the 5 % slack rule called it 'pass', so the constraint that sized the purchase went
    unmarked. Its storage (one disk unit, 100 of 150 TB) is not marked."""
    html = _page(client, planner_user, (CASES / "c1_tiny_site.yaml").read_text().replace("purchases: []", C1_PLAN))
    cells = _grid_row(html, "Compute (core-hours at target)")
    assert "300,000 / 315," in cells[0], cells
    assert "✓ binds" in cells[0], cells
    assert "✓ binds" in cells[1], cells
    assert ["✓ binds" in c for c in _grid_row(html, "Online storage (TB at fullness limit)")] == [False, False]
    # one 4-core node more in 2020: one fewer still meets it, so the row no longer says binds that year
    more = C1_PLAN.replace("tiny-4, count: 2}", "tiny-4, count: 3}")
    html = _page(client, planner_user, (CASES / "c1_tiny_site.yaml").read_text().replace("purchases: []", more))
    assert "✓ binds" not in _grid_row(html, "Compute (core-hours at target)")[0]


C3_PLAN = ("purchases: [{year: 2020, node_type: wide-64, count: 5}, {year: 2020, storage_system: flash-small, "
           "count: 1}, {year: 2020, storage_system: nas-disk, count: 1}, {year: 2021, node_type: wide-64, count: 2}, "
           "{year: 2021, node_type: narrow-8, count: 2}]")


def _first_year_nodes(price: int) -> set[str]:
    text = (CASES / "c3_turnaround_narrow.yaml").read_text().replace(
        "catalog: site_catalog.yaml", f"catalog: {CASES / 'site_catalog.yaml'}").replace(
        "costs:", f"prices:\n  nodes:\n    wide-64: {{price_usd: {price}}}\ncosts:")
    out = io.StringIO()
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write(text)
        f.flush()
        call_command("optimize_design", f.name, "--json", stdout=out, stderr=io.StringIO())
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["status"] == "optimal"
    return {p["node_type"] for p in result["purchases"] if p["year"] == 2020 and p["node_type"]}


@pytest.mark.django_db
def test_the_break_even_says_its_basis_and_where_the_plan_s_own_flip_can_differ(client: Any,
                                                                                planner_user: Any) -> None:
    """c3's card said 'the choice flips to narrow-8 if wide-64 cost more than 2.42x', but the optimiser had flipped
    at 2.30x ($20,700) and not at 2.17x ($19,500): the card prices a node at price / service life + running costs,
    the optimiser pays the whole price within the 2-year horizon and buys whole nodes. The card keeps the
    annualised figure (the study publishes those), says its basis, and gives the optimiser's basis beside it."""
    html = " ".join(_page(client, planner_user, (CASES / "c3_turnaround_narrow.yaml").read_text()
                          .replace("purchases: []", C3_PLAN)).split())
    card = html_lib.unescape(html.split('id="break-even"')[1].split("</p>")[0])
    assert ("wide-64 is the cheaper per genome/day ($2,504 vs narrow-8's $5,129 a year, on annualised cost per unit "
            "of capacity: price / service life + running costs); on that basis the choice flips to narrow-8 if "
            "wide-64 cost more than 2.42x its price ($21,743 instead of $9,000).") in card
    assert ("This plan's own flip point can differ: the optimiser pays each node's whole price within the horizon, "
            "which leaves 2 of wide-64's 5 years of service from 2020 (to 2021), and buys whole nodes. On that basis, "
            "for a node bought in 2020 (whole price + running costs to 2021, discounted), the break-even is 2.23x "
            "($20,075)") in card
    # what the optimiser does either side: the annualised 2.42x is not this plan's flip point, 2.23x lies between
    assert _first_year_nodes(19500) == {"wide-64"}  # 2.17x
    assert _first_year_nodes(20700) == {"narrow-8"}  # 2.30x
