"""Storage scans through the real command: rejections with line numbers, Table 2, NERSC histograms, viewers."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from forecasts.models import IdentityMapping, StorageRejection, StorageSnapshot, StorageUsage
from forecasts.storage.synth import TABLE2_DECILE_MAX_BYTES, scan_lines
from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

pytestmark = pytest.mark.django_db


def _ingest(capsys: Any, *args: str) -> dict[str, Any]:
    call_command("ingest_storage_scan", *args)
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_malformed_line_is_reported_with_its_number_and_the_rest_loads(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "scan.tsv"
    path.write_text("100\tgina\tggs\t1700000000\tf\t/a/x\n"
                    "200\tchris\tscb\t1700000000\tf\t/a/y\n"
                    "lots\tgina\tggs\t1700000000\tf\t/a/z\n"
                    "300\tgina\tggs\t1700000000\tf\t/a/w\n")
    out = _ingest(capsys, "--filesystem", "proj", "--format", "tsv", "--date", "2024-03-01", str(path))
    assert out["files"] == 3 and out["bytes"] == 600
    assert out["lines_read"] == 4 and out["lines_rejected"] == 1
    assert [r["line"] for r in out["rejections"]] == [3]
    assert StorageRejection.objects.get().line == 3


@pytest.mark.parametrize("fmt", ["tsv", "gpfs"])
def test_nul_bytes_and_broken_utf8_are_stored_or_rejected_never_fail_the_load(fmt: str, tmp_path: Path,
                                                                             capsys: Any) -> None:
    """PostgreSQL text cannot hold NUL (and UTF-8 cannot hold lone surrogates): a damaged scan still loads,
    its damaged lines rejected with their raw text shown escaped, its good lines stored."""
    # one good line each: a scan with none at all is refused ("Nothing loaded from ...")
    good = (b"100\tgina\tggs\t1700000000\tf\t/a/x\n" if fmt == "tsv" else
            b"40961 1 0 4096 5012 2001 2013-08-30 17:40:11.123456 4 D2u -- /gpfs/sc/projects/genomics\n")
    path = tmp_path / "damaged.scan"
    path.write_bytes(good + b"12\x00\tgi\x00na\tggs\t1700000000\tf\t/a/\x00y\n"
                     + b"7\t\xff\xfeowner\tgr\xc3\x28p\t1700000000\tf\t/a/\xed\xa0\x80z\n"
                     + bytes(range(256)) + b"\n" + b"\x00" * 40 + b"\n")
    out = _ingest(capsys, "--filesystem", "proj", "--format", fmt, "--date", "2024-03-01", str(path))
    snap = StorageSnapshot.objects.get(pk=out["snapshot"])
    assert snap.status == StorageSnapshot.Status.COMPLETED
    assert out["lines_read"] == out["lines_stored"] + out["lines_skipped"] + out["lines_rejected"]
    assert out["lines_rejected"] >= 2
    for r in StorageRejection.objects.filter(snapshot=snap):
        assert "\x00" not in r.raw and "\x00" not in r.reason
    if fmt == "tsv":
        assert out["files"] >= 1 and out["bytes"] >= 100


def test_table2_deciles_from_a_synthetic_scan(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "table2.tsv"
    with path.open("w") as f:
        f.writelines(scan_lines(100_000, owners=[("gina", "ggs")], seed=1))
    out = _ingest(capsys, "--filesystem", "minerva-gpfs", "--format", "tsv", "--date", "2013-09-01", str(path))
    snap = StorageSnapshot.objects.get(pk=out["snapshot"])
    deciles = [d["max_size_bytes"] for d in snap.stats["deciles"]][:9]
    for got, paper in zip(deciles, TABLE2_DECILE_MAX_BYTES[:9], strict=True):
        assert paper * 0.9 - 1 <= got <= paper * 1.1 + 1, (deciles, TABLE2_DECILE_MAX_BYTES)
    assert snap.facts["inode_fit"] and snap.facts["sub_block_waste"]


def test_a_second_scan_of_the_same_date_replaces_the_first(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "s.tsv"
    path.write_text("100\tgina\tggs\t1700000000\tf\t/a/x\n")
    for _ in range(2):
        _ingest(capsys, "--filesystem", "proj", "--format", "tsv", "--date", "2024-03-01", str(path))
    assert StorageSnapshot.objects.filter(filesystem__name="proj", taken_on=date(2024, 3, 1)).count() == 1


@requires_shared
@pytest.mark.parametrize("name", sorted(p.name for p in (SHARED_DATA / "fs_sizes").glob("*.csv"))
                         if (SHARED_DATA / "fs_sizes").is_dir() else [])
def test_nersc_histograms_load(name: str, capsys: Any) -> None:
    out = _ingest(capsys, "--filesystem", "nersc", "--format", "histogram", "--date", "2020-01-01",
                  str(SHARED_DATA / "fs_sizes" / name))
    assert out["status"] == "completed" and out["files"] > 0 and out["lines_rejected"] == 0
    assert out["median_size_bytes"] is not None


def test_storage_page_viewer_limits(client: Any, tmp_path: Path, capsys: Any, departments: dict[str, Any],
                                    planner_user: Any, genomics_viewer: Any, chemistry_viewer: Any) -> None:
    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    path = tmp_path / "s.tsv"
    path.write_text("1000\tgina\tggs\t1700000000\tf\t/g/x\n5000\tchris\tscb\t1700000000\tf\t/c/y\n")
    _ingest(capsys, "--filesystem", "proj", "--format", "tsv", "--date", "2024-03-01", str(path))
    assert StorageUsage.objects.filter(kind="group").count() == 2
    login(client, genomics_viewer)
    page = client.get(reverse("storage"))
    assert page.status_code == 200
    assert [r["bytes"] for r in page.context["latest_departments"]] == [1000]
    assert page.context["stats"] == {}  # file-system-wide statistics are for planners
    rows = client.get(reverse("storage-csv")).content.decode().splitlines()
    assert len(rows) == 2 and rows[1].endswith(",1000,1")
    client.logout()
    login(client, chemistry_viewer)
    assert [r["bytes"] for r in client.get(reverse("storage")).context["latest_departments"]] == [5000]
    client.logout()
    login(client, planner_user)
    text = client.get(reverse("storage")).content.decode()
    assert "Table 2" in text and "inode" in text
