"""Hardware and Designs pages and API: who may see them, what they show, the editor's errors."""

from __future__ import annotations

from typing import Any

import pytest

from planner.models import Design, OptimizerRun
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db


@pytest.fixture
def designs() -> dict[str, Any]:
    return load_catalog_and_designs()


def _routes(designs: dict[str, Any]) -> list[tuple[str, str]]:
    d = designs["narrow"].pk
    run = OptimizerRun.objects.create(design=designs["optimised"], status="gap", result={})
    return [
        ("get", "/hardware/"), ("get", "/hardware/benchmarks/"), ("get", "/hardware/export/node_types.csv"),
        ("post", "/hardware/import/"), ("get", "/hardware/node-types/new/"),
        ("get", "/hardware/node-types/haswell/edit/"),
        ("get", "/designs/"), ("get", "/designs/new/"), ("get", f"/designs/{d}/"), ("get", f"/designs/{d}/edit/"),
        ("post", f"/designs/{d}/evaluate/"), ("post", f"/designs/{d}/optimize/"), ("get", f"/designs/{d}/years.csv"),
        ("get", f"/designs/compare/?ids={d}&ids={designs['wide'].pk}"), ("get", f"/designs/runs/{run.pk}/"),
        ("post", f"/designs/runs/{run.pk}/save/"),
        ("get", "/api/v1/node-types/"), ("get", "/api/v1/storage-systems/"), ("get", "/api/v1/benchmarks/"),
        ("get", "/api/v1/designs/"), ("get", f"/api/v1/designs/{d}/"), ("post", "/api/v1/designs/"),
        ("put", f"/api/v1/designs/{d}/"), ("delete", f"/api/v1/designs/{d}/"),
        ("post", f"/api/v1/designs/{d}/evaluate/"), ("post", f"/api/v1/designs/{d}/optimize/"),
        ("post", "/api/v1/node-types/"), ("get", "/api/v1/optimizer-runs/"),
    ]


def test_a_department_viewer_gets_403_on_every_hardware_and_design_route(client: Any, genomics_viewer: Any,
                                                                         designs: dict[str, Any]) -> None:
    login(client, genomics_viewer)
    for method, url in _routes(designs):
        response = getattr(client, method)(url)
        assert response.status_code == 403, (method, url, response.status_code)
    assert Design.objects.count() == 3 and OptimizerRun.objects.count() == 1


def test_the_benchmark_page_shows_the_paper_numbers_with_their_rules(client: Any, planner_user: Any,
                                                                    designs: dict[str, Any]) -> None:
    html = login(client, planner_user).get("/hardware/benchmarks/").content.decode()
    for text in ("471", "562", "1,247", "2,702", "1,182", "1,412", "2.51x", "1.91x", "4.81x", "325.4",
                 "Kovatch 2015, section 6", "scaled from", "capped", "CPU hours / efficiency"):
        assert text in html, text


def test_the_benchmark_page_shows_the_fitted_model_its_residuals_and_the_leave_one_out_table(
        client: Any, planner_user: Any, designs: dict[str, Any]) -> None:
    html = login(client, planner_user).get("/hardware/benchmarks/").content.decode()
    assert 'id="fitted-parameters"' in html and "nodes.amd-interlagos.arch_factor" in html
    assert 'id="residuals"' in html and "h600-192" in html
    loo = html.split('id="leave-one-out"')[1]
    assert "Median absolute error <strong>7.3 %</strong> over\n    18 figures" in loo
    assert "f800-189" in loo and "predicted without it" in loo
    h600 = loo.split("<td>h600-192</td>")[1].split("</tr>")[0]
    assert "+70.4%" in h600  # relative errors in per cent, as in docs/performance-model.md
    ranges = loo.split('id="loo-ranges"')[1].split("</table>")[0]  # seed 001's "between 11 and 13 hours"
    assert "11.00 - 13.00" in ranges and "DellEMC 2018" in ranges


