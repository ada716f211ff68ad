"""A file system scanned for the first time entered the all-file-system storage series as a jump from 0: scratch
(400 TB, there all along) first scanned in month 13 of work's 24 months of scans made the sum jump from ~0.16 PB to
~0.56 PB, and the fit read the step as growth. The series now starts when every file system has been scanned, and
the fit (page, API, command) says which months were left out and why."""

from __future__ import annotations

from datetime import date
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def scans() -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot

    work, scratch = FileSystem.objects.create(name="work"), FileSystem.objects.create(name="scratch")
    for i in range(36):
        day = date(2021 + i // 12, i % 12 + 1, 20)
        StorageSnapshot.objects.create(filesystem=work, taken_on=day, format="tsv", status="completed",
                                       bytes_total=(100 + 5 * i) * 10**12, scan_name=f"w{i}")
        if i >= 12:  # scratch held ~400 TB before anyone scanned it
            StorageSnapshot.objects.create(filesystem=scratch, taken_on=day, format="tsv", status="completed",
                                           bytes_total=(400 + 2 * i) * 10**12, scan_name=f"s{i}")


NOTE = ("Storage history starts 2022-01, when every file system had been scanned (scratch first scanned 2022-01); "
        "the months from 2021-01 are left out: there the sum lacked those file systems, and each one's first scan "
        "would have entered as a jump from 0 that is not growth.")


def test_the_series_starts_when_every_file_system_is_scanned_and_the_fit_says_so(scans: None, client: Client,
                                                                                  planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/forecasts/", {"metric": "storage_pb", "horizon_months": 24},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    summary = made.json()["summary"]
    # Before: history from 2021-01, with a 0.4 PB step at 2022-01 inside it.
    assert summary["history_from"] == "2022-01-01" and summary["periods_used"] == 24
    assert summary["storage_caveat"] == NOTE
    page = client.get(f"/forecasts/fits/{summary['fit']}/").content.decode()
    assert 'id="storage-caveat"' in page and "scratch first scanned 2022-01" in page
    # the growth it forecasts is the file systems' own (work +5 TB/month, scratch +2): ~0.084 PB a year, not 0.4
    years = {y["year"]: y["median"] for y in summary["yearly"]}
    assert years[2025] - years[2024] == pytest.approx(0.084, abs=0.03)


def test_the_command_prints_the_note(scans: None) -> None:
    out = StringIO()
    call_command("forecast", "--metric", "storage_pb", "--horizon-months", "12", stdout=out, stderr=StringIO())
    assert f"  note: {NOTE}" in out.getvalue()


def test_file_systems_scanned_from_the_same_month_have_no_note(scans: None) -> None:
    from forecasts.demand.series import monthly_series, spec_from_names
    from forecasts.storage.models import StorageSnapshot

    StorageSnapshot.objects.filter(taken_on__lt=date(2022, 1, 1)).delete()
    s = monthly_series(spec_from_names(metric="storage_pb"))
    assert s.start == date(2022, 1, 1) and s.storage_left_out is None
