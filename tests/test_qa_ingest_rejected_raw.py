"""A rejected record keeps a bounded part of its text, whatever the format: a 30 MB line of noise loaded as
PBS, LSF or SGE was stored whole in the rejections (Slurm and SWF already kept 2,000 characters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forecasts.accounting.parsers.copyrows import RAW_KEPT_CHARS, raw_kept, rejection_line
from forecasts.accounting.parsers.producer import FileSpec, batches

HUGE = 3 * 1024 * 1024


@pytest.mark.parametrize("fmt", ["slurm", "lsf", "pbs", "sge", "uge", "swf"])
def test_a_huge_unreadable_line_is_rejected_with_a_bounded_raw_text(fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "one-line.log"
    path.write_bytes(b"x" * HUGE + b"\n")
    (batch,) = list(batches(fmt, "c", "UTC", 1, [FileSpec(7, 0, str(path))], 1000))
    assert (batch.read, batch.rejected, batch.jobs) == (1, 1, 0)
    assert len(batch.rejections) < RAW_KEPT_CHARS + 500
    assert f"{HUGE - RAW_KEPT_CHARS:,} more characters not kept" in batch.rejections


def test_a_short_raw_text_is_kept_whole_and_escaped_for_copy() -> None:
    assert raw_kept("a|b|c") == "a|b|c"
    assert rejection_line(1, 2, 3, "bad", "a\tb") == "1\t2\t3\tbad\ta\\tb\n"