def test_the_design_page_says_why_these_nodes_with_the_break_even_price(client: Any, planner_user: Any,
                                                                      designs: dict[str, Any]) -> None:
    html = login(client, planner_user).get(f"/designs/{designs['narrow'].pk}/").content.decode()
    why = html.split('id="why-nodes"')[1].split("</section>")[0]
    assert "Why these nodes: the performance model in 2014" in why
    assert "Served mostly by <strong>ivy-bridge</strong>" in why and "storage-bound fraction" in why
    assert "Break-even price:" in why and "No other node type turns a genome around within 24 h" in why
    assert "Intel ARK recommended customer price" in why  # the price's source
    rule = html.split('id="compute-rule"')[1].split("</li>")[0]  # where the core-hours at target come from
    assert "9 maintenance days a year (this scenario)" in rule and "utilisation target" in rule
    # a design whose nodes serve no genomes (AMD Interlagos misses the 24 h limit) is not said to be served by
    # a node type it does not have: the card says none are served and names the one that would be
    wide = login(client, planner_user).get(f"/designs/{designs['wide'].pk}/").content.decode()
    why_wide = wide.split('id="why-nodes"')[1].split("</section>")[0]
    assert "Served mostly by" not in why_wide
    assert 'id="none-served">No genomes are served in 2014</strong>: on the design\'s nodes a genome takes' in why_wide
    words = " ".join(why_wide.split())
    assert "turns around in 49.6 h, over the 24 h limit" in words and "Genomes run on" not in why_wide
    assert "The cheapest node type per genome/day that meets the limit is <strong>ivy-bridge</strong>" in why_wide


def test_the_catalog_page_exports_and_imports_csv(client: Any, planner_user: Any, designs: dict[str, Any]) -> None:
    login(client, planner_user)
    html = client.get("/hardware/").content.decode()
    assert "ivy-bridge" in html and "isilon-h600" in html
    csv_text = client.get("/hardware/export/node_types.csv").content.decode()
    assert csv_text.startswith("name,cpu_model,")
    from django.core.files.uploadedfile import SimpleUploadedFile

    bad = SimpleUploadedFile("nodes.csv", csv_text.replace(",6404,", ",cheap,").encode())
    page = client.post("/hardware/import/", {"file": bad}, follow=True).content.decode()
    assert "nodes.csv line 3, field price_usd: expected a number" in page
    good = SimpleUploadedFile("nodes.csv", csv_text.replace(",6404,", ",7100,").encode())
    page = client.post("/hardware/import/", {"file": good}, follow=True).content.decode()
    assert "nodes.csv: 4 node type rows (0 new, 1 updated, 3 unchanged)." in page
    form = client.get("/hardware/node-types/ivy-bridge/edit/").content.decode()
    assert 'value="7100' in form


def test_the_editor_names_the_field_and_saving_makes_a_new_evaluated_version(client: Any, planner_user: Any,
                                                                            designs: dict[str, Any]) -> None:
    login(client, planner_user)
    narrow = designs["narrow"]
    bad = narrow.scenario_yaml.replace("node_type: haswell", "node_type: skylake")
    html = client.post(f"/designs/{narrow.pk}/edit/", {"scenario": bad, "action": "evaluate"}).content.decode()
    assert "purchases[3].node_type: unknown node type &#x27;skylake&#x27;" in html
    ok = client.post(f"/designs/{narrow.pk}/edit/", {"scenario": narrow.scenario_yaml, "action": "check"})
    assert "Valid: 2014-2019" in ok.content.decode()
    changed = narrow.scenario_yaml.replace("count: 207", "count: 300")
    response = client.post(f"/designs/{narrow.pk}/edit/", {"scenario": changed, "action": "evaluate"})
    v2 = Design.objects.get(parent=narrow)
    assert response.status_code == 302 and response["Location"] == f"/designs/{v2.pk}/"
    assert v2.version == 2 and v2.evaluations.count() == 1


