"""A design's queue waits, every year: growth, the design page section, the comparison, the stored result."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.utils.html import escape

from forecasts.accounting.models import Department
from planner.replay.services import (
    WHAT_IF_SCALES,
    design_growth,
    design_replay_execute,
    design_replay_latest,
    design_replay_start,
)
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs
from tests.planner.replay.replay_data import CLUSTER, load_cluster

pytestmark = pytest.mark.django_db


def replayed(design: Any) -> Any:
    """Start a replay job and carry it out in this process (the worker test runs it on a real worker)."""
    job = design_replay_start(design=design, cluster=CLUSTER)
    design_replay_execute(job.pk)
    job.refresh_from_db()
    return job


def test_without_a_forecast_the_growth_is_the_designs_own_demand(tmp_path: Path) -> None:
    from forecasts.models import Cluster

    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    demand = {d["year"]: float(d["core_hours"]) for d in narrow.scenario["demand"]}  # "36.8e6": YAML 1.1 text
    g = design_growth(narrow, Cluster.objects.get(name=CLUSTER), 2023, 2019)
    assert g.median == g.p10 == g.p90 == pytest.approx(demand[2019] / demand[2014])
    assert "the design's demand, 2019 over 2014" in g.source


def test_a_core_hours_forecast_gives_the_median_and_the_p10_p90_growth(tmp_path: Path) -> None:
    from forecasts.demand.models import ForecastFit
    from forecasts.models import Cluster

    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    cluster = Cluster.objects.get(name=CLUSTER)
    fit = ForecastFit.objects.create(
        metric="core_hours", cluster=cluster, units="core-hours", start=date(2021, 1, 1), through=date(2023, 12, 1),
        values=[1.0] * 36, family="linear", selection="override", reason="test", result={},
        yearly=[{"year": 2023, "median": 200.0, "p10": 200.0, "p90": 200.0},
                {"year": 2016, "median": 300.0, "p10": 240.0, "p90": 380.0}])
    g = design_growth(narrow, cluster, 2023, 2016)
    assert (g.median, g.p10, g.p90) == (1.5, 1.2, 1.9)
    assert f"fit #{fit.pk}" in g.source
    other = design_growth(narrow, cluster, 2023, 2018)  # the fit does not reach 2018: the design's demand
    assert "the design's demand" in other.source


def test_a_design_replay_stores_every_year_and_the_page_shows_it(client: Any, planner_user: Any,
                                                                  tmp_path: Path) -> None:
    load_cluster(tmp_path)
    designs = load_catalog_and_designs()
    narrow = designs["narrow"]
    login(client, planner_user)
    before = client.get(f"/designs/{narrow.pk}/").content.decode()
    assert 'id="queue-waits"' in before and "Not replayed yet" in before and f"<option>{CLUSTER}</option>" in before

    job = replayed(narrow)
    assert job.status == "succeeded", job.message
    assert job.done == job.total == 1 + 6 * (3 + len(WHAT_IF_SCALES) - 1)
    res = job.result
    assert res["cluster"] == CLUSTER and res["base_period"] == ["2023-01-01", "2024-01-01"]
    assert [y["year"] for y in res["years"]] == list(range(2014, 2020))
    assert res["today"]["processors"] == 256 and res["today"]["mode"] == "nodes"
    y2019 = res["years"][-1]
    assert y2019["p10"]["load_scale"] <= y2019["median"]["load_scale"] <= y2019["p90"]["load_scale"]
    assert [p["machine_scale"] for p in y2019["what_if"]] == list(WHAT_IF_SCALES)
    assert y2019["median"]["cdf_fraction"][0] == 0 and y2019["median"]["cdf_fraction"][-1] == 1
    assert design_replay_latest(narrow).pk == job.pk

    html = client.get(f"/designs/{narrow.pk}/").content.decode()
    assert 'id="queue-waits-table"' in html and "today&#x27;s replaytest" in html
    today = html.split('id="queue-waits-table"')[1].split("</tr>")[1]  # the first body row: today's cluster
    assert '<td class="num">1.00</td>' in today  # the load factor as every other row writes it, not "1"
    assert 'href="/methods/replay/"' in html  # the method cited is a link
    assert html.count('data-figure="fig-queue-') == 2 and 'id="queue-what-if"' in html
    assert "<script>" not in html.split('id="queue-waits"')[1]  # data in json_script only, code in static files
    departments = html.split('id="queue-waits-departments"')[1].split("</table>")[0]
    assert "95th-percentile wait by department: today and in 2019" in departments
    shown = {d.code: d.name for d in Department.objects.filter(code__in=res["today"]["by_department"])}
    assert shown and all(f"<td>{escape(name)}</td>" in departments for name in shown.values())  # names, not codes
    assert all(f"<td>{code}</td>" not in departments for code, name in shown.items() if code != name)
    sizes = html.split('id="queue-waits-sizes"')[1].split("</table>")[0]
    assert sizes.index("<td>1</td>") < sizes.index("<td>2-4</td>")  # job sizes smallest first

    api = client.get(f"/api/v1/replay/designs/{narrow.pk}/")
    assert api.status_code == 200 and api.json()["job_id"] == job.pk and len(api.json()["years"]) == 6
    assert client.get(f"/api/v1/replay/designs/{designs['wide'].pk}/").status_code == 404

    compare = client.get(f"/designs/compare/?ids={narrow.pk}&ids={designs['wide'].pk}").content.decode()
    section = compare.split('id="queue-waits"')[1]
    assert 'data-figure="fig-queue-cdf"' in section and "Not replayed yet" in section
    figure = json.loads(compare.split('id="fig-queue-cdf" type="application/json">')[1].split("</script>")[0])
    assert [t["name"] for t in figure["data"]] == [f"today's {CLUSTER}", f"D1 {narrow.name[:40]} 2019"]


def test_the_design_page_start_button_lands_on_the_job(client: Any, planner_user: Any, tmp_path: Path) -> None:
    from planner.models import BackgroundJob

    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    login(client, planner_user)
    r = client.post(f"/replay/designs/{narrow.pk}/", {"cluster": CLUSTER})
    job = BackgroundJob.objects.get(kind="replay_design")
    assert r.status_code == 302 and r["Location"] == f"/jobs/{job.pk}/"
    assert job.params == {"design_id": narrow.pk, "cluster": CLUSTER}
    r = client.post(f"/replay/designs/{narrow.pk}/", {"cluster": "nowhere"}, follow=True)
    assert "cluster &#x27;nowhere&#x27; not found" in r.content.decode()


def test_the_grant_report_gets_a_queue_waits_section_once_the_design_is_replayed(tmp_path: Path) -> None:
    from forecasts.models import Cluster
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    cluster = Cluster.objects.get(name=CLUSTER)
    before = gather_facts(design=narrow, cluster=cluster)
    assert before["queue_waits"] is None
    assert "queue_waits" not in [s.key for s in build_document(before).sections]
    job = replayed(narrow)
    facts = gather_facts(design=narrow, cluster=cluster)
    doc = build_document(facts)
    section = next(s for s in doc.sections if s.key == "queue_waits")
    table = section.blocks[1]
    assert [row[0] for row in table.rows] == [f"today's {CLUSTER}"] + [str(y) for y in range(2014, 2020)]
    assert f"replay-{job.pk}" in [r.key for r in doc.references] and f"replay-{job.pk}" in table.refs
    assert [s.number for s in doc.sections] == list(range(1, len(doc.sections) + 1))
