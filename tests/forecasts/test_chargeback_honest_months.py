"""Honest months: storage is billed every month from the scans that stand for it (never $0 for a
month without a scan), and the month in progress is provisional on statements, pages and exports."""

from __future__ import annotations

from datetime import date
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forecasts.chargeback.months import CARRY, LINEAR, is_provisional, month_scan_weights

QUARTERLY = [(1, date(2024, 1, 15)), (2, date(2024, 4, 15)), (3, date(2024, 7, 15))]


def test_a_month_with_scans_uses_the_mean_of_its_scans() -> None:
    found = month_scan_weights(date(2024, 4, 1), [*QUARTERLY, (4, date(2024, 4, 28))])
    assert found is not None and found.weights == ((2, 0.5), (4, 0.5)) and found.basis == ""


def test_a_month_between_quarterly_scans_carries_the_last_scan_forward_and_says_so() -> None:
    found = month_scan_weights(date(2024, 3, 1), QUARTERLY, CARRY)
    assert found is not None and found.weights == ((1, 1.0),)
    assert found.basis == "no scan in 2024-03: the scan of 2024-01-15 is carried forward"


def test_linear_interpolates_at_mid_month_between_the_scans_either_side() -> None:
    found = month_scan_weights(date(2024, 3, 1), QUARTERLY, LINEAR)
    assert found is not None
    (before, w_before), (after, w_after) = found.weights
    # 2024-03-16 12:00 lies 61.5 of the 91 days from 2024-01-15 to 2024-04-15
    assert (before, after) == (1, 2) and w_after == pytest.approx(61.5 / 91)
    assert "interpolated at mid-month between the scans of 2024-01-15 and 2024-04-15" in found.basis


def test_linear_carries_forward_past_the_last_scan_and_nothing_is_billed_before_the_first() -> None:
    assert month_scan_weights(date(2024, 9, 1), QUARTERLY, LINEAR).weights == ((3, 1.0),)  # type: ignore[union-attr]
    assert month_scan_weights(date(2023, 12, 1), QUARTERLY, LINEAR) is None


@given(st.dates(min_value=date(2024, 1, 16), max_value=date(2026, 12, 31)), st.sampled_from([CARRY, LINEAR]))
def test_after_the_first_scan_every_month_is_billed_with_weights_summing_to_one(day: date, mode: str) -> None:
    found = month_scan_weights(day.replace(day=1) if day.month > 1 else day, QUARTERLY, mode)
    assert found is not None and sum(w for _, w in found.weights) == pytest.approx(1.0)
    assert all(0 <= w <= 1 for _, w in found.weights)


def test_the_month_in_progress_is_provisional_until_it_closes() -> None:
    assert is_provisional(date(2026, 11, 1), date(2026, 11, 24))
    assert not is_provisional(date(2026, 10, 1), date(2026, 11, 1))


def test_an_unknown_mode_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'cubic' is not one of carry, linear"):
        month_scan_weights(date(2024, 3, 1), QUARTERLY, "cubic")


def _quarterly_scans(departments: dict[str, Any]) -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage

    fs = FileSystem.objects.create(name="gpfs-work", tier="disk")
    for taken_on, tb in ((date(2024, 1, 15), 10), (date(2024, 4, 15), 19)):
        snap = StorageSnapshot.objects.create(filesystem=fs, taken_on=taken_on, format="tsv", scan_name="s",
                                              status=StorageSnapshot.Status.COMPLETED)
        StorageUsage.objects.create(snapshot=snap, kind="owner", name="chris", department=departments["chemistry"],
                                    bytes=tb * 10**12)


@pytest.mark.django_db
def test_with_quarterly_scans_the_months_between_are_billed_from_the_last_scan(
        departments: dict[str, Any], tmp_path: Path) -> None:
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import logs_cover_march, minerva_plan, small_site

    site = small_site(tmp_path)  # March 2024 usage; scans in January and April only
    logs_cover_march(tmp_path)
    minerva_plan()
    _quarterly_scans(departments)
    scb = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "scb")
    assert scb.storage_tb == 10.0 and scb.storage_usd == D("50.00")  # $5/TB-month, never $0
    assert "Storage on gpfs-work: no scan in 2024-03: the scan of 2024-01-15 is carried forward." in scb.notes


@pytest.mark.django_db
def test_a_linear_rate_plan_interpolates_the_months_between_scans(
        departments: dict[str, Any], tmp_path: Path) -> None:
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import minerva_plan, small_site

    site = small_site(tmp_path)
    plan = minerva_plan()
    plan.storage_between_scans = "linear"
    plan.save()
    _quarterly_scans(departments)
    scb = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "scb")
    assert scb.storage_tb == pytest.approx(10 + 9 * 61.5 / 91)


@pytest.mark.django_db
def test_the_month_in_progress_is_marked_provisional_on_the_statement_page_the_csv_and_the_api(
        client: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    from django.utils import timezone

    from forecasts.chargeback.models import Statement

    this_month = timezone.now().date().replace(day=1)
    s = Statement.objects.create(department=departments["genomics"], month=this_month, fingerprint="x")
    old = Statement.objects.create(department=departments["genomics"], month=date(2024, 3, 1), fingerprint="y")
    client.force_login(planner_user)
    assert "provisional</span>" in client.get(f"/chargeback/statements/{s.pk}/").content.decode()
    assert "provisional</span>" not in client.get(f"/chargeback/statements/{old.pk}/").content.decode()
    assert "status,PROVISIONAL: the month is in progress" in client.get(
        f"/chargeback/statements/{s.pk}.csv").content.decode()
    listed = {row["month"]: row["provisional"] for row in client.get("/api/v1/chargeback/statements/").json()[
        "results"]}
    assert listed == {f"{this_month:%Y-%m}": True, "2024-03": False}


@pytest.mark.django_db
def test_the_page_opens_on_the_last_whole_month_and_marks_the_month_the_logs_end_inside(
        client: Any, planner_user: Any, departments: dict[str, Any], tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.accounting.parsers.synth import slurm_lines
    from forecasts.chargeback.models import Statement

    path = tmp_path / "jobs.txt"
    path.write_text("".join(slurm_lines(300, start=datetime(2025, 1, 1, tzinfo=UTC),
                                        end=datetime(2025, 3, 6, tzinfo=UTC))))
    ingest_run_execute(ingest_run_create(cluster_name="c", fmt="slurm", paths=[path]).pk)
    for month, fp in ((date(2025, 2, 1), "feb"), (date(2025, 3, 1), "mar")):
        Statement.objects.create(department=departments["genomics"], month=month, fingerprint=fp)
    client.force_login(planner_user)
    html = client.get("/chargeback/").content.decode()
    assert "Chargeback &middot; February 2025" in html and 'id="logs-end-inside"' not in html
    assert "2025-03 (partial)</a>" in html
    march = client.get("/chargeback/?month=2025-03").content.decode()
    assert 'id="logs-end-inside"' in march and "The accounting logs end on 6 March 2025" in march
