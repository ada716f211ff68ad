"""A director traces the numbers of a grant report and a design page back to their inputs (QA, session 27).

Cost per core-hour: the demo report on nexus's 90% plan printed "capex + opex $225,735" and "cost per core-hour
$0.0072" side by side for 2020 with 30.0 M core-hours at target: 225,735 / 30.0 M is $0.0075, and nothing on the
page, in the report or its CSV said that the figure divides the *annualised* cost (each active item's price /
service life + opex: $216,533) by the core-hours at the target on all cores. The figure could not be re-made from
what the director was shown. The report's cost table and the design page now give the annualised cost, the
core-hours it divides, and the rule."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login
from tests.planner.designs_data import ROOT, load_catalog_and_designs

SCENARIO = """name: 'Owned nodes and a purchase'
horizon: {start_year: 2020, end_year: 2021}
reference_core: {clock_ghz: 2.3, arch_factor: 1.0}
existing:
- {node_type: amd-interlagos, count: 24, purchase_year: 2014, lifetime_years: 7}
purchases:
- {year: 2020, node_type: xeon-e5-2697v4, count: 15}
demand:
- {year: 2020, core_hours: 1000000}
- {year: 2021, core_hours: 1000000}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
"""


def _money(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def _design() -> Any:
    from planner.designs.services import design_create, design_evaluate

    load_catalog_and_designs()
    design = design_create(text=SCENARIO)
    design_evaluate(design=design)
    return design


@pytest.mark.django_db
def test_the_reports_cost_per_core_hour_can_be_remade_from_its_own_table() -> None:
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    design = _design()
    doc = build_document(gather_facts(design=design))
    costs = next(t for t in doc.tables() if t.key == "unit_costs")
    paid = next(t for t in doc.tables() if t.key == "costs")
    col = {name: i for i, name in enumerate(costs.columns)}
    assert "annualised cost" in col and "core-hours at target, all cores (M)" in col
    for row in costs.rows:
        annualised = _money(row[col["annualised cost"]])
        per_core_hour = _money(row[col["cost per core-hour"]])
        core_hours = float(row[col["core-hours at target, all cores (M)"]]) * 1e6
        # the printed figures re-make the printed cost per core-hour (to their rounding)
        assert annualised / core_hours == pytest.approx(per_core_hour, abs=6e-5)
    # and it is not a year's capex + opex over those core-hours (the figure a reader would otherwise try)
    assert all(_money(p[6]) != pytest.approx(_money(u[1]), rel=0.01)
               for p, u in zip(paid.rows, costs.rows, strict=True))
    assert "price / its service life" in costs.note and "all cores" in costs.note
    # 2020 by hand: 24 owned AMD nodes ($10,350, 7 years) + 15 new Xeons ($8,784, 5 years) + opex
    opex = _money(paid.rows[0][paid.columns.index("opex")])
    assert _money(costs.rows[0][col["annualised cost"]]) == pytest.approx(24 * 10350 / 7 + 15 * 8784 / 5 + opex, abs=1)


@pytest.mark.django_db
def test_the_design_page_and_csv_give_the_annualised_cost_the_figure_divides(planner_user: Any) -> None:
    design = _design()
    client = login(Client(), planner_user)
    html = client.get(f"/designs/{design.pk}/").content.decode()
    ev = design.evaluations.order_by("-pk").first().result["years"][0]
    assert "annualised cost USD" in html
    assert f"{ev['annualised_cost_usd']:,.0f}" in html
    assert 'id="cost-rule"' in html and "price / service life" in html
    rule = html.split('id="cost-rule"')[1].split("</li>")[0]
    assert 'href="/hardware/"' in rule and "price's source" in rule  # where the prices come from
    rows = list(csv.DictReader(io.StringIO(client.get(f"/designs/{design.pk}/years.csv").content.decode())))
    first = rows[0]
    assert float(first["annualised_cost_usd"]) / float(first["core_hours_at_target"]) == pytest.approx(
        float(first["cost_per_core_hour_usd"]))


@pytest.mark.django_db
def test_the_reports_cost_per_genome_can_be_remade_from_its_own_table() -> None:
    from planner.designs.services import design_evaluate
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    narrow = load_catalog_and_designs()["narrow"]  # the study's design: genomes on a share of the cores
    design_evaluate(design=narrow)
    unit = next(t for t in build_document(gather_facts(design=narrow)).tables() if t.key == "unit_costs")
    col = {name: i for i, name in enumerate(unit.columns)}
    assert "cost per genome" in col and "genomes a day x 365" in unit.note
    remade = 0
    for row in unit.rows:
        if row[col["cost per genome"]] == "–":
            continue
        genomes_a_year = float(row[col["genomes/day capacity"]].replace(",", "")) * 365
        assert _money(row[col["annualised cost"]]) / genomes_a_year == pytest.approx(
            _money(row[col["cost per genome"]]), rel=0.01)
        remade += 1
    assert remade >= 4


@pytest.mark.django_db
def test_the_report_says_what_each_unit_price_is_and_where_it_comes_from() -> None:
    """The study's report costed 3 IBM GSS units at $450,000 and 5 DDN units at $350,000 that the catalog marks
    'estimate: no public list price found; replace with a quote', and said nothing of it (only node types'
    assumptions were listed). Every item owned or bought now has its price, date and source in one table."""
    import yaml

    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    narrow = load_catalog_and_designs()["narrow"]
    table = next(t for t in build_document(gather_facts(design=narrow)).tables() if t.key == "prices")
    by_item = {r[0].removesuffix(" (owned)"): r for r in table.rows}
    catalog = yaml.safe_load((ROOT / "fixtures" / "catalog.yaml").read_text())
    rows = {r["name"]: r for r in [*catalog["node_types"], *catalog["storage_systems"]]}
    # every node type and storage system the scenario owns or buys (flash bought by the TB included)
    assert set(by_item) == {"amd-interlagos", "ivy-bridge", "haswell", "ddn-sfa10k", "ibm-gss26", "ddn-sfa12k",
                            "flash-gss"}
    for name, row in by_item.items():
        assert _money(row[2]) == rows[name]["price_usd"]
        assert row[4] == rows[name]["price_source"] and row[3] == str(rows[name]["price_date"])
    assert by_item["ibm-gss26"][4].startswith("estimate") and "replace it" in table.note
    assert by_item["amd-interlagos"][0].endswith("(owned)")


@pytest.mark.django_db
def test_the_dashboard_does_not_say_a_month_is_left_out_of_the_chart_that_draws_it(
        tmp_path: Any, client: Any, planner_user: Any, departments: Any) -> None:
    """The demo's dashboard said "January 2020 is left out here" under a chart that draws January 2020 (apart,
    labelled "partial: Jan 2020 so far"): left out of the headline figures, not of the chart. Two partial months
    were already said that way; one now is too."""
    import json
    import re
    from datetime import UTC, datetime

    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.accounting.parsers.synth import slurm_lines

    path = tmp_path / "jobs.txt"
    path.write_text("".join(slurm_lines(3000, start=datetime(2024, 1, 1, tzinfo=UTC),
                                        end=datetime(2025, 3, 6, tzinfo=UTC))))
    ingest_run_execute(ingest_run_create(cluster_name="c", fmt="slurm", paths=[path]).pk)
    html = login(client, planner_user).get("/").content.decode()
    figure = json.loads(re.search(r'<script id="dashboard-usage" type="application/json">(.*?)</script>', html,
                                  re.S).group(1))
    drawn = [x for trace in figure["data"] for x in trace.get("x") or []]
    assert any(str(x).startswith("2025-03") for x in drawn)  # the partial month is in the chart
    assert "left out here" not in html
    assert "March 2025 is left out of the figures above and drawn apart in the chart" in html


@pytest.mark.django_db
def test_the_comparison_says_the_cost_to_meet_demand_tops_up_to_the_median_not_a_service_level(
        planner_user: Any) -> None:
    """Comparing the demo's design from nexus's forecast with its 90% plan, "Cost to meet demand (design + cheapest
    top-up)" read $1,399,740 against $1,790,890: the top-up meets the forecast's median figures while the 90% plan
    holds demand on 90% of the paths, and nothing said so; a director read the plan as $391,000 too dear."""
    from planner.designs.services import design_create, design_evaluate

    _design()
    judged = design_create(text=SCENARIO.replace("'Owned nodes and a purchase'", "'The same on demand paths'")
                           + "uncertainty: {paths: 200, seed: 0, sigma_per_year: {core_hours: 0.1}}\n")
    design_evaluate(design=judged)
    from planner.designs.models import Design

    plain = Design.objects.get(name="Owned nodes and a purchase")
    client = login(Client(), planner_user)
    html = client.get(f"/designs/compare/?ids={plain.pk}&ids={judged.pk}").content.decode()
    assert 'id="topup-basis"' in html and "not to a share of its demand paths" in html
    # designs judged on their figures only: nothing to say
    wide = load_catalog_and_designs()["wide"]
    html = client.get(f"/designs/compare/?ids={plain.pk}&ids={wide.pk}").content.decode()
    assert 'id="topup-basis"' not in html


@pytest.mark.django_db
def test_the_reports_sequencer_plan_table_gives_genomes_a_day_as_the_plan_page_does(planner_user: Any) -> None:
    """The demo's own report printed department ggs's plan at "genomes/day (peak) 0.0" in 2014 and "0.1" from 2015
    to 2022, where the plan's page says 0.0422 rising to 0.143 (and the API 0.04 ... 0.14): one decimal made a
    small lab's figure read as nothing, and flat. The report now prints the page's three figures."""
    import re

    from forecasts.demand.plans import plan_import_file
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    plan, _ = plan_import_file(ROOT / "fixtures" / "nigm_sequencer_plan.yaml")
    design = _design()
    table = next(t for t in build_document(gather_facts(design=design, plan=plan)).tables()
                 if t.key == "sequencer_plan")
    col = table.columns.index("genomes/day (peak month)")
    report = {r[0]: r[col] for r in table.rows}
    page = login(Client(), planner_user).get(f"/forecasts/plans/{plan.pk}/").content.decode()
    body = page[page.index("genomes/day (peak)"):]
    for year, text in report.items():
        row = re.search(rf"<td>{year}</td>(.*?)</tr>", body, re.S).group(1)
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert cells[3] == text, (year, cells, text)  # instruments, samples, re-analysed, genomes/day
    assert report["2014"] not in ("0.0", "0") and report["2014"] != report["2022"]


@pytest.mark.django_db
def test_the_reports_queue_waits_say_which_jobs_and_a_part_year(tmp_path: Any) -> None:
    """The demo report said "The 186,308 jobs nexus ran from 2019-01-01 to 2020-01-01" beside its usage table's
    186,268 jobs of 2019: the replay counts jobs by submit time, the usage tables by the month a job ended, and
    "ran from ... to 2020-01-01" read as a day of 2020 included. The design page said "submitted ... (exclusive)"
    and, for logs that cover no whole calendar year, that it is their last whole months; the report said neither."""
    from datetime import UTC, date, datetime

    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.accounting.parsers.synth import slurm_lines
    from forecasts.models import Cluster, ClusterCapacity
    from planner.replay.services import design_replay_execute, design_replay_start
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    path = tmp_path / "part.sacct"
    path.write_text("".join(slurm_lines(1500, start=datetime(2023, 3, 1, tzinfo=UTC),
                                        end=datetime(2023, 11, 20, tzinfo=UTC), cluster="parttest", seed=5)))
    ingest_run_execute(ingest_run_create(cluster_name="parttest", fmt="slurm", paths=[path], tz="UTC").pk)
    cluster = Cluster.objects.get(name="parttest")
    ClusterCapacity.objects.create(cluster=cluster, effective_from=date(2022, 1, 1), cores=256, nodes=4)
    narrow = load_catalog_and_designs()["narrow"]
    job = design_replay_start(design=narrow, cluster="parttest")
    result = design_replay_execute(job.pk)
    assert result["base_note"].startswith("the logs cover no whole calendar year")
    doc = build_document(gather_facts(design=narrow, cluster=cluster))
    text = next(s for s in doc.sections if s.key == "queue_waits").blocks[0].text
    t0, t1 = result["base_period"]
    assert f"jobs submitted to parttest from {t0} up to {t1} (exclusive; {result['base_note']}" in text
    assert "counted by submit time" in text and " ran from " not in text


@pytest.mark.django_db
def test_a_statements_csv_and_xlsx_carry_the_notes_its_page_and_pdf_give(
        departments: dict[str, Any], tmp_path: Any, admin_user: Any) -> None:
    """Every demo statement of December 2019 bills storage from the scan of 2019-10-01, carried forward: the page
    and the PDF say so, the CSV and XLSX a finance office loads did not (nor any other note)."""
    import openpyxl

    from tests.forecasts.chargeback_data import scb_statement_with_scan_carried_forward

    scb = scb_statement_with_scan_carried_forward(departments, tmp_path)
    note = "Storage on gpfs-work: no scan in 2024-03: the scan of 2024-01-15 is carried forward."
    assert note in scb.notes
    client = login(Client(), admin_user)
    page = client.get(f"/chargeback/statements/{scb.pk}/").content.decode()
    assert "the scan of 2024-01-15 is carried forward" in page
    text = client.get(f"/chargeback/statements/{scb.pk}.csv").content.decode()
    assert ["# note", note] in list(csv.reader(io.StringIO(text)))
    wb = openpyxl.load_workbook(io.BytesIO(client.get(f"/chargeback/statements/{scb.pk}.xlsx").content))
    assert ("note", note) in [tuple(r[:2]) for r in wb.active.iter_rows(values_only=True)]


@pytest.mark.django_db
def test_the_catalog_page_says_where_each_price_comes_from(planner_user: Any) -> None:
    """The Hardware catalog page lists every price a design is costed with, but not where it comes from: the
    catalog's price_source ('bill of materials: 2 x Xeon E5-2697 v4 at $2,702 ...', 'estimate: no public list price
    found; replace with a quote') and price_date were in fixtures/catalog.yaml and the database only."""
    import html as html_lib

    import yaml

    load_catalog_and_designs()
    page = html_lib.unescape(login(Client(), planner_user).get("/hardware/").content.decode())
    catalog = yaml.safe_load((ROOT / "fixtures" / "catalog.yaml").read_text())
    for row in [*catalog["node_types"], *catalog["storage_systems"]]:
        assert row.get("price_source"), row["name"]
        assert f"price ({row['price_date']}): {row['price_source']}" in page, row["name"]


