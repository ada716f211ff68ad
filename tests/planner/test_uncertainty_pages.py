"""From forecast to design with the uncertainty, as a planner uses it in the product."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

from planner.designs.models import Design, OptimizerRun
from planner.designs.services import design_create, design_evaluate
from tests.helpers import login

pytestmark = pytest.mark.django_db(transaction=False)

SMALL = {
    "name": "Two years under uncertainty",
    "horizon": {"start_year": 2015, "end_year": 2016},
    "demand": [{"year": 2015, "core_hours": 4.0e5, "storage_tb": 600},
               {"year": 2016, "core_hours": 6.0e5, "storage_tb": 900}],
    "constraints": {"flash_days": 0, "off": ["genomes_per_day", "ingest_tb_per_day", "files"]},
    "purchases": [{"year": 2015, "node_type": "haswell", "count": 12},
                  {"year": 2015, "storage_system": "ibm-gss26", "count": 1}],
    "optimize": {"node_types": ["haswell"], "storage_systems": ["ibm-gss26"], "mip_rel_gap": 0.0},
    "uncertainty": {"paths": 300, "seed": 4, "sigma_per_year": {"core_hours": 0.2, "storage_tb": 0.1}},
}


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


def _design(spec: dict[str, Any] | None = None, **extra: Any) -> Design:
    """``spec`` (default SMALL) with ``extra`` keys replaced, created and evaluated."""
    design = design_create(text=yaml.safe_dump((spec or SMALL) | extra))
    design_evaluate(design=design)
    return design


def test_the_design_page_shows_the_probability_each_year_holds(client: Any, planner_user: Any, catalog: None) -> None:
    design = _design()
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert "The chance it is enough" in html and 'id="chance-table"' in html
    row = re.search(r"<tr><td>2016</td><td class=\"num\"><strong>(\d+)%</strong>", html)
    assert row is not None and 0 <= int(row.group(1)) <= 100
    assert "fig-fan-core_hours" in html and "fig-fan-storage_tb" in html


def test_without_an_uncertainty_block_the_page_says_how_to_get_one(client: Any, planner_user: Any,
                                                                    catalog: None) -> None:
    design = _design(uncertainty=None)
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert "Add an <code>uncertainty:</code> block" in html


def test_buying_for_a_service_level_shows_the_plan_the_out_of_sample_share_and_the_curve(
        client: Any, planner_user: Any, catalog: None) -> None:
    from planner.designs.services_paths import service_level_run_execute

    design = _design()
    resp = login(client, planner_user).post(f"/designs/{design.pk}/service-level/", {"service_level": "90"})
    run = OptimizerRun.objects.get(design=design)
    assert resp.status_code == 302 and resp["Location"] == f"/designs/runs/{run.pk}/"
    queued = client.get(f"/designs/runs/{run.pk}/").content.decode()
    # no path count asked for: the scenario's applies, and the page says which (not "paths = None")
    assert run.params["paths"] is None and "demand paths: 300 (the scenario&#x27;s)" in queued and "None" not in queued
    service_level_run_execute(run.pk)  # what the worker does (the worker path is tested for the optimiser)
    run.refresh_from_db()
    sl = run.result["service_level"]
    assert run.status == "optimal" and sl["alpha"] == 0.9 and sl["paths"] == 300
    assert min(sl["in_sample"].values()) >= 0.9
    costs = [lv["npv_usd"] for lv in sl["curve"]]
    assert [lv["alpha"] for lv in sl["curve"]] == [0.5, 0.8, 0.9, 0.95] and costs == sorted(costs)
    html = client.get(f"/designs/runs/{run.pk}/").content.decode()
    assert "Bought for 90% of the demand paths" in html and 'id="confidence-table"' in html
    assert "10,000 independent paths" in html and "fig-confidence" in html
    assert "demand paths: 300 (the scenario&#x27;s)" in html and "paths: None" not in html
    assert "service level: 90%" in html and "service_level" not in html.split("<h1>")[1].split("</p>")[0]
    levels = html.split('id="confidence-table"')[1].split("</table>")[0]  # each level's status in words
    assert levels.count("Optimal: the cheapest possible plan") == 4 and ">optimal<" not in levels
    # the cost of confidence downloads as CSV, one row per level with the figures of the run
    import csv
    import io

    assert f'href="/designs/runs/{run.pk}/confidence.csv"' in html
    table = list(csv.DictReader(io.StringIO(client.get(f"/designs/runs/{run.pk}/confidence.csv").content.decode())))
    assert [float(r["service_level"]) for r in table] == [0.5, 0.8, 0.9, 0.95]
    assert [float(r["npv_usd"]) for r in table] == costs
    y = sorted(sl["in_sample"])[0]
    assert float(table[2][f"independent_{y}"]) == sl["out_of_sample"][y]
    plain = OptimizerRun.objects.create(design=design, params={}, status="optimal", result={"status": "optimal"})
    assert client.get(f"/designs/runs/{plain.pk}/confidence.csv").status_code == 409


def test_a_design_started_from_a_forecast_is_judged_on_its_paths_and_follows_newer_fits(
        client: Any, planner_user: Any, departments: dict[str, Any], catalog: None) -> None:
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=48)
    fit = forecast_fit_create(SeriesSpec("core_hours"), horizon_months=36)
    login(client, planner_user)
    fit_page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert f'id="start-design" href="/designs/from-forecast/{fit.pk}/"' in fit_page  # to the form
    before = Design.objects.count()
    form = client.get(f"/designs/from-forecast/{fit.pk}/").content.decode()  # a visit (a prefetch) makes nothing
    assert Design.objects.count() == before
    assert 'method="post" action="/designs/from-forecast/' in form and 'id="no-cluster"' in form  # all clusters
    resp = client.post(f"/designs/from-forecast/{fit.pk}/")
    design = Design.objects.latest("pk")
    assert resp.status_code == 302 and resp["Location"] == f"/designs/{design.pk}/edit/"
    assert design.scenario["uncertainty"]["forecast"] == {"core_fit": fit.pk}
    design_evaluate(design=design)
    html = client.get(f"/designs/{design.pk}/").content.decode()
    assert 'id="chance-table"' in html and "core-hours forecast" in html
    assert 'id="kpi-core-hours"' in html and " on None" not in html  # no genomics: the compute figures, not empty ones
    table = html.split('id="year-table"', 1)[1].split("</table>", 1)[0]
    assert "core-hours at target" in table and "cost per core-hour" in table
    for absent in ("genomes/day capacity", "wall core-hours per genome", "cost per genome", "plannable TB", "flash TB"):
        assert absent not in table  # neither genomics nor storage in this design: no rows of zeros
    newer = forecast_fit_create(SeriesSpec("core_hours"), horizon_months=36)
    html = client.get(f"/designs/{design.pk}/").content.decode()
    assert f'A newer core-hours forecast (<a href="/forecasts/fits/{newer.pk}/">#{newer.pk}</a>, made' in html
    resp = client.post(f"/designs/{design.pk}/newest-forecasts/")
    v2 = Design.objects.get(parent=design)
    assert v2.scenario["uncertainty"]["forecast"]["core_fit"] == newer.pk and v2.version == design.version + 1
    assert Design.objects.filter(pk=design.pk).exists()  # the old version stays viewable


def test_a_design_from_a_cluster_forecast_owns_the_cluster_s_recorded_nodes(
        client: Any, planner_user: Any, departments: dict[str, Any], catalog: None) -> None:
    from datetime import date

    from forecasts.accounting.models import ClusterCapacity
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from planner.designs.services_paths import whole_future_years
    from planner.hardware.models import NodeType
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=48)  # minerva, 2020-01 .. 2023-12
    cluster = Cluster.objects.get(name="minerva")
    for when, cores, nodes in ((date(2017, 1, 1), 1536, 24), (date(2021, 6, 1), 2560, 40)):
        ClusterCapacity.objects.create(cluster=cluster, effective_from=when, cores=cores, nodes=nodes)
    fit = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster), horizon_months=36)
    start = whole_future_years(fit)[0]
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{fit.pk}/").content.decode()
    assert 'id="capacity-records"' in form and "2,560" in form
    assert '<option value="amd-interlagos" selected>' in form  # the only 64-core node type in the catalog
    before = Design.objects.count()
    resp = client.post(f"/designs/from-forecast/{fit.pk}/", {"node_type": "no-such-node"})
    assert resp.status_code == 302 and Design.objects.count() == before  # refused, nothing made
    refused = client.get(resp["Location"]).content.decode()
    assert "no node type &#x27;no-such-node&#x27; in the hardware catalog" in refused
    resp = client.post(f"/designs/from-forecast/{fit.pk}/", {"node_type": "amd-interlagos"})
    design = Design.objects.latest("pk")
    assert resp["Location"] == f"/designs/{design.pk}/edit/"
    sc = design.scenario
    assert [(e["node_type"], e["count"], e["purchase_year"]) for e in sc["existing"]] == [
        ("amd-interlagos", 24, 2017), ("amd-interlagos", 16, 2021)]
    node = NodeType.objects.get(name="amd-interlagos")
    assert sc["reference_core"] == {"clock_ghz": node.base_clock_ghz, "arch_factor": node.arch_factor}
    assert "2,560 recorded cores as amd-interlagos nodes (40 nodes)" in sc["description"]
    ev = design_evaluate(design=design)
    first = next(y for y in ev.result["years"] if y["year"] == start)
    assert first["nodes"] == 40 and first["cores"] == 2560  # what the cluster has, each core one reference core
    # demand is on the cluster's own core: each of its cores is one reference core (not 2.3 / 3.5 of one)
    assert first["normalised_core_hours_at_target"] == pytest.approx(first["core_hours_at_target"])
    assert first["demand_core_hours"] == pytest.approx(next(y["median"] for y in fit.yearly if y["year"] == start))
    html = client.get(f"/designs/{design.pk}/").content.decode()
    assert 'id="chart-capacity"' in html and 'id="chart-genomes"' not in html and 'id="chart-storage"' not in html
    # with a sequencer plan, demand is on the plan's reference core and the trend is converted to it by clock
    from pathlib import Path

    from forecasts.demand.plans import plan_import_file, plan_of

    plan, _ = plan_import_file(Path(__file__).parents[2] / "fixtures" / "minerva_sequencer_plan.yaml", source="test")
    # the fit page passes the plan it stacks; one that covers none of the design's years is not preselected
    form = client.get(f"/designs/from-forecast/{fit.pk}/?plan={plan.pk}").content.decode()
    assert 'id="plan-outside"' in form and "2013–2019: none of the design's years" in form
    assert f'<option value="{plan.pk}" selected>' not in form
    client.post(f"/designs/from-forecast/{fit.pk}/", {"node_type": "amd-interlagos", "plan": str(plan.pk)})
    with_plan = Design.objects.latest("pk").scenario
    ref = plan_of(plan).node_types[plan_of(plan).reference_node].clock_ghz
    assert with_plan["reference_core"] == {"clock_ghz": ref, "arch_factor": 1.0}
    links = with_plan["uncertainty"]["forecast"]
    assert links["sequencer_plan"] == plan.pk and links["cluster_clock_ghz"] == node.base_clock_ghz * node.arch_factor
    assert with_plan["demand"][0]["core_hours"] == pytest.approx(sc["demand"][0]["core_hours"] * links[
        "cluster_clock_ghz"] / ref)
    # any span of the forecast's whole future years; a year outside them is refused with the reason
    whole = whole_future_years(fit)
    client.post(f"/designs/from-forecast/{fit.pk}/", {"start_year": whole[1], "end_year": whole[2]})
    assert Design.objects.latest("pk").scenario["horizon"] == {"start_year": whole[1], "end_year": whole[2]}
    before = Design.objects.count()
    resp = client.post(f"/designs/from-forecast/{fit.pk}/", {"start_year": "1999"})
    assert Design.objects.count() == before
    assert f"1999 is not a whole year of the forecast ({whole[0]}-{whole[-1]})" in client.get(
        resp["Location"]).content.decode()
    resp = client.post(f"/designs/from-forecast/{fit.pk}/", {"start_year": whole[2], "end_year": whole[1]})
    assert Design.objects.count() == before and "is before the first" in client.get(resp["Location"]).content.decode()
    # the same through the API
    api = client.post(f"/api/v1/designs/from-forecast/{fit.pk}/", {"node_type": "amd-interlagos"},
                      content_type="application/json")
    assert api.status_code == 201 and [e["count"] for e in api.json()["existing"]] == [24, 16]
    assert Design.objects.get(pk=api.json()["design"]).scenario["reference_core"] == sc["reference_core"]
    bad = client.post(f"/api/v1/designs/from-forecast/{fit.pk}/", {"plan": 999999}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["detail"] == "no sequencer plan #999999"
    wrong = client.post(f"/api/v1/designs/from-forecast/{fit.pk}/", {"node_type": "nope"},
                        content_type="application/json")
    assert wrong.status_code == 400 and "no node type 'nope'" in wrong.json()["detail"]


def test_a_department_viewer_cannot_buy_or_start_designs(client: Any, genomics_viewer: Any, catalog: None) -> None:
    design = _design()
    login(client, genomics_viewer)
    assert client.post(f"/designs/{design.pk}/service-level/", {"service_level": "90"}).status_code == 403
    assert client.post("/designs/from-forecast/1/").status_code == 403
    assert client.get("/designs/from-forecast/1/").status_code == 403
    assert client.post("/api/v1/designs/from-forecast/1/", {}, content_type="application/json").status_code == 403
    assert not OptimizerRun.objects.exists()


def test_the_api_gives_the_chance_and_queues_a_service_level_run(client: Any, planner_user: Any,
                                                                 genomics_viewer: Any, catalog: None) -> None:
    design = _design()
    login(client, planner_user)
    body = client.get(f"/api/v1/designs/{design.pk}/chance/").json()
    assert body["n_paths"] == 300 and [y["year"] for y in body["report"]["years"]] == [2015, 2016]
    resp = client.post(f"/api/v1/designs/{design.pk}/service-level/", {"service_level": 0.9, "paths": 200},
                       content_type="application/json")
    assert resp.status_code == 202 and OptimizerRun.objects.get(pk=resp.json()["run"]).params["paths"] == 200
    bad = client.post(f"/api/v1/designs/{design.pk}/service-level/", {"service_level": 2},
                      content_type="application/json")
    assert bad.status_code == 400 and "service_level" in bad.json()
    plain = _design(uncertainty=None)
    assert client.get(f"/api/v1/designs/{plain.pk}/chance/").status_code == 409
    login(client, genomics_viewer)
    assert client.get(f"/api/v1/designs/{design.pk}/chance/").status_code == 403


def test_the_chance_table_downloads_as_csv_with_the_api_s_figures(client: Any, planner_user: Any,
                                                                   genomics_viewer: Any, catalog: None) -> None:
    import csv
    import io

    design = _design()
    login(client, planner_user)
    assert f'href="/designs/{design.pk}/chance.csv"' in client.get(f"/designs/{design.pk}/").content.decode()
    body = client.get(f"/api/v1/designs/{design.pk}/chance/").json()
    resp = client.get(f"/designs/{design.pk}/chance.csv")
    assert resp.status_code == 200 and resp["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(resp.content.decode())))
    expected = []
    for y in body["report"]["years"]:
        expected.append((str(y["year"]), "every constraint", y["all_constraints"]))
        expected += [(str(y["year"]), c["constraint"], c["probability"]) for c in y["constraints"]]
    assert [(r["year"], r["constraint"], float(r["probability"])) for r in rows] == expected
    assert {r["paths"] for r in rows} == {"300"}
    plain = _design(uncertainty=None)
    client.get(f"/designs/{plain.pk}/")  # evaluated, but judged on one figure per year: no table to download
    refused = client.get(f"/designs/{plain.pk}/chance.csv")
    assert refused.status_code == 409 and "no uncertainty: block" in refused.content.decode()
    login(client, genomics_viewer)
    assert client.get(f"/designs/{design.pk}/chance.csv").status_code == 403


def test_the_comparison_shows_the_chance_of_each_design(client: Any, planner_user: Any, catalog: None) -> None:
    a, b = _design(), _design(uncertainty=None)
    html = login(client, planner_user).get(f"/designs/compare/?ids={a.pk}&ids={b.pk}").content.decode()
    assert 'id="chance-compare-table"' in html and "no demand paths: judged on one demand figure a year" in html
    assert "no uncertainty: block" not in html  # a scenario key is not words a director reads


def test_the_grant_report_gives_the_chance_and_the_cost_of_confidence(planner_user: Any, catalog: None) -> None:
    from planner.designs.services_paths import service_level_run_execute, service_level_run_start
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    design = _design()
    service_level_run_execute(service_level_run_start(design=design, alpha=0.8, user=planner_user, n_paths=100).pk)
    doc = build_document(gather_facts(design=design))
    section = next(s for s in doc.sections if s.key == "chance")
    tables = {b.key: b for b in section.blocks if getattr(b, "type", "") == "table" or hasattr(b, "rows")}
    assert [r[0] for r in tables["chance"].rows] == ["2015", "2016"]
    assert [r[0] for r in tables["cost_of_confidence"].rows] == ["50%", "80%", "90%", "95%"]


def test_the_demo_step_puts_the_narrow_design_on_paths_and_queues_a_90_percent_plan(planner_user: Any) -> None:
    from planner.designs.demo_paths import load_design_on_paths
    from tests.planner.designs_data import load_catalog_and_designs

    load_catalog_and_designs()
    log: list[str] = []
    load_design_on_paths(log.append)
    design = Design.objects.get(name__icontains="narrow", revisions__isnull=True)
    assert design.scenario["uncertainty"]["paths"] == 500 and design.version == 2
    run = OptimizerRun.objects.get(design=design, params__kind="service_level")
    assert run.params["service_level"] == 0.9 and run.job is not None
    load_design_on_paths(log.append)  # idempotent: no second version, no second run
    assert Design.objects.filter(name__icontains="narrow").count() == 2
    assert OptimizerRun.objects.filter(params__kind="service_level").count() == 1


def test_the_demo_step_starts_a_design_from_the_cluster_forecast_buys_its_90_percent_plan_and_reports_on_it(
        departments: dict[str, Any], catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from planner.designs.demo_paths import load_design_from_forecast
    from tests.forecasts.forecast_factories import usage_history

    log: list[str] = []
    load_design_from_forecast(log.append)
    assert "skipped (no cluster core-hours forecast" in log[-1]
    from forecasts.accounting.models import ClusterCapacity

    usage_history(departments, months=48)
    ClusterCapacity.objects.create(cluster=Cluster.objects.get(name="minerva"), effective_from=date(2019, 1, 1),
                                   cores=1536, nodes=24)
    fit = forecast_fit_create(SeriesSpec("core_hours", cluster=Cluster.objects.get(name="minerva")),
                              horizon_months=36)
    load_design_from_forecast(log.append)
    design = Design.objects.get(name=f"Design for minerva from forecast #{fit.pk}")
    assert design.scenario["uncertainty"]["forecast"] == {"core_fit": fit.pk}
    # it owns the cluster's 24 recorded 64-core nodes (the catalog's only node type that wide), kept to 2024
    assert design.scenario["existing"] == [{"node_type": "amd-interlagos", "count": 24, "purchase_year": 2019,
                                            "lifetime_years": 6}]
    assert design.scenario["horizon"] == {"start_year": 2024, "end_year": 2026}
    run = OptimizerRun.objects.get(design=design, params__kind="service_level")
    # bought at once (a compute-only model of one node type), not queued, and saved as a design to report on
    assert run.params["service_level"] == 0.9 and run.status == "optimal" and run.job is None
    assert run.result["service_level"]["out_of_sample"] and run.result_design is not None
    assert f"saved as design #{run.result_design.pk}" in log[-1]
    load_design_from_forecast(log.append)  # idempotent: the same design, no second run, no second save
    assert Design.objects.filter(name__startswith="Design for minerva").count() == 2  # the design and its plan
    assert OptimizerRun.objects.filter(design=design).count() == 1
    # a newer fit of another cluster loaded beside the demo's does not take the demo's design over
    from forecasts.accounting import demo as accounting_demo
    from forecasts.demand.models import ForecastFit

    other = Cluster.objects.create(name="site-own")
    site_fit = ForecastFit.objects.create(metric="core_hours", cluster=other, units="core-hours", values=[1.0],
                               start=date(2020, 1, 1), through=date(2020, 1, 1), family="combined",
                               selection="backtest", reason="a site's own", result={})
    monkeypatch.setattr(accounting_demo, "CLUSTER", "minerva")
    load_design_from_forecast(log.append)
    assert not Design.objects.filter(name__startswith="Design for site-own").exists()
    assert f"#{site_fit.pk}" not in log[-1] and f"#{fit.pk}" in log[-1]

    # the report on the cluster's own plan: its forecast, and the plan of the department whose sequencing it is
    from forecasts.demand.plans import plan_import_file
    from planner.reports.demo import load_cluster_plan_report
    from planner.reports.models import GrantReport

    own, _ = plan_import_file(Path(settings.BASE_DIR) / "fixtures" / "nigm_sequencer_plan.yaml", department="ggs")
    plan_import_file(Path(settings.BASE_DIR) / "fixtures" / "minerva_sequencer_plan.yaml")  # no department
    load_cluster_plan_report(log.append)
    report = GrantReport.objects.get()
    assert report.design == run.result_design and report.status == "ready", report.message
    assert report.parameters["forecast"] == fit.pk and report.parameters["sequencer_plan"] == own.pk
    html = (report.directory / "report.html").read_text()
    assert "no storage (a compute-only design)" in html and "The design buys no storage" in html
    assert "grows from 1.5 instruments at the end of 2014 to 5 in 2022" in html  # the plan table's counts
    load_cluster_plan_report(log.append)
    assert GrantReport.objects.count() == 1 and log[-1] == "grant report on the cluster's plan: already generated"


def test_a_plan_on_a_forecast_of_every_department_is_refused_unless_its_sequencing_is_new_to_the_cluster(
        client: Any, planner_user: Any, departments: dict[str, Any], catalog: None) -> None:
    from pathlib import Path

    from forecasts.demand.plans import plan_parse, plan_save, plan_years
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster
    from tests.forecasts.forecast_factories import usage_history

    usage_history(departments, months=48)  # minerva, 2020-01 .. 2023-12: whole forecast years 2024-2026
    cluster = Cluster.objects.get(name="minerva")
    everyone = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster), horizon_months=36)
    text = (Path(__file__).parents[2] / "fixtures" / "minerva_sequencer_plan.yaml").read_text()
    for old, new in (("2019-", "2030-"), ("2015-", "2026-"), ("2013-", "2024-")):
        text = text.replace(old, new)
    plan, _ = plan_save(plan_parse(re.sub(r"(?m)^name: .*$", "name: Minerva from 2024", text)), source="test")
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{everyone.pk}/?plan={plan.pk}").content.decode()
    assert 'id="plan-overlap"' in form and 'id="plan-on-top"' in form
    assert "No forecast of this cluster without one department exists yet" in form
    before = Design.objects.count()
    resp = client.post(f"/designs/from-forecast/{everyone.pk}/", {"plan": str(plan.pk)})
    assert Design.objects.count() == before  # refused, nothing made, and the page says why
    assert "would be counted twice" in client.get(resp["Location"]).content.decode()
    # the trend without the sequencing department is offered instead, and takes the plan on top
    rest = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster, exclude_department=departments["genomics"]),
                               horizon_months=36)
    form = client.get(f"/designs/from-forecast/{everyone.pk}/?plan={plan.pk}").content.decode()
    assert f'href="/designs/from-forecast/{rest.pk}/?plan={plan.pk}"' in form
    assert 'id="plan-overlap"' not in client.get(f"/designs/from-forecast/{rest.pk}/").content.decode()
    client.post(f"/designs/from-forecast/{rest.pk}/", {"plan": str(plan.pk)})
    design = Design.objects.latest("pk").scenario
    assert "on top of the trend without ggs" in design["description"]
    plan_hours = {y.year: y.core_hours_ref for y in plan_years(plan) if y.months == 12}
    first = design["demand"][0]
    trend = next(y["median"] for y in rest.yearly if y["year"] == first["year"])
    assert first["core_hours"] == pytest.approx(trend + plan_hours[first["year"]])  # what the paths are centred on
    # confirmed: the plan's sequencing is new to the cluster, so it goes on top of every department's trend
    client.post(f"/designs/from-forecast/{everyone.pk}/", {"plan": str(plan.pk), "plan_on_top": "1"})
    assert "its sequencing is new to the cluster" in Design.objects.latest("pk").scenario["description"]
    # the same through the API
    api = client.post(f"/api/v1/designs/from-forecast/{everyone.pk}/", {"plan": plan.pk},
                      content_type="application/json")
    assert api.status_code == 400 and "would be counted twice" in api.json()["detail"]
    assert f"start from #{rest.pk}" in api.json()["detail"]
    api = client.post(f"/api/v1/designs/from-forecast/{everyone.pk}/", {"plan": plan.pk, "plan_on_top": True},
                      content_type="application/json")
    assert api.status_code == 201
