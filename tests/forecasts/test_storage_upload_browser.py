"""In a real browser: upload a gzipped scan, watch the progress bar move, land on the storage page."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import screenshot, watch_progress

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

N_FILES = 400_000  # ~410,000 lines, ~6 MB gzipped: a load of a couple of seconds, long enough for the bar


@pytest.fixture
def big_scan(tmp_path: Path) -> Path:
    """A synthetic scan in the shape of the Minerva paper's Table 2, with one malformed line."""
    from forecasts.storage.synth import scan_lines

    path = tmp_path / "projects-2013-09-01.tsv.gz"
    with gzip.open(path, "wt", compresslevel=1) as out:
        lines = scan_lines(N_FILES, owners=[("alice", "ggs"), ("bob", "scb"), ("carol", "ggs")])
        for i, line in enumerate(lines, start=1):
            out.write("oops\tthis line is broken\n" if i == 1000 else line)
    return path


def test_an_uploaded_scan_shows_its_progress_and_lands_on_the_storage_page(
        page_as: Any, planner_user: Any, live_worker: Any, live_server: Any, big_scan: Path, settings: Any,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forecasts.models import StorageSnapshot

    settings.UPLOAD_DIR = tmp_path / "uploads"
    # On a fast machine the whole scan loads between two polls of the page; report progress
    # often and pause a little after each report, as a slow file system would, so the bar is seen.
    import time

    from forecasts.storage import services as storage_service
    from forecasts.storage import tasks as tasks_storage

    monkeypatch.setattr(storage_service, "LINES_PROGRESS_EVERY_S", 0.05)
    report = tasks_storage.job_progress

    def slow_report(*args: Any, **kwargs: Any) -> None:
        report(*args, **kwargs)
        time.sleep(0.15)

    monkeypatch.setattr(tasks_storage, "job_progress", slow_report)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/usage/storage/")
    page.click("#upload-scan")
    page.wait_for_url("**/usage/storage/upload/")
    assert page.get_by_text("Drag a scan file here").is_visible()
    page.select_option("#id_filesystem", "__new__")
    page.fill("input[name=new_filesystem]", "gpfs-projects")
    page.select_option("#id_format", "tsv")
    page.fill("#id_taken_on", "2013-09-01")
    page.set_input_files("#id_file", str(big_scan))
    assert "projects-2013-09-01.tsv.gz" in page.locator("#chosen").inner_text()
    screenshot(page, "storage-upload")
    page.click("#upload-submit")

    page.wait_for_url("**/jobs/*/", timeout=60_000)
    widths, seen_rate = watch_progress(page, until_path="/usage/storage/", rate_unit="lines",
                                       screenshot_name="storage-upload-progress")
    page.wait_for_url("**/usage/storage/?*", timeout=60_000)
    assert any(0 < w < 100 for w in widths), f"the bar never showed partial progress: {widths[:40]}"
    assert seen_rate, "the progress line never showed a lines/s rate"

    snap = StorageSnapshot.objects.get()
    assert snap.status == "completed" and snap.lines_rejected == 1
    stored = snap.lines_read - snap.lines_skipped - snap.lines_rejected
    assert stored == snap.files + snap.stats["directory_entries"] + snap.stats["symlinks"] + snap.stats["other_entries"]
    counts = page.locator("#loaded-counts").inner_text()
    assert counts == (f"{snap.lines_read:,} lines read: {stored:,} stored, {snap.lines_skipped:,} skipped, "
                      f"1 rejected")
    assert page.locator("#rejections-link").is_visible() and page.get_by_text("line 1000:").is_visible()
    assert page.locator("#kpi-files").inner_text() == f"{snap.files:,}"
    page.wait_for_selector("[data-figure] .main-svg", timeout=30_000)
    screenshot(page, "storage-after-upload")