@pytest.mark.django_db
def test_a_design_from_a_forecast_says_when_the_clusters_own_nodes_retire(
        tmp_path: Any, departments: dict[str, Any], planner_user: Any) -> None:
    """The demo's design for nexus owned its 3,584 cores in 2020, 1,024 in 2021 and none in 2022, which is why its
    90% plan buys $1.5 M of nodes; the design page said only "Owns nexus's 3,584 recorded cores as amd-interlagos
    nodes (56 nodes)". When the owned nodes retire, and by which assumption, is now said where the design is
    described (its page, the designs list, the plan saved from it)."""
    from datetime import date

    from forecasts.models import ClusterCapacity
    from planner.designs.services import design_evaluate
    from planner.designs.services_paths import design_from_forecast
    from tests.planner.reports_data import report_inputs

    data = report_inputs(tmp_path, departments)  # minerva: 1,000 cores from 2020, history 2021-2023
    ClusterCapacity.objects.create(cluster=data["cluster"], effective_from=date(2018, 1, 1), cores=512, nodes=8)
    design = design_from_forecast(fit=data["fit"], start_year=2023, end_year=2024, node_type="amd-interlagos")
    assert [(e["count"], e["purchase_year"]) for e in design.scenario["existing"]] == [(8, 2018), (8, 2020)]
    text = design.scenario["description"]
    assert "Of these, 8 nodes retire at the end of 2023 (the catalog's 5-year life, kept through 2023" in text
    years = design_evaluate(design=design).result["years"]
    assert [y["cores"] for y in years] == [1024, 512]  # what the sentence explains
    page = login(Client(), planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert "8 nodes retire at the end of 2023" in page


@pytest.mark.django_db
def test_the_workload_page_counts_departments_as_the_dashboard_and_report_do(
        tmp_path: Any, departments: dict[str, Any], planner_user: Any) -> None:
    """The demo's Workload page read "Users / projects / departments active 303 / 16 / 12" where the dashboard,
    the Usage page and the grant report say 11 departments: it counted the Unassigned bucket as a department."""
    import re

    from forecasts.accounting.models import Department
    from tests.forecasts.usage_data import load_usage

    load_usage(tmp_path, departments)  # groups ggs and scb mapped; a third group's jobs are Unassigned
    from forecasts.accounting.models import UsageMonthly

    assert UsageMonthly.objects.filter(department__code=Department.UNASSIGNED_CODE).exists()
    page = login(Client(), planner_user).get("/usage/workload/?cluster=minerva").content.decode()
    row = re.search(r"departments active</th><td[^>]*>([^<]*)</td>", page).group(1)
    assert row.split(" / ")[2].strip() == "2"


@pytest.mark.django_db
def test_the_chargeback_month_page_names_the_rates_its_totals_come_from(
        departments: dict[str, Any], tmp_path: Any, admin_user: Any) -> None:
    """The demo's month page totalled $46,708.34 for December 2019 without naming the rate plan or its rates
    (the statements name it one level down); a director quoting the total could not say what it was priced at."""
    import html as html_lib

    from forecasts.chargeback.models import RatePlan
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import logs_cover_march, minerva_plan, small_site

    site = small_site(tmp_path)
    logs_cover_march(tmp_path)
    minerva_plan()
    statements_compute(month=site["month"])
    plan = RatePlan.objects.get()
    page = html_lib.unescape(login(Client(), admin_user).get(
        f"/chargeback/?month={site['month']:%Y-%m}").content.decode())
    line = page.split('id="rate-plans">')[1].split("</p>")[0]
    assert plan.name in line and f"from {plan.effective_from:%Y-%m-%d}" in line
    assert not plan.note or plan.note in line


def test_the_demo_rate_plan_says_its_rates_are_illustrative() -> None:
    """The demo's rates are invented (the fixture's comment says so), but the note the pages show read as a site's
    own price list; a visitor quoting the demo's chargeback totals should see that the rates are illustrative."""
    import yaml

    note = yaml.safe_load((ROOT / "fixtures" / "demo_rates.yaml").read_text())["note"]
    assert note.startswith("Illustrative demo rates")


@pytest.mark.django_db
def test_the_report_states_the_growth_rate_of_its_forecast_from_its_own_table(
        tmp_path: Any, departments: dict[str, Any]) -> None:
    """A grant narrative quotes a growth rate ("demand grows 19% a year"); the demo report gave 2019's observed
    20.8 M and 2022's median 35.3 M but no rate, so a director worked one out by hand, or quoted 28% (the
    dashboard's last-12-months growth). The projection sentence now gives the compound rate, from the table's
    own figures."""
    import re

    from planner.designs.services_paths import design_from_forecast
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document
    from tests.planner.reports_data import report_inputs

    data = report_inputs(tmp_path, departments)  # history 2021-2023, the fit 2024-2025
    design = design_from_forecast(fit=data["fit"], start_year=2023, end_year=2024)
    doc = build_document(gather_facts(design=design, cluster=data["cluster"], forecast=data["fit"]))
    text = next(p.text for p in doc.paragraphs() if p.key == "projections")
    table = next(t for t in doc.tables() if t.key == "forecast")
    rows = {r[0]: r for r in table.rows}
    median = table.columns.index("median")
    last_observed = max(y for y, r in rows.items() if r[table.columns.index("forecast months")] == "0" and
                        r[table.columns.index("observed months")] == "12")
    quoted = re.search(r"By (\d{4}), within the design's years", text).group(1)
    rate = (float(rows[quoted][median].replace(",", "")) / float(rows[last_observed][median].replace(",", ""))) ** (
        1 / (int(quoted) - int(last_observed))) - 1
    found = re.search(r", ([+-]\d+)% a year compounded on (\d{4})'s observed", text)
    assert found, text
    assert found.group(2) == last_observed and int(found.group(1)) == round(rate * 100)
