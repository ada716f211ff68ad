"""Scan statistics: hand-computed figures, the Minerva tables, NERSC histograms, merging."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecasts.storage.parsers import FindTsvParser, GpfsListParser, hash_strings
from forecasts.storage.stats import (
    BIN_LOWER_BYTES,
    BIN_UPPER_BYTES,
    ScanAccumulator,
    format_size,
    size_bin_index,
)
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"
FS_SIZES = SHARED_DATA / "fs_sizes"
SCAN_DATE = 1377993600.0  # 2013-09-01 UTC

# Table 2 of the Minerva paper: the largest size of each decile
TABLE2_MAX_BYTES = (3, 6, 10, 39, 340, 2048, 3789, 17408, 86016, 5 * 2**40)
TABLE2_LABELS = ("3 B", "6 B", "10 B", "39 B", "340 B", "2 KB", "3.7 KB", "17 KB", "84 KB", "5 TB")


def table2_scan(files_per_decile: int) -> ScanAccumulator:
    """A synthetic scan whose deciles are Table 2's: each decile's files spread log-uniformly
    over (previous max, max], with the last file of each decile exactly at its max."""
    acc = ScanAccumulator()
    low = -1
    for high in TABLE2_MAX_BYTES:
        lo = max(low + 1, 1) if low >= 0 else 0
        sizes = np.unique(np.geomspace(max(lo, 1), high, num=400).astype(np.int64))
        sizes = sizes[(sizes >= lo) & (sizes <= high)]
        if lo == 0:
            sizes = np.concatenate([[0], sizes])
        counts = np.full(len(sizes), files_per_decile // len(sizes), dtype=np.int64)
        counts[-1] += files_per_decile - counts.sum()
        acc.add_size_counts(sizes, counts)
        low = high
    return acc


def find_sample() -> ScanAccumulator:
    acc = ScanAccumulator(scan_time_epoch=SCAN_DATE)
    with open(SAMPLES / "scan_find.tsv", "rb") as f:
        acc.consume_file(f, FindTsvParser())
    return acc


def test_the_find_sample_by_hand() -> None:
    stats = find_sample().to_dict()
    # regular files: 0, 29, 340, 3789, 17408, 86016, 2**30, 2048, 6
    assert stats["files"] == 9
    assert stats["bytes"] == 0 + 29 + 340 + 3789 + 17408 + 86016 + 2**30 + 2048 + 6
    assert stats["zero_length_files"] == 1
    assert stats["median_size_bytes"] == 2048  # 5th of 9 sorted: 0 6 29 340 [2048] 3789 ...
    assert (stats["min_size_bytes"], stats["max_size_bytes"]) == (0, 2**30)
    assert (stats["symlinks"], stats["directory_entries"]) == (1, 4)
    assert stats["owners"] == {
        "alice": {"files": 7, "bytes": 0 + 29 + 340 + 3789 + 17408 + 86016 + 2**30},
        "bob": {"files": 2, "bytes": 2054},
    }
    assert stats["groups"]["chembio"] == {"files": 2, "bytes": 2054}
    small = {row["under_bytes"]: (row["files"], row["bytes"]) for row in stats["small_files"]}
    assert small[1024] == (4, 375) and small[4096] == (6, 375 + 3789 + 2048)
    dirs = stats["directories"]
    assert dirs["count"] == 4 and dirs["with_files"] == 2 and dirs["method"].startswith("exact")
    assert dirs["files_per_directory"] == [
        {"min_files": 0, "max_files": 0, "directories": 2},
        {"min_files": 2, "max_files": 3, "directories": 1},
        {"min_files": 4, "max_files": 7, "directories": 1},
    ]
    ages = {b["label"]: (b["files"], b["bytes"]) for b in stats["age"]["buckets"]}
    assert ages == {
        "<30d": (4, 0 + 29 + 340 + 3789),
        "30-90d": (2, 17408 + 86016),
        "90d-1y": (0, 0),
        "1-3y": (3, 2**30 + 2048 + 6),
        ">3y": (0, 0),
    }
    json.dumps(stats)  # serialisable


def test_median_is_the_nearest_rank() -> None:
    acc = ScanAccumulator()
    acc.add_size_counts([0, 6, 29, 340, 2048, 3789], [1, 1, 1, 1, 1, 1])
    assert acc.quantile_size_bytes(0.5) == 29
    assert acc.quantile_size_bytes(1.0) == 3789


def test_gpfs_sample_gives_the_same_file_statistics_as_find() -> None:
    acc = ScanAccumulator(scan_time_epoch=SCAN_DATE)
    with open(SAMPLES / "scan_gpfs_list.txt", "rb") as f:
        report = acc.consume_file(f, GpfsListParser())
    assert report.rejected == 0
    stats = acc.to_dict()
    assert stats["files"] == 6 and stats["symlinks"] == 1 and stats["directory_entries"] == 2
    assert stats["allocated_bytes"] == (32 + 1048576 + 32) * 1024
    assert stats["owners"]["6020"] == {"files": 1, "bytes": 2048}


def test_table2_deciles_are_reproduced() -> None:
    acc = table2_scan(files_per_decile=18_850_000)  # 188.5 M files, Table 2's total
    rows = acc.deciles()
    assert [r["max_size"] for r in rows] == list(TABLE2_LABELS)
    for row, true in zip(rows, TABLE2_MAX_BYTES, strict=True):
        assert true <= row["max_size_bytes"] <= true * (1 + 1 / 128)  # exact below 4 KiB
        if true < 4096:
            assert row["files"] == 18_850_000
        else:  # a decile band ends at a bin edge: it may take the next band's files in its bin
            assert row["files"] == pytest.approx(18_850_000, rel=0.01)
    assert sum(r["files"] for r in rows) == 188_500_000
    assert acc.files == 188_500_000
    assert acc.to_dict()["median_size_bytes"] == 340


def test_table1_from_the_histogram_sample() -> None:
    acc = ScanAccumulator()
    with open(SAMPLES / "scan_histogram.csv", "rb") as f:
        report = acc.consume_histogram(f)
    assert report.rejected == 0
    stats = acc.to_dict()
    assert stats["files"] == 54_026_071
    assert stats["zero_length_files"] == 1_731_148
    assert round(stats["tb"], 1) == 770.7
    assert stats["median_size_bytes"] in (28, 29)  # interpolated inside the 1-29 B bin
    files_under_10k, _ = acc.under(10 * 1024)
    assert files_under_10k / stats["files"] == pytest.approx(0.80, abs=0.001)
    assert stats["max_size_bytes"] == 1_300_000_000_000
    assert stats["mean_size_bytes"] / 1e6 == pytest.approx(14.3, abs=0.1)  # paper prints 15
    assert any("histogram" in note for note in stats["notes"])


@requires_shared
def test_nersc_hpss_histogram_keeps_its_exact_totals() -> None:
    acc = ScanAccumulator()
    with open(FS_SIZES / "nerscsizedist_hpss_file_size_hist_20201016.csv", "rb") as f:
        acc.consume_histogram(f)
    assert acc.files == 232_845_700
    assert acc.total_bytes == pytest.approx(198_953_018_259_824_938, rel=1e-9)
    files_under_1m, _ = acc.under(2**20)
    assert files_under_1m == 119_339_799  # the cumulative count at the 1 MiB bin start, exact at bin edges
    assert 512 * 1024 <= acc.quantile_size_bytes(0.5) <= 2**20  # median inside the [512 KiB, 1 MiB) bin


@requires_shared
@pytest.mark.parametrize(
    ("name", "files", "dirs", "zero"),
    [
        ("nerscsizedist_cscratch_20190115_sizebytype_hist.csv", 1_179_109_385, 108_701_768, 21_412_774),
        ("nerscsizedist_tlproject2_20181109_sizebytype_hist.csv", 1_016_250_500, 59_428_113, 73_875_658),
    ],
)
def test_nersc_file_system_histograms_load(name: str, files: int, dirs: int, zero: int) -> None:
    acc = ScanAccumulator()
    with open(FS_SIZES / name, "rb") as f:
        acc.consume_histogram(f)
    stats = acc.to_dict()
    assert stats["files"] == files and stats["directory_entries"] == dirs
    assert stats["zero_length_files"] == zero
    assert stats["directories"]["files_per_directory"] is None  # unknown from a histogram
    assert sum(d["files"] for d in stats["deciles"]) == files
    assert any("no byte sums" in note for note in stats["notes"])


@given(st.integers(min_value=0, max_value=2**53))
def test_every_size_falls_inside_its_bin(size: int) -> None:
    k = int(size_bin_index(np.array([size], dtype=np.int64))[0])
    assert BIN_LOWER_BYTES[k] <= size <= BIN_UPPER_BYTES[k]
    assert BIN_UPPER_BYTES[k] - BIN_LOWER_BYTES[k] <= max(size, 1) / 128


def test_format_size_matches_the_papers_labels() -> None:
    assert [format_size(s) for s in (3, 340, 2048, 3789, 17535, 86527, 5 * 2**40)] == [
        "3 B", "340 B", "2 KB", "3.7 KB", "17 KB", "84 KB", "5 TB",
    ]  # fmt: skip


_scan_line = st.builds(
    lambda size, user, d, f, kind, age: (
        b"%d\tu%d\tg%d\t%d.5\t%s\t/p/d%d/f%d" % (size, user, user % 2, int(SCAN_DATE) - age, kind, d, f)
    ),
    st.one_of(st.integers(0, 5000), st.integers(0, 2**45)),
    st.integers(0, 4),
    st.integers(0, 30),
    st.integers(0, 5),
    st.sampled_from([b"f", b"f", b"f", b"d", b"l"]),
    st.integers(0, 2000 * 86400),
)


def _comparable(acc: ScanAccumulator) -> dict[str, object]:
    d = acc.to_dict()
    d.pop("lines")
    return d


@given(st.lists(st.one_of(_scan_line, st.just(b"garbage")), max_size=80), st.data())
@settings(max_examples=100, deadline=None)
def test_split_and_merge_equals_the_whole(lines: list[bytes], data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(lines)))
    whole = ScanAccumulator(scan_time_epoch=SCAN_DATE)
    whole.consume_lines(lines, FindTsvParser())
    first = ScanAccumulator(scan_time_epoch=SCAN_DATE)
    first.consume_lines(lines[:cut], FindTsvParser())
    second = ScanAccumulator(scan_time_epoch=SCAN_DATE)
    second.consume_lines(lines[cut:], FindTsvParser())
    merged = first + second
    assert _comparable(merged) == _comparable(whole)
    assert merged.report.read == whole.report.read == len(lines)
    assert merged.report.rejected == whole.report.rejected


def test_directory_sample_is_exact_under_capacity_and_close_above() -> None:
    rng = np.random.default_rng(7)
    files_per_dir = rng.integers(1, 6, size=20_000)
    dirs = [b"/scratch/job%06d" % i for i in range(len(files_per_dir))]
    keys = hash_strings(dirs)
    exact = ScanAccumulator(dir_sample_capacity=1 << 20)
    exact.dirs.add(keys, files_per_dir)
    d = exact.to_dict()["directories"]
    assert d["count"] == 20_000 and d["relative_standard_error"] == 0
    assert d["with_one_file"] == int((files_per_dir == 1).sum())
    sampled = ScanAccumulator(dir_sample_capacity=2000)
    half = len(keys) // 2
    sampled.dirs.add(keys[:half], files_per_dir[:half])
    other = ScanAccumulator(dir_sample_capacity=2000)
    other.dirs.add(keys[half:], files_per_dir[half:])
    sampled.merge(other)
    est = sampled.to_dict()["directories"]
    assert est["method"].startswith("estimated") and est["sample_level"] >= 3
    assert est["count"] == pytest.approx(20_000, rel=5 * est["relative_standard_error"])
    assert est["with_one_file"] == pytest.approx((files_per_dir == 1).sum(), rel=0.15)
