"""A service-level run's page states both out-of-sample figures with their labels: the worst single year (what the
per-year service level promises) and all years together; the chart says which figure each marker plots."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from planner.designs.charts_paths import cost_of_confidence
from planner.designs.models import Design, OptimizerRun
from planner.designs.services import design_create
from tests.helpers import login

WORST = "the worst single year: share of independent paths where that year's capacity is enough"
TOGETHER = "all years together: share of independent paths where every year is enough"


def _level(alpha: float, npv: float, years: dict[str, float], every: float) -> dict[str, Any]:
    return {"alpha": alpha, "status": "optimal", "mip_gap": 0.0, "npv_usd": npv, "message": "", "purchases": [],
            "in_sample_level": alpha, "in_sample": years, "out_of_sample": years, "out_of_sample_every_year": every}


CURVE = [  # the QA walk's figures: worst single year 55 / 83 / 92 / 96 %, every year at once 38 / 72 / 85 / 93 %
    _level(0.5, 1.0e6, {"2026": 0.55, "2027": 0.61}, 0.38),
    _level(0.8, 1.2e6, {"2026": 0.83, "2027": 0.88}, 0.72),
    _level(0.9, 1.4e6, {"2026": 0.95, "2027": 0.92}, 0.85),
    _level(0.95, 1.7e6, {"2026": 0.96, "2027": 0.97}, 0.93),
]


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


@pytest.mark.django_db
def test_the_run_page_states_the_worst_single_year_and_all_years_together(client: Any, planner_user: Any,
                                                                         catalog: None) -> None:
    design = design_create(text=yaml.safe_dump({
        "name": "Walk", "horizon": {"start_year": 2026, "end_year": 2027},
        "demand": [{"year": 2026, "core_hours": 1e5}, {"year": 2027, "core_hours": 2e5}],
        "constraints": {"off": ["storage_tb", "genomes_per_day", "ingest_tb_per_day", "files"]}}))
    sl = {"alpha": 0.9, "paths": 1000, "check_paths": 10000, "in_sample": {"2026": 0.95, "2027": 0.93},
          "out_of_sample": {"2026": 0.95, "2027": 0.92}, "sources": ["typed-in figures"], "in_sample_level": 0.916,
          "curve": CURVE, "note": "direct counts"}
    run = OptimizerRun.objects.create(design=Design.objects.get(pk=design.pk), status="optimal",
                                      params={"kind": "service_level", "service_level": 0.9},
                                      result={"status": "optimal", "npv_usd": 1.4e6, "purchases": [],
                                              "service_level": sl, "solve_seconds": 0.1, "n_variables": 1,
                                              "n_constraints": 1, "mip_gap": 0.0})
    html = login(client, planner_user).get(f"/designs/runs/{run.pk}/").content.decode()
    # the heading says what the optimiser guarantees: each year on its own
    assert "Bought for 90% of the demand paths, in each year" in html
    assert "In each year, capacity meets demand" in html and "Every year, capacity meets demand" not in html
    shares = html.split('id="service-level-shares"')[1].split("</dl>")[0]
    assert WORST.replace("the worst", "The worst") in shares and TOGETHER.replace("all", "All", 1) in shares
    assert re.search(r'id="worst-year-share"><strong>92%</strong>', shares)
    assert re.search(r'id="every-year-share"><strong>85%</strong>', shares)
    table = html.split('id="confidence-table"')[1].split("</table>")[0]
    assert WORST in table and TOGETHER in table and "every year at once, independent paths" not in table
    rows = re.findall(r"<tr><td class=\"num\">(\d+)%</td>.*?<td class=\"num\">([\d.]+)%</td>\s*"
                      r"<td class=\"num\">([\d.]+)%</td>", table, re.S)
    assert rows == [("50", "55", "38"), ("80", "83", "72"), ("90", "92", "85"), ("95", "96", "93")]
    fig = json.loads(html.split('id="fig-confidence" type="application/json">')[1].split("</script>")[0])
    assert fig == json.loads(json.dumps(cost_of_confidence(CURVE)))


def test_the_cost_of_confidence_chart_names_the_figure_each_marker_plots() -> None:
    fig = cost_of_confidence(CURVE)
    by_name = {t["name"]: t for t in fig["data"]}
    worst = by_name["worst single year, independent paths (%)"]
    together = by_name["all years together, independent paths (%)"]
    assert worst["y"] == pytest.approx([55, 83, 92, 96]) and together["y"] == pytest.approx([38, 72, 85, 93])
    assert worst["yaxis"] == together["yaxis"] == "y2"
    assert fig["layout"]["yaxis2"]["title"]["text"] == "% of independent paths enough"
    assert "in each year" in fig["layout"]["xaxis"]["title"]["text"]
    # a level stored before the every-year share was kept plots no point for it rather than failing
    old = {k: v for k, v in CURVE[0].items() if k != "out_of_sample_every_year"}
    assert cost_of_confidence([old])["data"][2]["y"] == [None]
