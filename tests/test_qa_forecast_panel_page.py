"""The panel page refuses settings out of range with the range, as the API does, instead of changing them.

Found on a QA walk: a holdout of -3 (a typo for 3) was read as 0, so the page forecast the future instead of
scoring the last 3 points and said nothing; a horizon of 500 became 240 and 'abc' became 6, while
POST /api/v1/forecast-panels/ refuses all three."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db

PANEL = "series_id,timestamp,value\n" + "".join(f"S{k},{1990 + i},{100 + 7 * i + 13 * k + (i % 3)}\n"
                                                 for k in range(2) for i in range(14))


def _post(client: Client, **form: str) -> str:
    data = {"frequency": "A", "horizon": "3", "holdout": "0", **form,
            "file": SimpleUploadedFile("p.csv", PANEL.encode())}
    resp = client.post("/forecasts/panel/", data)
    assert resp.status_code == 200
    return resp.content.decode()


@pytest.mark.parametrize(("field", "value"), [("holdout", "-3"), ("holdout", "2.5"), ("holdout", "999"),
                                              ("horizon", "500"), ("horizon", "abc"), ("horizon", "0")])
def test_a_setting_out_of_range_is_refused_with_its_range(
        client: Client, planner_user: Any, field: str, value: str) -> None:
    html = _post(login(client, planner_user), **{field: value})
    assert 'id="panel-result"' not in html
    error = html.split('<p class="error" role="alert">', 1)[1].split("</p>", 1)[0]
    assert field in error and "240" in error and value.replace("&", "") in error
    assert f'name="{field}" value="{value}"' in html  # what was typed stays in the form to correct


def test_blank_settings_are_the_defaults(client: Client, planner_user: Any) -> None:
    html = _post(login(client, planner_user), horizon="", holdout="")
    assert 'id="panel-result"' in html and "forecast 6 periods ahead" in html
