"""Binary noise loaded as LSF was counted as skipped 'LSF T record's: a line that does not start with a
quoted event type is no lsb.acct record, and is rejected with its line."""

from __future__ import annotations

import pytest

from forecasts.accounting.parsers import lsf
from forecasts.accounting.parsers.records import Rejected, Skipped


@pytest.mark.parametrize("line", [b"T\x9a\x10 noise", b"W garbage here", b"JOB_FINISH 9.11 1 2 3",
                                  b'"JOB_FIN', b"\xff\xfe\x00Z"])
def test_lines_that_do_not_start_with_a_quoted_lsf_event_type_are_rejected(line: bytes) -> None:
    (item,) = lsf.parse([line], cluster="c")
    assert isinstance(item, Rejected)
    assert item.reason.startswith("not an lsb.acct record")


def test_other_quoted_lsf_events_are_still_skipped_by_name() -> None:
    (item,) = lsf.parse([b'"JOB_RESIZE" "9.11" 1389683139 404717'], cluster="c")
    assert isinstance(item, Skipped) and item.reason == "LSF JOB_RESIZE record, only JOB_FINISH records are jobs"


def test_random_bytes_loaded_as_lsf_are_all_rejected() -> None:
    noise = bytes((i * 7919 + 13) % 251 for i in range(20000))
    items = list(lsf.parse(noise.splitlines(keepends=True), cluster="c"))
    assert items and all(isinstance(i, Rejected) for i in items)
