"""Uploaded text files (planner.web.textfiles): refused with the file, line and reason, on every upload page."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client

from planner.web.textfiles import UploadTextError, upload_text
from tests.helpers import login


def test_upload_text_reads_utf8_and_drops_a_byte_order_mark() -> None:
    assert upload_text("\ufeffname,value\nHDD,é\n".encode(), "a.csv") == "name,value\nHDD,é\n"


@pytest.mark.parametrize(("data", "message"), [
    (b"kind,name\nuser,ok\nuser,\xff\xfe\n", "a.csv line 3: not UTF-8 text (byte 23)"),
    (b"kind,name\nuser,\x00bad\n", "a.csv line 2: a NUL byte (a binary or damaged file)"),
    (b"\x00\x01\x02", "a.csv line 1: a NUL byte"),
])
def test_upload_text_names_the_line_that_is_not_text(data: bytes, message: str) -> None:
    with pytest.raises(UploadTextError) as caught:
        upload_text(data, "a.csv")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


# every page that takes an uploaded text file, with the other fields its form needs
UPLOADS = [
    ("/usage/mappings/", {}),
    ("/access/mappings/", {}),
    ("/hardware/import/", {}),
    ("/forecasts/plans/", {}),
    ("/forecasts/series/", {"name": "HDD price", "units": "USD/TB", "frequency": "A", "aggregate": "mean"}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "fields"), UPLOADS)
@pytest.mark.parametrize(("data", "message"), [
    (b"kind,name,department\nuser,\x00bad\x00,ggs\n", "damaged.csv line 2: a NUL byte"),
    (b"kind,name,department\nuser,ok,ggs\n" + bytes(range(128, 256)), "damaged.csv line 3: not UTF-8 text"),
])
def test_a_binary_or_damaged_upload_is_refused_with_its_line_on_every_page(
        url: str, fields: dict[str, str], data: bytes, message: str, admin_user: Any) -> None:
    client = login(Client(), admin_user)
    upload = io.BytesIO(data)
    upload.name = "damaged.csv"
    response = client.post(url, {"file": upload, **fields}, follow=True)
    assert response.status_code == 200
    assert message in response.content.decode()
