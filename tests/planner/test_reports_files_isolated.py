"""The test suite's grant reports never write into the data folder a `make run` demo uses."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def test_report_files_go_to_this_test_process_s_own_folder_not_the_data_folder() -> None:
    reports = Path(settings.REPORTS_DIR)
    assert reports.name.startswith("planner-test-reports-") and reports.is_dir()
    assert not reports.is_relative_to(Path(settings.DATA_DIR))
