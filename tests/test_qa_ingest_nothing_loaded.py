"""A run that stores nothing says why in words that fit the file: XDMoD's log of running and pending jobs,
or an empty file, read 'Nothing loaded: 2 records read, 0 rejected, 2 skipped; is this a slurm file?', which
sends an administrator looking for the wrong format of a file in the right one."""

from __future__ import annotations

from pathlib import Path

import pytest

from forecasts.accounting.parsers.records import nothing_loaded_reason
from tests.shared import SHARED_DATA, requires_shared


def test_an_empty_file_is_named_as_empty() -> None:
    assert nothing_loaded_reason("slurm", 0, 0, 0, {}) == (
        "Nothing loaded: the file holds no records (it is empty, or has only comments or a header)")


def test_records_all_skipped_are_named_with_their_reasons_not_blamed_on_the_format() -> None:
    reason = nothing_loaded_reason("slurm", 3, 0, 3, {"not ended: RUNNING": 1, "not ended: PENDING": 2})
    assert reason == ("Nothing loaded: all 3 records were skipped (not ended: PENDING: 2, not ended: RUNNING: 1); "
                      "none is a finished job")
    assert "is this a" not in reason


def test_rejected_records_still_ask_whether_the_format_is_right() -> None:
    assert nothing_loaded_reason("lsf", 9, 9, 0, {}).endswith("; is this a lsf file?")


@requires_shared
@pytest.mark.django_db(transaction=True)
def test_a_log_of_jobs_not_yet_ended_says_so(tmp_path: Path) -> None:
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute

    run = ingest_run_create(cluster_name="c", fmt="slurm",
                            paths=[SHARED_DATA / "slurm" / "xdmod_input_non-ended-job-state.log"])
    run = ingest_run_execute(run.pk)
    assert run.status == "empty"
    assert run.error.startswith("Nothing loaded: all 2 records were skipped (not ended: ")
