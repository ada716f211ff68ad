"""Loading the same lines under another time zone: they are new jobs to the natural key, and the run says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from tests.helpers import login

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "slurm_sample.txt"


def _load(tz: str | None) -> Any:
    return ingest_run_execute(ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[SAMPLE], tz=tz).pk)


@pytest.mark.django_db
def test_a_reload_in_another_zone_stores_the_jobs_again_and_its_page_warns(client: Any, planner_user: Any) -> None:
    first = _load("UTC")
    assert first.jobs_ingested == 5
    shifted = _load("America/New_York")
    assert shifted.jobs_ingested == 5 and shifted.duplicates == 0  # other submit times: other jobs to the key
    same = _load("UTC")
    assert same.jobs_ingested == 0 and same.duplicates == 5
    login(client, planner_user)
    warned = client.get(reverse("ingest-run", args=[shifted.pk])).content.decode()
    assert 'id="zone-warning"' in warned and "read local times as UTC; this one as America/New_York" in warned
    # a run in the zone of the earlier ones is not warned about that zone (only the odd one out is named)
    again = client.get(reverse("ingest-run", args=[same.pk])).content.decode()
    assert "read local times as America/New_York; this one as UTC" in again
    first_page = client.get(reverse("ingest-run", args=[first.pk])).content.decode()
    assert "this one as UTC" in first_page


@pytest.mark.django_db
def test_a_cluster_loaded_in_one_zone_gets_no_warning(client: Any, planner_user: Any) -> None:
    run = _load(None)
    _load(None)
    login(client, planner_user)
    assert 'id="zone-warning"' not in client.get(reverse("ingest-run", args=[run.pk])).content.decode()


def test_the_demo_cluster_reads_its_logs_in_the_zone_they_were_loaded_in() -> None:
    import inspect

    from forecasts.accounting import demo

    source = inspect.getsource(demo.load_jobs)
    assert '"timezone": "UTC"' in source and 'tz="UTC"' in source
