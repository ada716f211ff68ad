"""In a real browser: upload a log, watch the progress bar, land on the run; the usage pages it feeds."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.forecasts.usage_data import load_usage
from tests.helpers import screenshot, watch_progress

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

N_JOBS = 15_000  # 15 batches of 1,000: a bar that moves, in a third of the time of 40,000 on a slow VM


@pytest.fixture
def big_log(tmp_path: Path) -> Path:
    """Two years of a synthetic genomics-heavy site: large enough for the bar to move visibly."""
    from forecasts.accounting.parsers.synth import slurm_lines

    path = tmp_path / "minerva-2023-2024.sacct"
    with path.open("w") as out:
        out.writelines(slurm_lines(N_JOBS, start=datetime(2023, 1, 1, tzinfo=UTC),
                                   end=datetime(2025, 1, 1, tzinfo=UTC), growth_per_year=0.4))
    return path


def test_an_upload_shows_its_progress_and_lands_on_the_summary_then_on_the_usage_chart(
        page_as: Any, planner_user: Any, departments: dict[str, Any], live_worker: Any, live_server: Any,
        big_log: Path, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forecasts.accounting import load as ingest_service
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import IdentityMapping, IngestRun

    settings.UPLOAD_DIR = tmp_path / "uploads"
    monkeypatch.setattr(ingest_service, "BATCH_RECORDS", 1_000)  # many small commits: a bar that moves
    # ... and at least 0.15 s each, so the page (which polls every 0.7 s) sees the bar part-way on any machine:
    # on a fast one the 15 batches loaded within one poll and the bar went from 0 to the summary page
    load_batch = ingest_service._load_with_retry

    def slow_load(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.15)
        return load_batch(*args, **kwargs)

    monkeypatch.setattr(ingest_service, "_load_with_retry", slow_load)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/usage/ingest/new/")
    assert page.get_by_text("Drag an accounting file here").is_visible()
    page.select_option("#id_cluster", "__new__")
    page.fill("input[name=new_cluster]", "minerva")
    page.set_input_files("#id_file", str(big_log))
    assert "minerva-2023-2024.sacct" in page.locator("#chosen").inner_text()
    screenshot(page, "usage-upload")
    page.click("#upload-submit")

    page.wait_for_url("**/jobs/*/", timeout=60_000)
    widths, seen_rate = watch_progress(page, until_path="/usage/ingest/", rate_unit="records",
                                       screenshot_name="usage-ingest-progress")
    page.wait_for_url("**/usage/ingest/*/", timeout=120_000)
    assert any(0 < w < 100 for w in widths), f"the bar never showed partial progress: {widths[:40]}"
    assert seen_rate, "the progress line never showed a records/s rate"

    run = IngestRun.objects.get()
    assert run.status == "completed" and run.records_read == N_JOBS
    assert page.locator("#equation").is_visible() and "adds up" in page.locator("#equation").inner_text()
    assert page.locator("#run-read").inner_text() == f"{N_JOBS:,}"
    screenshot(page, "usage-ingest-run")

    page.goto(f"{live_server.url}/usage/ingest/")
    assert page.get_by_text("minerva-2023-2024.sacct").is_visible()
    screenshot(page, "usage-ingest-runs")

    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    usage_reattribute()
    page.goto(f"{live_server.url}/usage/")
    page.wait_for_selector("#usage-chart[data-drawn=yes] .main-svg", timeout=30_000)
    assert page.locator("#kpi-jobs").inner_text() == f"{run.jobs_ingested:,}"
    assert page.get_by_text("Download CSV").is_visible()
    screenshot(page, "usage-page")


def test_admins_map_unassigned_identities_in_the_browser(page_as: Any, admin_user: Any, live_server: Any,
                                                          departments: dict[str, Any], tmp_path: Path) -> None:
    load_usage(tmp_path, departments)
    page = page_as(admin_user)
    page.goto(f"{live_server.url}/usage/mappings/")
    assert page.get_by_text("Mappings (2)").is_visible()
    screenshot(page, "usage-mappings")
    page.goto(f"{live_server.url}/usage/unassigned/")
    row = page.locator("table.unassigned tbody tr", has_text="nobody")
    assert row.is_visible()
    screenshot(page, "usage-unassigned")
    row.locator("select[name=department]").select_option(label="Genetics and Genomic Sciences")
    row.locator("button", has_text="Map").click()
    page.wait_for_load_state()
    assert page.get_by_text("Mapped account orphan to Genetics and Genomic Sciences").is_visible()
    assert page.get_by_text("Nothing unassigned").is_visible()


def test_a_department_viewer_sees_only_their_department_on_the_usage_page(
        page_as: Any, genomics_viewer: Any, live_server: Any, departments: dict[str, Any], tmp_path: Path) -> None:
    load_usage(tmp_path, departments)
    page = page_as(genomics_viewer)
    page.goto(f"{live_server.url}/usage/")
    page.wait_for_selector("#usage-chart[data-drawn=yes] .main-svg", timeout=30_000)
    assert page.locator("#kpi-core-hours").inner_text() == "28"
    assert "Structural and Chemical Biology" not in page.content()
    screenshot(page, "usage-page-viewer")
