"""Storage scans fed good lines mixed with the nastiest bad ones (QA, session 27): a byte-order mark, CRLF, a NUL
byte, 1e309 / NaN / -0, numbers past 64 bits, a line cut mid-field with no line break. Every good line is stored,
every bad one rejected with its line and reason, and read = stored + skipped + rejected.

Found and fixed: a byte-order mark made the header line of a find/GUFI scan a rejected record (and hid a
histogram's header, so every bin was rejected as "no histogram header seen yet"); a histogram bin of
99999999999999999999999 files failed the whole scan with Python's "OverflowError: Python int too large to convert
to C long" (a traceback from the command, a failed job on the page)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from tests.helpers import login, wait_for_job

BOM = "\ufeff"
TSV = [
    "4096\talice\tgen\t1375315200.0\td\t/sc/p",                    # 2 stored (a directory)
    "100\talice\tgen\t1375315200.0\tf\t/sc/p/a\r",                 # 3 stored (CRLF)
    "100\talice\tgen\t1375315200.0\tf\t/sc/p/n\x00ul",             # 4 stored
    "1e309\talice\tgen\t1375315200.0\tf\t/sc/p/inf",               # 5
    "NaN\talice\tgen\t1375315200.0\tf\t/sc/p/nan",                 # 6
    "-0\talice\tgen\t1375315200.0\tf\t/sc/p/negzero",              # 7
    "100\talice\tgen\tNaN\tf\t/sc/p/mtimenan",                     # 8
    "99999999999999999999999\talice\tgen\t1375315200.0\tf\t/sc/p/huge",  # 9
    "200\talice\tgen\t1375315200.0\tf\t/sc/p/good2",               # 10 stored
    "100\talice\tgen\t13753",                                      # 11 cut
]
HISTOGRAM = ["0,0,10,0", "1,10,5,20\r", "11,100,1e309,", "101,1000,NaN,", "1001,10000,-0,",
             "100001,1000000,99999999999999999999999,", "1000001,10000000,2,1e309", "10000001,100000000,3,",
             "100000001,1"]


def _scan(tmp_path: Path, fmt: str, text: str, name: str) -> dict[str, Any]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    out = io.StringIO()
    call_command("ingest_storage_scan", "--filesystem", "nasty", "--format", fmt, str(path), "--date", "2024-01-01",
                 stdout=out, stderr=io.StringIO())
    summary = json.loads(out.getvalue().splitlines()[-1])
    assert summary["lines_read"] == summary["lines_stored"] + summary["lines_skipped"] + summary["lines_rejected"]
    return summary


@pytest.mark.django_db
def test_a_find_scan(tmp_path: Path) -> None:
    summary = _scan(tmp_path, "tsv", BOM + "# size\towner\tgroup\tmtime\ttype\tpath\n" + "\n".join(TSV), "scan.tsv")
    assert (summary["lines_read"], summary["lines_stored"], summary["lines_skipped"]) == (11, 4, 1)
    assert {r["line"]: r["reason"] for r in summary["rejections"]} == {
        5: "size is not a whole number of bytes", 6: "size is not a whole number of bytes",
        7: "size is not a whole number of bytes", 8: "mtime is not epoch seconds",
        9: "size is not a whole number of bytes", 11: "expected 6 columns, found 4"}
    assert summary["files"] == 3 and summary["bytes"] == 400 and summary["directories"] == 1


@pytest.mark.django_db
def test_a_histogram(tmp_path: Path) -> None:
    text = BOM + "size_min_bytes,size_max_bytes,files,bytes\n" + "\n".join(HISTOGRAM)
    summary = _scan(tmp_path, "histogram", text, "hist.csv")
    assert (summary["lines_read"], summary["lines_stored"], summary["lines_skipped"]) == (10, 3, 1)
    assert {r["line"]: r["reason"] for r in summary["rejections"]} == {
        4: "files is not a whole number: '1e309'", 5: "files is not a whole number: 'NaN'",
        6: "files is not a whole number: '-0'",
        7: "files 99999999999999999999999 is out of range (at most 1,000,000,000,000,000)",
        8: "bytes is not a whole number: '1e309'", 10: "expected 4 columns, found 2"}
    assert summary["files"] == 10 + 5 + 3


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_upload_page_loads_the_good_bins_of_a_histogram_with_a_bin_too_large(
        client: Any, planner_user: Any, live_worker: Any, settings: Any, tmp_path: Path) -> None:
    from forecasts.models import StorageSnapshot

    settings.UPLOAD_DIR = tmp_path / "uploads"
    login(client, planner_user)
    data = (BOM + "size_min_bytes,size_max_bytes,files,bytes\r\n" + "\r\n".join(HISTOGRAM)).encode()
    form = {"format": "histogram", "filesystem": "__new__", "new_filesystem": "nasty", "taken_on": "2024-01-01"}
    response = client.post(reverse("storage-upload"), {**form, "file": SimpleUploadedFile("hist.csv", data)})
    assert response.status_code == 302
    snap = StorageSnapshot.objects.get()
    job = wait_for_job(snap.background_job_id)
    assert job.status == "succeeded", job.message
    assert job.message == "10 lines read: 3 stored, 1 skipped, 6 rejected"
    snap.refresh_from_db()
    assert snap.files == 18
    assert sorted(snap.rejections.values_list("line", flat=True)) == [4, 5, 6, 7, 8, 10]
