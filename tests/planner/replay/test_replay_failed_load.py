"""A failed load's partial jobs do not move the replay's default year: where a cluster's logs begin and end is
the accounting selectors' rule (completed loads only), the one usage, forecasts and chargeback read."""

from __future__ import annotations

import gzip
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from forecasts.accounting.parsers.synth import slurm_lines
from tests.planner.replay.replay_data import CLUSTER, load_cluster

pytestmark = pytest.mark.django_db(transaction=True)


def _replay(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return dict(json.loads(out.getvalue().strip().splitlines()[-1]))


def _failed_load(tmp_path: Path, monkeypatch: Any, cluster: str) -> Any:
    """A gzip cut short, of jobs from June 2024 to March 2025: the batches before the cut are stored, then the
    run fails (its last job end is in 2025)."""
    from forecasts.accounting import load as service
    from forecasts.accounting.models import IngestRun

    monkeypatch.setattr(service, "BATCH_RECORDS", 200)
    path = tmp_path / "later.sacct.gz"
    text = "".join(slurm_lines(2000, start=datetime(2024, 6, 1, tzinfo=UTC), end=datetime(2025, 3, 1, tzinfo=UTC),
                               cluster=cluster, seed=7))
    path.write_bytes(gzip.compress(text.encode())[:-2000])
    run = service.ingest_run_create(cluster_name=cluster, fmt="slurm", paths=[path], tz="UTC")
    with pytest.raises(Exception):  # noqa: B017 - whatever the decompressor raises, the run says it
        service.ingest_run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FAILED
    return run


def test_a_failed_loads_jobs_past_the_good_logs_do_not_move_the_replay_year(tmp_path: Path, monkeypatch: Any) -> None:
    load_cluster(tmp_path)  # 2023, completed
    failed = _failed_load(tmp_path, monkeypatch, CLUSTER)
    assert failed.jobs_ingested > 0 and failed.last_end.year == 2025  # its stored jobs reach into 2025
    got = _replay("--cluster", CLUSTER, "--processors", "96")
    # Before: 2024, the failed run's year, replayed on the partial jobs it left.
    assert got["period"] == ["2023-01-01", "2024-01-01"]


def test_a_cluster_with_only_a_failed_load_is_refused_with_the_reason(tmp_path: Path, monkeypatch: Any) -> None:
    _failed_load(tmp_path, monkeypatch, "halfloaded")
    with pytest.raises(CommandError, match="cluster 'halfloaded' has no completed load of accounting logs: ingest "
                                           "its logs first \\(a failed load's partial jobs do not count\\)"):
        _replay("--cluster", "halfloaded", "--processors", "96")


def test_the_design_page_offers_only_clusters_with_a_completed_load(tmp_path: Path, monkeypatch: Any,
                                                                     planner_user: Any) -> None:
    from django.test import Client

    from tests.helpers import login
    from tests.planner.designs_data import load_catalog_and_designs

    load_cluster(tmp_path)
    _failed_load(tmp_path, monkeypatch, "halfloaded")
    narrow = load_catalog_and_designs()["narrow"]
    page = login(Client(), planner_user).get(f"/designs/{narrow.pk}/").content.decode()
    # Before: "halfloaded" was offered, then refused when picked
    assert f"<option>{CLUSTER}</option>" in page and "<option>halfloaded</option>" not in page
