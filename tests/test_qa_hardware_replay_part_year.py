"""QA walk of the queue-wait replay on a cluster whose logs cover no whole calendar year (KTH SP2, 30 September
1996 to 29 August 1997): the default period is the logs' last whole months, not three months of 1996 called a
year, and the design page says which months it replayed."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from planner.replay.services import design_replay_execute, design_replay_start, run_replay
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs
from tests.shared import SHARED_DATA

pytestmark = pytest.mark.django_db

KTH = SHARED_DATA / "swf" / "cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.fixture
def kth() -> Path:
    if not KTH.is_file():
        pytest.skip(f"the KTH SP2 trace is not here ({KTH}): ../shared is absent")
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute

    run = ingest_run_execute(ingest_run_create(cluster_name="kth", fmt="swf", paths=[KTH], tz="UTC").pk)
    assert run.jobs_ingested > 28_000, run.summary()
    return KTH


def test_the_default_period_is_the_logs_last_whole_months_not_a_year_they_begin_in(kth: Path) -> None:
    out = run_replay(cluster="kth", processors=100)
    # Before: ["1996-01-01", "1997-01-01"], 6,791 jobs of October to December 1996 only.
    assert out["period"] == ["1996-10-01", "1997-08-01"]
    assert out["jobs_simulated"] + out["jobs_not_simulated"] > 26_000


def test_without_the_clusters_size_the_page_refuses_before_queueing(kth: Path, client: Any,
                                                                    planner_user: Any) -> None:
    narrow = load_catalog_and_designs()["narrow"]
    page = login(client, planner_user).post(f"/replay/designs/{narrow.pk}/", {"cluster": "kth"}, follow=True)
    # Before: a job was queued and failed in the worker with the command's hint, "give --processors".
    assert ("Cannot replay queue waits: cluster &#x27;kth&#x27; has no recorded capacity before 1997-08-01: the "
            "replay sets the design beside today&#x27;s cluster, so record its cores and nodes first"
            in page.content.decode())
    from planner.jobs.models import BackgroundJob

    assert not BackgroundJob.objects.filter(kind="replay_design").exists()


def test_the_design_page_names_the_months_it_replayed(kth: Path, client: Any, planner_user: Any) -> None:
    from forecasts.models import Cluster, ClusterCapacity

    ClusterCapacity.objects.create(cluster=Cluster.objects.get(name="kth"), effective_from=date(1996, 1, 1),
                                   cores=100, nodes=100, note="SWF header: MaxProcs 100")
    narrow = load_catalog_and_designs()["narrow"]
    job = design_replay_start(design=narrow, cluster="kth")
    design_replay_execute(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.message
    assert job.result["base_period"] == ["1996-10-01", "1997-08-01"]
    page = login(client, planner_user).get(f"/designs/{narrow.pk}/").content.decode()
    assert "submitted\n    1996-10-01 to 1997-08-01 (exclusive)" in page
    assert "the logs cover no whole calendar year: their last 10 whole months" in page


def test_a_design_with_nodes_in_no_year_says_so_instead_of_an_empty_chart(kth: Path, client: Any,
                                                                           planner_user: Any) -> None:
    from forecasts.models import Cluster, ClusterCapacity
    from planner.designs.models import Design

    ClusterCapacity.objects.create(cluster=Cluster.objects.get(name="kth"), effective_from=date(1996, 1, 1),
                                   cores=100, nodes=100, note="SWF header: MaxProcs 100")
    narrow = load_catalog_and_designs()["narrow"]
    empty = Design.objects.create(name="no nodes at all", scenario=dict(narrow.scenario, existing=[], purchases=[]))
    job = design_replay_start(design=empty, cluster="kth")
    design_replay_execute(job.pk)
    page = login(client, planner_user).get(f"/designs/{empty.pk}/").content.decode()
    assert f"design #{empty.pk} (no nodes at all) has no nodes in 2014: nothing to replay on" in page
    # Before: a p95-by-year chart with no point, on axes from -1 to 6.
    assert 'id="chart-queue-p95"' not in page
    assert "No year of this design has nodes: only today's cluster was" in page


def test_a_forecast_whose_base_year_is_a_part_year_is_not_used_for_growth(kth: Path) -> None:
    from forecasts.demand.models import ForecastFit
    from forecasts.models import Cluster
    from planner.replay.services import design_growth

    narrow = load_catalog_and_designs()["narrow"]
    cluster = Cluster.objects.get(name="kth")
    ForecastFit.objects.create(
        metric="core_hours", cluster=cluster, units="core-hours", start=date(1996, 10, 1),
        through=date(1997, 7, 1), values=[1.0] * 10, family="linear", selection="override", reason="test",
        result={}, yearly=[{"year": 1996, "median": 150.0, "p10": 150.0, "p90": 150.0, "complete": False},
                           {"year": 2016, "median": 600.0, "p10": 500.0, "p90": 700.0, "complete": True}])
    g = design_growth(narrow, cluster, 1996, 2016)
    # Before: 600 / 150 = 4.0 from three months of 1996 taken as its year.
    assert g.median != 4.0
    assert "the design's demand" in g.source
