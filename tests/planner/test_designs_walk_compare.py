"""The comparison of compute-only designs leaves out the genome figures (rows, charts, sensitivity bars) that apply
to none of them and says so once; a design without demand paths is described in words; with four designs the
"Cost by kind" legend is not laid over the year labels."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from planner.designs.charts import cost_by_kind
from planner.designs.services import design_create, design_evaluate
from tests.helpers import login


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


def _compute_only(name: str, count: int) -> Any:
    design = design_create(text=yaml.safe_dump({
        "name": name, "horizon": {"start_year": 2015, "end_year": 2016},
        "demand": [{"year": 2015, "core_hours": 4.0e5}, {"year": 2016, "core_hours": 6.0e5}],
        "constraints": {"off": ["storage_tb", "genomes_per_day", "ingest_tb_per_day", "files"]},
        "purchases": [{"year": 2015, "node_type": "haswell", "count": count}],
        "optimize": {"node_types": ["haswell"]},
    }))
    design_evaluate(design=design)
    return design


def _figure(html: str, fig_id: str) -> dict[str, Any]:
    return json.loads(html.split(f'id="{fig_id}" type="application/json">')[1].split("</script>")[0])


@pytest.mark.django_db
def test_compute_only_designs_compare_without_genome_figures(client: Any, planner_user: Any, catalog: None) -> None:
    a, b = _compute_only("Compute A", 12), _compute_only("Compute B", 20)
    html = login(client, planner_user).get(f"/designs/compare/?ids={a.pk}&ids={b.pk}").content.decode()
    assert html.count("Compute-only designs: no genome or storage figures.") == 1
    for gone in ("genomes/day capacity (demand)", "wall core-hours per genome", "cost per genome",
                 'id="chart-genomes"', 'id="chart-cpg"', 'id="fig-genomes"', 'id="fig-cpg"',
                 "Sequencer count scales"):
        assert gone not in html, gone
    assert 'id="chart-capacity"' in html and 'id="chart-cost"' in html  # what applies stays
    for i in (0, 1):
        bars = _figure(html, f"fig-tornado-{i}")["data"][0]["y"]
        assert bars and not any("Sequencer" in b or "Per-genome" in b for b in bars)
        assert any("growth" in b for b in bars)
    # a design with no demand paths is said in words, not as a scenario key
    chance = html.split('id="chance-compare"')[1].split("</section>")[0]
    assert "no uncertainty: block" not in chance and "no demand paths" not in chance  # neither has paths: no table
    assert "None of these designs has demand paths yet" in chance


@pytest.mark.django_db
def test_a_design_without_paths_beside_one_with_paths_reads_in_words(client: Any, planner_user: Any,
                                                                     catalog: None) -> None:
    plain = _compute_only("Plain", 12)
    spec = yaml.safe_load(plain.scenario_yaml) | {"name": "On paths", "uncertainty": {"paths": 50, "seed": 1}}
    on_paths = design_create(text=yaml.safe_dump(spec))
    design_evaluate(design=on_paths)
    html = login(client, planner_user).get(f"/designs/compare/?ids={plain.pk}&ids={on_paths.pk}").content.decode()
    chance = html.split('id="chance-compare-table"')[1].split("</table>")[0]
    assert "no uncertainty: block" not in html
    assert "no demand paths: judged on one demand figure a year" in chance


@pytest.mark.django_db
def test_a_design_with_genomics_keeps_the_genome_figures(client: Any, planner_user: Any) -> None:
    from tests.planner.designs_data import load_catalog_and_designs

    designs = load_catalog_and_designs()
    compute = _compute_only("Compute only", 12)
    html = login(client, planner_user).get(
        f"/designs/compare/?ids={designs['narrow'].pk}&ids={compute.pk}").content.decode()
    assert "genomes/day capacity (demand)" in html and 'id="chart-genomes"' in html
    assert "Compute-only designs" not in html
    assert any("Sequencer" in b for b in _figure(html, "fig-tornado-0")["data"][0]["y"])


def test_the_cost_by_kind_legend_of_four_designs_stays_off_the_year_labels() -> None:
    def result(k: int) -> dict[str, Any]:
        return {"years": [{"year": y, "capex_usd": 1e6 * (k + 1), "power_usd": 2e5, "support_usd": 1e5}
                          for y in range(2026, 2032)]}

    fig = cost_by_kind([(f"D{k + 1} design", result(k)) for k in range(4)])
    legend = fig["layout"]["legend"]
    # beside the plot (or above it), never below it where the two rows of x labels (year, design) are
    assert legend.get("x", 0) >= 1 or legend.get("y", 0) >= 1
    shown = [t["name"] for t in fig["data"] if t.get("showlegend", True)]
    assert shown == ["capex", "power", "support"]  # one entry per kind, not twelve
    assert {t["legendgroup"] for t in fig["data"]} == {"capex", "power", "support"}
    assert fig["layout"]["xaxis"]["type"] == "multicategory"
    one = cost_by_kind([("only", result(0))])
    assert [t["name"] for t in one["data"]] == ["capex", "power", "support"]
