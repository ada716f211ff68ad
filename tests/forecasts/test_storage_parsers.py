"""Scan parsers: every line becomes an entry, a skip or a rejection; never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecasts.storage.parsers import (
    FileEntry,
    FindTsvParser,
    GpfsListParser,
    HistogramBin,
    HistogramParser,
    ParseReport,
    Rejected,
    Skipped,
    iter_histogram,
    iter_items,
)
from forecasts.storage.stats import ScanAccumulator
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"
FS_SIZES = SHARED_DATA / "fs_sizes"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def report_of(items: list) -> ParseReport:
    report = ParseReport()
    for item in items:
        report.add(item)
    return report


def test_find_sample_reads_every_line_into_an_entry_or_a_skip() -> None:
    items = list(iter_items(FindTsvParser(), lines_of(SAMPLES / "scan_find.tsv")))
    report = report_of(items)
    assert (report.read, report.entries, report.skipped, report.rejected) == (15, 14, 1, 0)
    assert items[0] == Skipped(1, "header")
    bam = next(i for i in items if isinstance(i, FileEntry) and i.path.endswith(".bam"))
    assert (bam.size_bytes, bam.owner, bam.group, bam.kind) == (1073741824, "alice", "genomics", "f")
    assert bam.mtime_epoch == 1346457600.0
    kinds = [i.kind for i in items if isinstance(i, FileEntry)]
    assert kinds.count("d") == 4 and kinds.count("l") == 1


def test_a_path_may_hold_tabs_when_it_is_the_last_column() -> None:
    items = list(iter_items(FindTsvParser(), lines_of(SAMPLES / "scan_find.tsv")))
    last = items[-1]
    assert isinstance(last, FileEntry) and last.path == "/sc/orga/projects/chembio/notes\twith a tab.txt"


def test_a_header_sets_the_column_order_and_the_delimiter() -> None:
    lines = [b"path,size,owner\n", b"/a/b/c,12,alice\n", b"/a/b/d,0,bob\n"]
    items = list(iter_items(FindTsvParser(), lines))
    assert items[0] == Skipped(1, "header")
    assert items[1] == FileEntry(size_bytes=12, path="/a/b/c", owner="alice", line=2)
    assert isinstance(items[2], FileEntry) and items[2].size_bytes == 0


def test_a_malformed_line_is_reported_with_its_number_and_the_rest_loads() -> None:
    lines = lines_of(SAMPLES / "scan_find.tsv")
    lines.insert(5, b"12x\talice\tgenomics\t1377820800\tf\t/sc/bad\n")  # becomes line 6
    acc = ScanAccumulator()
    report = acc.consume_lines(lines, FindTsvParser())
    assert (report.read, report.entries, report.skipped, report.rejected) == (16, 14, 1, 1)
    assert report.rejections == [
        Rejected(6, "size is not a whole number of bytes", "12x\talice\tgenomics\t1377820800\tf\t/sc/bad")
    ]
    assert acc.files == 9  # regular files of the sample, all loaded


def test_wrong_column_counts_negative_sizes_and_bad_mtimes_are_rejected() -> None:
    parser = FindTsvParser()
    assert isinstance(parser.parse_line(b"1\t2\t3\n", 1), Rejected)
    assert isinstance(parser.parse_line(b"-5\tu\tg\t1\tf\t/p\n", 2), Rejected)
    assert isinstance(parser.parse_line(b"5\tu\tg\tyesterday\tf\t/p\n", 3), Rejected)
    assert isinstance(parser.parse_line(b"99999999999999999\tu\tg\t1\tf\t/p\n", 4), Rejected)
    assert parser.parse_line(b"5\tu\tg\t\tf\t/p\n", 5) == FileEntry(5, "/p", "u", "g", None, "f", line=5)


def test_gpfs_list_sample_follows_the_expected_policy() -> None:
    items = list(iter_items(GpfsListParser(), lines_of(SAMPLES / "scan_gpfs_list.txt")))
    report = report_of(items)
    assert (report.read, report.entries, report.skipped, report.rejected) == (10, 9, 1, 0)
    entries = [i for i in items if isinstance(i, FileEntry)]
    assert [e.kind for e in entries] == ["d", "d", "f", "f", "f", "f", "f", "l", "f"]
    bam = entries[6]
    assert (bam.size_bytes, bam.owner, bam.group, bam.allocated_bytes) == (1073741824, "5012", "2001", 2**30)
    assert bam.mtime_epoch == 1346457600.0  # 2012-09-01 00:00:00 read as UTC
    assert entries[-1].path == "/gpfs/sc/projects/chembio/md -- final.mdp"


def test_gpfs_key_value_fields_and_missing_separator() -> None:
    parser = GpfsListParser()
    item = parser.parse_line(b"7 1 0 s=123 u=alice g=lab m=1377820800 t=FAu -- /x/y\n", 1)
    assert item == FileEntry(123, "/x/y", "alice", "lab", 1377820800.0, "f", line=1)
    assert isinstance(parser.parse_line(b"7 1 0 123 1 2 3 4 F /x/y\n", 2), Rejected)
    assert isinstance(parser.parse_line(b"7 1 0 123 -- /x\n", 3), Rejected)  # too few SHOW fields
    only_kb = GpfsListParser(show_fields=["KB_ALLOCATED", "USER_ID"]).parse_line(b"7 1 0 32 5012 -- /z\n", 4)
    assert isinstance(only_kb, FileEntry) and only_kb.size_bytes == 32768 and only_kb.allocated_bytes == 32768


def test_our_histogram_layout() -> None:
    items = list(iter_histogram(lines_of(SAMPLES / "scan_histogram.csv")))
    bins = [i for i in items if isinstance(i, HistogramBin)]
    assert len(bins) == 6 and sum(b.files for b in bins) == 54_026_071
    assert sum(b.bytes or 0 for b in bins) == 770_700_000_000_000


def test_nersc_sizebytype_bins_are_labelled_by_their_inclusive_end() -> None:
    parser = HistogramParser()
    assert isinstance(parser.parse_line(b"bin_size,num_files,num_dirs,num_symlinks,num_blks\n", 1), Skipped)
    one = parser.parse_line(b"1,73875658,0,224,0\n", 2)  # no 0 row yet: zero-length files are here
    assert isinstance(one, HistogramBin) and (one.size_min_bytes, one.size_max_bytes) == (0, 1)
    eight = parser.parse_line(b"8,10,0,5,1\n", 3)
    assert isinstance(eight, HistogramBin) and (eight.size_min_bytes, eight.size_max_bytes) == (5, 8)
    assert (eight.symlinks, eight.other) == (5, 1)
    assert isinstance(parser.parse_line(b"12,1,0,0,0\n", 4), Rejected)  # not a power of two


@requires_shared
@pytest.mark.parametrize(
    ("name", "rows", "skipped", "files"),
    [
        ("nerscsizedist_cscratch_20190115_sizebytype_hist.csv", 61, 2, 1_179_109_385),
        ("nerscsizedist_tlproject2_20181109_sizebytype_hist.csv", 60, 2, 1_016_250_500),
        ("nerscsizedist_hpss_file_size_hist_20201016.csv", 47, 1, 232_845_700),
    ],
)
def test_the_three_nersc_histograms_parse_whole(name: str, rows: int, skipped: int, files: int) -> None:
    items = list(iter_histogram(lines_of(FS_SIZES / name)))
    report = report_of(items)
    assert (report.read, report.entries, report.skipped, report.rejected) == (
        rows + skipped,
        rows,
        skipped,
        0,
    )
    assert sum(i.files for i in items if isinstance(i, HistogramBin)) == files


@given(st.lists(st.binary(max_size=120), max_size=40))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_bytes_never_crash_any_parser(lines: list[bytes]) -> None:
    for parser in (FindTsvParser(), GpfsListParser()):
        items = list(iter_items(parser, lines))
        assert len(items) == len(lines)
        acc = ScanAccumulator()
        report = acc.consume_lines(lines, type(parser)())
        assert report.read == len(lines) == report.entries + report.skipped + report.rejected
    hist = list(iter_histogram(lines))
    assert len(hist) == len(lines)


_field = st.sampled_from([b"0", b"17", b"4096", b"x1", b"", b"-3", b"1.5", b"99999999999999999", b"#7"])
_mtime = st.sampled_from([b"1377820800", b"1377820800.25", b"", b"-", b"1.2.3", b"12a", b"1377820800."])
_kind = st.sampled_from([b"f", b"d", b"l", b"p", b"", b"file", b"ff"])
_line = st.one_of(
    st.builds(
        lambda s, m, k, p: b"\t".join([s, b"u" + p[:2], b"g", m, k, b"/d" + p]),
        _field, _mtime, _kind, st.binary(max_size=12).filter(lambda b: b"\n" not in b and b"\r" not in b),
    ),
    st.binary(max_size=40).filter(lambda b: b"\n" not in b and b"\r" not in b),
)  # fmt: skip


@given(st.lists(_line, max_size=60))
@settings(max_examples=200, deadline=None)
def test_the_fast_path_agrees_with_the_line_by_line_parser(lines: list[bytes]) -> None:
    fast = ScanAccumulator()
    fast_report = fast.consume_lines(lines, FindTsvParser())
    slow = ScanAccumulator()
    items = list(iter_items(FindTsvParser(), lines))
    slow.add_entries(i for i in items if isinstance(i, FileEntry))
    slow_report = report_of(items)
    assert fast_report.to_dict() == slow_report.to_dict()
    a, b = fast.to_dict(), slow.to_dict()
    a.pop("lines")
    b.pop("lines")
    assert a == b


_gpfs_line = st.builds(
    lambda ino, size, date, clock, kb, misc, path: b"%s 1 0 %s 5012 2001 %s %s %s %s -- /g/%s"
    % (ino, size, date, clock, kb, misc, path),
    st.sampled_from([b"40961", b"x", b""]),
    _field,
    st.sampled_from([b"2013-08-31", b"2013-02-29", b"2012-02-29", b"2013-13-01", b"0000-01-01", b"13-08-31"]),
    st.sampled_from([b"02:00:00", b"23:59:59.999999", b"24:00:00", b"02:00:00.1234567", b"02:00", b"1:0:00"]),
    st.sampled_from([b"0", b"32", b"-1"]),
    st.sampled_from([b"FAu", b"D2u", b"LAu", b"A", b"F A"]),
    st.binary(max_size=12).filter(lambda b: b"\n" not in b and b"\r" not in b),
)  # fmt: skip


@given(st.lists(st.one_of(_gpfs_line, _gpfs_line, st.binary(max_size=40)), max_size=40))
@settings(max_examples=200, deadline=None)
def test_the_gpfs_fast_path_agrees_with_the_line_by_line_parser(lines: list[bytes]) -> None:
    lines = [ln for ln in lines if b"\n" not in ln and b"\r" not in ln]
    fast = ScanAccumulator()
    fast_report = fast.consume_lines(lines, GpfsListParser())
    slow = ScanAccumulator()
    items = list(iter_items(GpfsListParser(), lines))
    slow.add_entries(i for i in items if isinstance(i, FileEntry))
    assert fast_report.to_dict() == report_of(items).to_dict()
    a, b = fast.to_dict(), slow.to_dict()
    a.pop("lines")
    b.pop("lines")
    assert a == b