def test_a_nul_escape_in_a_scenario_is_named_by_field_on_the_page_and_the_api(client: Any, planner_user: Any,
                                                                               designs: dict[str, Any]) -> None:
    """YAML's "\\0" makes a NUL, which no database text can hold: refused by field, before any save."""
    login(client, planner_user)
    narrow = designs["narrow"]
    bad = narrow.scenario_yaml.replace("node_type: haswell", 'node_type: "has\\0well"', 1)
    before = Design.objects.count()
    html = client.post(f"/designs/{narrow.pk}/edit/", {"scenario": bad, "action": "evaluate"}).content.decode()
    assert "purchases[3].node_type: contains a NUL byte" in html and "scenario.purchases" not in html
    api = client.post("/api/v1/designs/", {"scenario_yaml": bad}, content_type="application/json")
    assert api.status_code == 400
    assert api.json()["scenario_yaml"][0].startswith("purchases[3].node_type: contains a NUL byte")
    assert Design.objects.count() == before


def test_the_design_page_shows_every_constraint_and_the_comparison_says_why(client: Any, planner_user: Any,
                                                                            designs: dict[str, Any]) -> None:
    login(client, planner_user)
    html = client.get(f"/designs/{designs['wide'].pk}/").content.decode()
    assert "Flash for days of ingest" in html and "✗ short" in html and "fig-capacity" in html
    assert client.get(f"/designs/{designs['wide'].pk}/years.csv").content.decode().startswith("year,nodes,")
    url = f"/designs/compare/?ids={designs['wide'].pk}&ids={designs['narrow'].pk}"
    html = client.get(url).content.decode()
    why = html.split('id="why"')[1].split("</p>")[0]
    assert "narrow high-clock nodes + flash" in why and "cannot meet the genomes demand" in why
    assert "core-hours on ddn-sfa10k instead of 615 on flash-gss" in why
    assert "fig-tornado-0" in html and "fig-tornado-1" in html


def test_the_api_creates_evaluates_and_starts_the_optimiser(client: Any, planner_user: Any,
                                                            designs: dict[str, Any]) -> None:
    login(client, planner_user)
    text = designs["wide"].scenario_yaml
    bad = client.post("/api/v1/designs/", {"scenario_yaml": text.replace("count: 85", "count: lots")},
                      content_type="application/json")
    assert bad.status_code == 400 and "purchases[0].count: expected an integer" in bad.json()["scenario_yaml"][0]
    made = client.post("/api/v1/designs/", {"scenario_yaml": text, "name": "API copy"},
                       content_type="application/json")
    assert made.status_code == 201 and made.json()["name"] == "API copy"
    pk = made.json()["id"]
    ev = client.post(f"/api/v1/designs/{pk}/evaluate/").json()
    assert ev["feasible"] is False and ev["result"]["years"][0]["year"] == 2014
    started = client.post(f"/api/v1/designs/{pk}/optimize/", {"time_limit_s": 5}, content_type="application/json")
    assert started.status_code == 202
    body = started.json()
    assert body["status"] == "queued" and body["status_url"].endswith(f"/jobs/{body['job_id']}.json")
    assert client.get(f"/api/v1/optimizer-runs/{body['run_id']}/").json()["status"] == "queued"
    names = [n["name"] for n in client.get("/api/v1/node-types/").json()["results"]]
    assert "ivy-bridge" in names


def test_the_api_schema_still_generates_without_warnings() -> None:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out, stderr=io.StringIO())
    for path in ("/api/v1/designs/{id}/optimize/", "/api/v1/node-types/", "/api/v1/benchmarks/"):
        assert path in out.getvalue()


def test_a_negative_price_or_a_zero_clock_is_refused_by_the_form_and_the_api_as_the_catalog_refuses_it(
        client: Any, planner_user: Any, designs: dict[str, Any]) -> None:
    """A negative price would have the optimiser buy without end: the catalog's own rule on every way in."""
    from planner.hardware.models import NodeType

    login(client, planner_user)
    fields = {k: v for k, v in client.get("/api/v1/node-types/").json()["results"][0].items() if k != "id"}
    before = NodeType.objects.count()
    form = {k: ("" if v is None else v) for k, v in fields.items()} | {"name": "probe", "price_usd": -5,
                                                                       "base_clock_ghz": 0}
    html = client.post("/hardware/node-types/new/", form).content.decode()
    assert "must be &gt;= 0, got -5.0" not in html and "must be &gt; 0, got -5.0" in html
    assert "must be &gt; 0, got 0.0" in html
    api = client.post("/api/v1/node-types/", fields | {"name": "probe", "power_w": -100},
                      content_type="application/json")
    assert api.status_code == 400 and api.json()["power_w"] == ["must be >= 0, got -100.0"]
    storage = client.get("/api/v1/storage-systems/").json()["results"][0]
    bad = {k: v for k, v in storage.items() if k != "id"} | {"name": "probe-st", "usable_tb": -1}
    api = client.post("/api/v1/storage-systems/", bad, content_type="application/json")
    assert api.status_code == 400 and api.json()["usable_tb"] == ["must be > 0, got -1.0"]
    assert NodeType.objects.count() == before


