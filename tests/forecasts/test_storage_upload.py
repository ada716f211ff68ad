"""Uploading a file-system scan: the page and the API start a background load that ends in a snapshot."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.helpers import login, wait_for_job

# 4 files and 1 directory, a malformed line (5), a comment (skipped) and a blank line (skipped)
SCAN = (b"4096\talice\tggs\t1377900000.0\td\t/data/ggs/alice\n"
        b"10\talice\tggs\t1377900000.0\tf\t/data/ggs/alice/a\n"
        b"2048\talice\tggs\t1377900000.0\tf\t/data/ggs/alice/b\n"
        b"0\tbob\tscb\t1377900000.0\tf\t/data/ggs/alice/c\n"
        b"not-a-size\tbob\tscb\t1377900000.0\tf\t/data/scb/bob/d\n"
        b"# a comment\n"
        b"\n"
        b"70000\tbob\tscb\t1377900000.0\tf\t/data/scb/bob/e\n")


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _upload(client: Any, data: bytes, name: str = "scan.tsv", **fields: str) -> Any:
    form = {"format": "tsv", "filesystem": "__new__", "new_filesystem": "gpfs-projects", "taken_on": "2013-09-01",
            **fields}
    return client.post(reverse("storage-upload"), {**form, "file": SimpleUploadedFile(name, data)})


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_planner_uploads_a_scan_and_lands_on_the_storage_page_with_counts_that_add_up(
        client: Any, planner_user: Any, live_worker: Any, upload_dir: Path) -> None:
    from forecasts.models import StorageSnapshot

    login(client, planner_user)
    response = _upload(client, SCAN)
    assert response.status_code == 302
    snap = StorageSnapshot.objects.get()
    assert response["Location"] == reverse("job", args=[snap.background_job_id])
    assert snap.filesystem.name == "gpfs-projects" and snap.created_by == planner_user
    job = wait_for_job(snap.background_job_id)
    assert job.status == "succeeded", job.message
    assert job.unit == "lines"
    snap.refresh_from_db()
    assert snap.status == "completed" and str(snap.taken_on) == "2013-09-01"
    stored = job.result["lines_stored"]
    assert (snap.lines_read, stored, snap.lines_skipped, snap.lines_rejected) == (8, 5, 2, 1)
    assert stored + snap.lines_skipped + snap.lines_rejected == snap.lines_read
    assert snap.files == 4 and snap.bytes_total == 10 + 2048 + 0 + 70000
    assert list(snap.rejections.values_list("line", flat=True)) == [5]
    assert job.message == "8 lines read: 5 stored, 2 skipped, 1 rejected"
    assert job.result_url == reverse("storage") + f"?filesystem=gpfs-projects&snapshot={snap.pk}"

    page = client.get(job.result_url).content.decode()
    assert "8 lines read: 5 stored, 2 skipped, 1 rejected" in page
    assert "line 5:" in page
    rejections_url = reverse("storage-rejections-csv", args=[snap.pk])
    assert rejections_url in page
    rows = list(csv.reader(io.StringIO(b"".join(client.get(rejections_url).streaming_content).decode())))
    assert rows[0] == ["filesystem", "taken_on", "scan", "line", "reason", "raw"]
    assert rows[1][:4] == ["gpfs-projects", "2013-09-01", "scan.tsv", "5"] and "not-a-size" in rows[1][5]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_gzipped_scan_loads_through_the_api_into_an_existing_file_system(
        client: Any, admin_user: Any, live_worker: Any) -> None:
    from forecasts.models import FileSystem, StorageSnapshot

    FileSystem.objects.create(name="scratch")
    login(client, admin_user)
    response = client.post(reverse("storage-scan-list"), {
        "file": SimpleUploadedFile("scan.tsv.gz", gzip.compress(SCAN)), "filesystem": "scratch",
        "format": "tsv", "taken_on": "2013-09-01"})
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["job_url"].endswith(reverse("job-json", args=[body["job"]]))
    job = wait_for_job(body["job"])
    assert job.status == "succeeded", job.message
    snap = StorageSnapshot.objects.get(pk=body["snapshot"])
    assert snap.filesystem.name == "scratch" and (snap.lines_read, snap.lines_rejected, snap.files) == (8, 1, 4)

    status = client.get(body["status_url"]).json()
    assert status["status"] == "completed" and status["lines_stored"] == 5
    assert status["progress"]["status"] == "succeeded" and status["progress"]["unit"] == "lines"
    listing = client.get(reverse("storage-scan-list")).json()
    items = listing["results"] if isinstance(listing, dict) else listing
    assert [s["id"] for s in items] == [snap.pk]


@pytest.mark.django_db
def test_a_scan_over_the_upload_limit_is_refused_with_the_server_command(
        client: Any, planner_user: Any, settings: Any, upload_dir: Path) -> None:
    from forecasts.models import StorageSnapshot

    settings.UPLOAD_MAX_BYTES = 200
    login(client, planner_user)
    response = _upload(client, SCAN * 4)
    assert response.status_code == 413
    text = response.content.decode()
    assert "larger than the upload limit" in text and "ingest_storage_scan" in text
    assert not StorageSnapshot.objects.exists()
    assert not any(p.is_file() for p in upload_dir.rglob("*")) if upload_dir.exists() else True

    api = client.post(reverse("storage-scan-list"), {
        "file": SimpleUploadedFile("scan.tsv", SCAN * 4), "filesystem": "scratch", "format": "tsv",
        "taken_on": "2013-09-01"})
    assert api.status_code == 413 and "ingest_storage_scan" in api.json()["file"][0]


@pytest.mark.django_db
def test_a_new_file_system_needs_a_slug_name_and_the_form_says_so(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    response = _upload(client, SCAN, new_filesystem="GPFS Projects")
    assert response.status_code == 400
    assert "such as &#x27;gpfs-projects&#x27;" in response.content.decode()


@pytest.mark.django_db
def test_the_upload_page_offers_file_systems_formats_and_a_date(client: Any, planner_user: Any) -> None:
    from forecasts.models import FileSystem

    FileSystem.objects.create(name="scratch")
    login(client, planner_user)
    text = client.get(reverse("storage-upload")).content.decode()
    assert "Drag a scan file here" in text and '<option value="scratch"' in text
    assert 'value="gpfs"' in text and 'value="histogram"' in text and 'name="taken_on"' in text
    empty = client.get(reverse("storage")).content.decode()
    assert empty.count(reverse("storage-upload")) >= 2  # the button and the empty state (plus the tab)


@pytest.mark.django_db
def test_department_viewers_cannot_upload_scans_or_list_them(client: Any, genomics_viewer: Any) -> None:
    login(client, genomics_viewer)
    assert client.get(reverse("storage-upload")).status_code == 403
    assert _upload(client, SCAN).status_code == 403
    assert client.get(reverse("storage-scan-list")).status_code == 403
    assert client.post(reverse("storage-scan-list"), {
        "file": SimpleUploadedFile("scan.tsv", SCAN), "filesystem": "scratch", "format": "tsv",
        "taken_on": "2013-09-01"}).status_code == 403
    assert client.get(reverse("storage-rejections-csv", args=[1])).status_code == 403
    assert reverse("storage-upload") not in client.get(reverse("storage")).content.decode()
