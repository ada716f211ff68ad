"""A NERSC size histogram uploaded as a find/GUFI scan was accepted: five of its lines ('0,3339143,0,0,0,...')
read as files of an 'other' type because any single character passed as a file type, so the scan completed
with 0 files and 0 bytes (replacing a good scan of the same file system and date).  Only find's %y letters
are file types now, and such a file is refused as nothing loaded."""

from __future__ import annotations

import pytest

from forecasts.storage.scan.find import FindTsvParser
from forecasts.storage.scan.records import FileEntry, Rejected
from forecasts.storage.services import scan_head_problem
from tests.shared import SHARED_DATA, requires_shared

HPSS = SHARED_DATA / "fs_sizes" / "nerscsizedist_hpss_file_size_hist_20201016.csv"


@requires_shared
def test_a_size_histogram_uploaded_as_a_find_scan_is_refused() -> None:
    problem = scan_head_problem(HPSS, "tsv")
    assert problem is not None and problem.startswith(f"Nothing loaded from {HPSS.name}: ")
    assert " 0 stored" in problem and problem.endswith("is this a tsv file?")


@pytest.mark.parametrize("kind", [b"0", b"7", b"x"])
def test_a_type_that_is_no_find_letter_is_rejected_on_both_paths(kind: bytes) -> None:
    line = b"123\tu\tg\t1600000000\t" + kind + b"\t/x/y"
    assert isinstance(FindTsvParser().parse_line(line, 1), Rejected)
    fast = FindTsvParser()
    chunks = fast.parse_block(b"5\tu\tg\t1600000000\tf\t/x/a\n" + (line + b"\n") * 3, 1)
    assert sum(c.report.rejected for c in chunks) == 3
    assert sum(len(c) for c in chunks) == 1


@pytest.mark.parametrize("kind", [b"f", b"d", b"l", b"p", b"s", b"b", b"c", b"D"])
def test_every_find_type_letter_is_still_read(kind: bytes) -> None:
    item = FindTsvParser().parse_line(b"123\tu\tg\t1600000000\t" + kind + b"\t/x/y", 1)
    assert isinstance(item, FileEntry)
