"""Storage totals of the real NERSC file-size histograms, recomputed from the raw CSV files.

``*_sizebytype_hist.csv`` counts files per power-of-two bin (``bin_size`` b holds sizes in (b/2, b]) and has
no byte sums, so a file system's total can only be bounded: cscratch's lies between 16,977 and 33,955 TB.
The page showed "24,421.35 TB (decimal)" as if measured; the scan's own note ("the histogram has no byte
sums") never reached it.  The HPSS histogram carries exact byte sums, and its total is exact.

The independent reading uses only the CSV headers' own definitions and shares no code with the product.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

SIZES = SHARED_DATA / "fs_sizes"
CSCRATCH = SIZES / "nerscsizedist_cscratch_20190115_sizebytype_hist.csv"
HPSS = SIZES / "nerscsizedist_hpss_file_size_hist_20201016.csv"

pytestmark = [pytest.mark.django_db, requires_shared]


def _rows(path: Any) -> list[dict[str, str]]:
    with path.open() as text:
        return list(csv.DictReader(text))


def _scan(path: Any, name: str, day: str) -> None:
    from django.core.management import call_command

    call_command("ingest_storage_scan", "--filesystem", name, "--format", "histogram", str(path), "--date", day,
                 stdout=io.StringIO(), stderr=io.StringIO())


def test_a_histogram_without_byte_sums_gives_the_exact_file_count_and_says_its_bytes_are_estimated(
        client: Any, planner_user: Any) -> None:
    from forecasts.storage.models import StorageSnapshot

    rows = _rows(CSCRATCH)
    files = sum(int(r["num_files"]) for r in rows)
    lowest = sum(int(r["num_files"]) * (int(r["bin_size"]) // 2 + 1) for r in rows if int(r["bin_size"]))
    highest = sum(int(r["num_files"]) * int(r["bin_size"]) for r in rows)
    _scan(CSCRATCH, "cscratch", "2019-01-15")
    snapshot = StorageSnapshot.objects.get(filesystem__name="cscratch")
    assert snapshot.files == files == 1_179_109_385
    assert snapshot.lines_read == snapshot.lines_stored + snapshot.lines_skipped + snapshot.lines_rejected
    assert lowest <= snapshot.bytes_total <= highest

    login(client, planner_user)
    page = client.get("/usage/storage/", {"filesystem": "cscratch"}).content.decode()
    assert "TB (decimal), estimated: the histogram has no byte sums" in page


def test_a_histogram_with_byte_sums_gives_the_exact_total_and_no_estimate_label(
        client: Any, planner_user: Any) -> None:
    from forecasts.storage.models import StorageSnapshot

    rows = _rows(HPSS)
    _scan(HPSS, "hpss", "2020-10-16")
    snapshot = StorageSnapshot.objects.get(filesystem__name="hpss")
    assert snapshot.files == sum(int(r["object count"]) for r in rows) == 232_845_700
    # 1.99e17 bytes: summed through float64 on the way, so exact to its 17th digit (25 bytes here)
    assert snapshot.bytes_total == pytest.approx(sum(int(r["object size sum (bytes)"]) for r in rows), rel=1e-15)
    login(client, planner_user)
    page = client.get("/usage/storage/", {"filesystem": "hpss"}).content.decode()
    assert "estimated: the histogram has no byte sums" not in page
