"""An upload that is refused leaves nothing on the disk.

The upload pages and API stream the body into UPLOAD_DIR before the CSRF check reads it (so the check
does not buffer up to 2 GB), but when the check then failed (a stale form after signing in again in
another tab, or a forged request) or the API refused the caller, the file stayed under UPLOAD_DIR for
good: every retry of a 2 GB upload kept another 2 GB.  Refused uploads are now removed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db

BODY = b"x" * (3 * 1024 * 1024)  # over FILE_UPLOAD_MAX_MEMORY_SIZE's share of a chunk, streamed to disk


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _left(upload_dir: Path) -> list[str]:
    return [str(p.relative_to(upload_dir)) for p in upload_dir.rglob("*") if p.is_file()] if upload_dir.exists() else []


def _signed_in(user: Any) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize(("url", "fields"), [
    ("/usage/ingest/new/", {"format": "slurm", "cluster": "__new__", "new_cluster": "minerva", "timezone": ""}),
    ("/usage/storage/upload/", {"format": "detect", "filesystem": "__new__", "new_filesystem": "scratch"}),
])
def test_an_upload_page_post_without_a_valid_csrf_token_is_refused_and_its_file_removed(
        planner_user: Any, upload_dir: Path, url: str, fields: dict[str, str]) -> None:
    client = _signed_in(planner_user)
    client.get(url)  # the CSRF cookie, as a browser holds it
    refused = client.post(url, {**fields, "csrfmiddlewaretoken": "stale" * 8,
                                "file": SimpleUploadedFile("sacct.txt", BODY)})
    assert refused.status_code == 403
    assert _left(upload_dir) == []


@pytest.mark.parametrize("url", ["/api/v1/ingestions/", "/api/v1/storage-scans/"])
def test_an_api_upload_refused_by_the_session_csrf_check_leaves_no_file(
        planner_user: Any, upload_dir: Path, url: str) -> None:
    refused = _signed_in(planner_user).post(url, {"format": "detect", "file": SimpleUploadedFile("a.txt", BODY)})
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert _left(upload_dir) == []


@pytest.mark.parametrize("url", ["/api/v1/ingestions/", "/api/v1/storage-scans/"])
def test_an_api_upload_by_a_department_viewer_is_refused_and_leaves_no_file(
        genomics_viewer: Any, upload_dir: Path, url: str) -> None:
    client = _signed_in(genomics_viewer)
    client.get("/access/profile/")
    token = client.cookies["csrftoken"].value
    refused = client.post(url, {"format": "detect", "file": SimpleUploadedFile("a.txt", BODY)},
                          HTTP_X_CSRFTOKEN=token)
    assert refused.status_code == 403
    assert _left(upload_dir) == []


@pytest.mark.parametrize(("url", "fields", "command"), [
    ("/usage/ingest/new/", {"format": "slurm", "cluster": "__new__", "new_cluster": "minerva", "timezone": ""},
     "ingest_accounting"),
    ("/usage/storage/upload/", {"format": "tsv", "filesystem": "__new__", "new_filesystem": "scratch",
                                "taken_on": "2013-09-01"}, "ingest_storage_scan"),
])
def test_an_upload_declared_larger_than_the_limit_is_refused_in_words_not_a_server_error(
        planner_user: Any, upload_dir: Path, settings: Any, url: str, fields: dict[str, str], command: str) -> None:
    """A browser sends the size first (Content-Length); one over the limit was answered before reading the
    body, by adding the message to an unbound form, which raised AttributeError: a 500 ('Something went
    wrong') for every file over 2 GB, instead of the message naming the limit and the server command."""
    settings.UPLOAD_MAX_BYTES = 200
    client = Client(raise_request_exception=False)
    client.force_login(planner_user)
    response = client.post(url, {**fields, "file": SimpleUploadedFile("big.txt", BODY)})  # 3 MB > 200 B + slack
    assert response.status_code == 413, response.status_code
    text = response.content.decode()
    assert "larger than the upload limit of 200 bytes" in text and command in text
    assert _left(upload_dir) == []