@pytest.mark.parametrize("typo", ["ten", "inf", "nan", "0", "9999"])
def test_a_time_limit_the_solver_cannot_take_is_refused_on_the_page_not_replaced(
        client: Any, planner_user: Any, designs: dict[str, Any], typo: str) -> None:
    from planner.designs.models import OptimizerRun

    login(client, planner_user)
    pk = designs["wide"].pk
    page = client.post(f"/designs/{pk}/optimize/", {"time_limit_s": typo}, follow=True)
    assert page.status_code == 200
    assert "time limit: expected a number of seconds from 0.01 to 600" in page.content.decode()
    assert not OptimizerRun.objects.filter(design_id=pk).exists()


def test_the_years_csv_carries_no_float_noise(client: Any, planner_user: Any, designs: dict[str, Any]) -> None:
    """Sums of floats (52.84479999999999) are written to 12 significant digits, as a spreadsheet would show them."""
    import csv as csv_module
    import io as io_module
    import re

    login(client, planner_user)
    for design in (designs["wide"], designs["narrow"]):
        text = client.get(f"/designs/{design.pk}/years.csv").content.decode()
        rows = list(csv_module.reader(io_module.StringIO(text)))
        assert len(rows) > 1
        numbers = [v for row in rows[1:] for v in row if re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", v)]
        assert numbers
        noisy = [v for v in numbers if float(v) != float(f"{float(v):.12g}")]
        assert noisy == []


def test_a_design_without_genomics_lists_no_genomics_derivations(client: Any, planner_user: Any,
                                                                  designs: dict[str, Any]) -> None:
    """'Where these numbers come from' listed the genomics model's arch factors and tiers ("fitted arch factor
    0.5...") on a design whose years neither check nor ask for genomes."""
    import yaml

    login(client, planner_user)
    narrow = client.get(f"/designs/{designs['narrow'].pk}/").content.decode()
    assert "How the per-genome numbers were obtained" in narrow and "arch factor" in narrow
    sc = dict(designs["narrow"].scenario)
    sc["name"] = "narrow, compute only"
    sc["demand"] = [{k: v for k, v in d.items() if k != "genomes_per_day"}
                    for d in sc["demand"]]
    sc["constraints"] = {**(sc.get("constraints") or {}),
                         "off": sorted({*(sc.get("constraints") or {}).get("off", []), "genomes_per_day"})}
    page = client.post("/designs/new/", {"scenario": yaml.safe_dump(sc), "action": "evaluate"}, follow=True)
    html = page.content.decode()
    assert page.status_code == 200 and "Where these numbers come from" in html
    card = html.split("Where these numbers come from")[1].split("</section>")[0]
    assert 'id="compute-rule"' in card and "arch factor" not in card and "tier:" not in card
    # the list shows no per-genome figures for it either ("peak genomes/day 25 (2020)", "$60" a genome before)
    rows = client.get("/designs/").content.decode().split("<tr>")
    row = next(r for r in rows if "narrow, compute only" in r)
    cells = row.split('<td class="num">')
    assert cells[3].startswith('<span class="muted">–</span>') and cells[4].startswith("</td>")
    narrow_row = next(r for r in rows if designs["narrow"].name in r and "compute only" not in r)
    assert '<span class="muted">–</span>' not in narrow_row.split('<td class="num">')[3]
