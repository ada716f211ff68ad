"""An upload POST without a file gets the form back with "Choose a file to upload", never a 500.

A urlencoded body (a client that dropped the file) is read by middleware before the view, so the view
must not try to install its upload handler on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.helpers import login

pytestmark = pytest.mark.django_db
FIELDS = {"format": "detect", "cluster": "__new__", "new_cluster": "minerva", "timezone": ""}
SCAN_FIELDS = {"format": "tsv", "filesystem": "__new__", "new_filesystem": "proj", "taken_on": "2024-03-01"}


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


@pytest.mark.parametrize(("url", "fields"), [("ingest-new", FIELDS), ("storage-upload", SCAN_FIELDS)])
def test_a_urlencoded_post_gets_the_form_back_asking_for_a_file(client: Any, planner_user: Any, url: str,
                                                                 fields: dict[str, str]) -> None:
    from urllib.parse import urlencode

    login(client, planner_user)
    response = client.post(reverse(url), urlencode(fields), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "Choose a file to upload." in response.content.decode()
    assert 'type="file" name="file" id="id_file" required' in response.content.decode()


@pytest.mark.parametrize(("url", "fields"), [("ingest-new", FIELDS), ("storage-upload", SCAN_FIELDS)])
def test_a_multipart_post_without_the_file_gets_the_form_back_asking_for_one(client: Any, planner_user: Any,
                                                                             url: str, fields: dict[str, str]) -> None:
    login(client, planner_user)
    response = client.post(reverse(url), fields)  # multipart, no file part
    assert response.status_code == 400
    assert "Choose a file to upload." in response.content.decode()


def test_an_empty_post_gets_the_form_back(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    response = client.post(reverse("ingest-new"), b"", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400 and "Choose a file to upload." in response.content.decode()


def test_the_ingest_api_refuses_a_urlencoded_post_without_a_500(client: Any, planner_user: Any) -> None:
    from urllib.parse import urlencode

    login(client, planner_user)
    response = client.post("/api/v1/ingestions/", urlencode(FIELDS), content_type="application/x-www-form-urlencoded")
    assert response.status_code in (400, 415), response.content
