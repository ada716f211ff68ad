"""File systems scanned quarterly make a storage series that moves in steps: two months in three carry the last scan
forward, and nothing on the fit said so. The fit now counts the months without a scan (page, API, command)."""

from __future__ import annotations

from datetime import date
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from forecasts.demand.storage_series import carried_months
from tests.helpers import login

pytestmark = pytest.mark.django_db


def test_carried_months_counts_the_months_without_a_scan() -> None:
    months = [date(2020, m, 1) for m in range(1, 7)]
    assert carried_months([date(2020, 1, 20), date(2020, 4, 2)], months) == {"months": 6, "carried": 4}
    assert carried_months([date(2020, m, 5) for m in range(1, 7)], months) is None


@pytest.fixture
def quarterly_scans() -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot

    gpfs = FileSystem.objects.create(name="gpfs")
    for q in range(12):  # 2021-01 .. 2023-10, one scan a quarter, growing 3 % a quarter with a wobble
        day = date(2021 + q // 4, 3 * (q % 4) + 1, 15)
        StorageSnapshot.objects.create(filesystem=gpfs, taken_on=day, format="tsv", status="completed",
                                       bytes_total=int(1e15 * 1.03 ** q * (1 + 0.01 * (-1) ** q)), scan_name=f"g{q}")


def test_a_quarterly_scanned_series_says_how_many_months_were_carried(
        quarterly_scans: None, client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/forecasts/", {"metric": "storage_pb", "horizon_months": 24},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    summary = made.json()["summary"]
    assert summary["periods_used"] == 34  # 2021-01 .. 2023-10
    assert summary["storage_caveat"] == ("22 of the 34 months had no scan of any file system: their value is the "
                                         "last scans' carried forward. Scanning monthly gives the fit a figure for "
                                         "every month.")
    page = client.get(f"/forecasts/fits/{summary['fit']}/").content.decode()
    assert 'id="storage-caveat"' in page and "22 of the 34 months had no scan" in page
    out = StringIO()
    call_command("forecast", "--metric", "storage_pb", "--horizon-months", "12", stdout=out, stderr=StringIO())
    assert "22 of the 34 months had no scan of any file system" in out.getvalue()
