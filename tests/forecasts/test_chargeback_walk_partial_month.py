"""The month the accounting logs end inside (here 6 January 2020) is billed as usage so far on every
surface: the department page's row, the statement page and PDF, both CSVs and the API say
"logs end on 6 January 2020: usage so far"; its storage covers the same 6 of 31 days as its
compute; the department page opens on the year of the last whole month; and the months after the
logs end are named as such, not as months without usage."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from forecasts.chargeback.months import logs_cover, logs_end_words
from tests.forecasts.chargeback_data import ingest_lines, map_accounts, minerva_plan, sacct_line
from tests.helpers import login

REASON = "logs end on 6 January 2020: usage so far"


def test_the_logs_cover_the_month_from_its_first_day_through_the_day_they_end() -> None:
    assert logs_cover(date(2020, 1, 1), date(2020, 1, 6)) == (6, 31)
    assert logs_cover(date(2020, 2, 1), date(2020, 2, 29)) == (29, 29)
    with pytest.raises(ValueError, match="not inside 2020-02"):
        logs_cover(date(2020, 2, 1), date(2020, 1, 6))
    assert logs_end_words(date(2020, 1, 6)) == REASON


@pytest.fixture
def logs_end_on_6_january(tmp_path: Path, departments: dict[str, Any]) -> dict[str, Any]:
    """ggs ran jobs in December 2019 and January 2020 (the logs end on 6 January) and holds 31 TB."""
    from forecasts.chargeback.services import statements_compute
    from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage

    ingest_lines([sacct_line(301, user="gina", account="autism-wgs", group="ggs",
                             start="2019-12-10T08:00:00", end="2019-12-10T10:00:00"),
                  sacct_line(302, user="gina", account="autism-wgs", group="ggs",
                             start="2020-01-06T08:00:00", end="2020-01-06T10:00:00")], tmp_path)
    map_accounts([("autism-wgs", "ggs", "autism-wgs")])
    minerva_plan(effective_from="2019-01-01")  # $0.02/core-hour, $5/TB-month
    fs = FileSystem.objects.create(name="gpfs-work", tier="disk")
    snap = StorageSnapshot.objects.create(filesystem=fs, taken_on=date(2019, 12, 15), format="tsv", scan_name="s",
                                          status=StorageSnapshot.Status.COMPLETED)
    StorageUsage.objects.create(snapshot=snap, kind="owner", name="gina", department=departments["genomics"],
                                bytes=31 * 10**12)
    december = statements_compute(month=date(2019, 12, 1)).statements[0]
    january = statements_compute(month=date(2020, 1, 1)).statements[0]
    return {"december": december, "january": january}


pytestmark = pytest.mark.django_db


def test_storage_is_billed_for_the_days_the_logs_cover_and_the_statement_says_so(
        logs_end_on_6_january: dict[str, Any]) -> None:
    december, january = logs_end_on_6_january["december"], logs_end_on_6_january["january"]
    assert december.storage_usd == D("155.00")  # 31 TB x $5/TB-month, the whole month
    assert january.storage_usd == D("30.00")  # 6 of 31 days: 155 x 6 / 31
    assert january.storage_tb == 31.0  # the TB held is what the scan says; the days are in the price
    assert "Storage billed for 6 of 31 days: the accounting logs end on 6 January 2020" in " ".join(january.notes)
    assert january.lines.get(kind="storage").rate == "$5/TB-month x 6/31 of the month"
    assert not any("6 of 31" in n for n in december.notes)


def test_only_the_month_the_logs_end_inside_is_provisional_and_says_why(
        logs_end_on_6_january: dict[str, Any]) -> None:
    december, january = logs_end_on_6_january["december"], logs_end_on_6_january["january"]
    assert january.is_provisional and january.provisional_reason == REASON
    assert not december.is_provisional and december.provisional_reason == ""


def test_the_department_page_opens_on_the_year_of_the_last_whole_month(
        client: Any, planner_user: Any, logs_end_on_6_january: dict[str, Any]) -> None:
    login(client, planner_user)
    response = client.get(reverse("chargeback-ytd", args=["ggs"]))
    assert response.context["year"] == 2019
    assert "Genetics and Genomic Sciences &middot; 2019 year to date" in response.content.decode()


def test_the_department_year_marks_the_partial_month_and_names_the_months_after_the_logs_end(
        client: Any, planner_user: Any, logs_end_on_6_january: dict[str, Any]) -> None:
    login(client, planner_user)
    response = client.get(reverse("chargeback-ytd", args=["ggs"]) + "?year=2020")
    text = response.content.decode()
    assert '<span class="badge provisional" title="its figures will still change">partial</span>' in text
    assert f'<span class="provisional-reason">{REASON}</span>' in text
    assert "1 month of 1, to the logs' end on 6 January 2020" in text
    assert "February to December 2020: after the logs end (6 January 2020)" in text
    assert "No usage loaded" not in text
    coverage = response.context["coverage"]
    assert coverage["no_usage"] == [] and len(coverage["after_logs"]) == 11


def test_the_statement_page_and_its_pdf_say_the_logs_end_inside_the_month(
        client: Any, planner_user: Any, logs_end_on_6_january: dict[str, Any]) -> None:
    from pypdf import PdfReader

    january, december = logs_end_on_6_january["january"], logs_end_on_6_january["december"]
    login(client, planner_user)
    page = client.get(reverse("chargeback-statement", args=[january.pk])).content.decode()
    assert 'id="provisional-reason"' in page and f"Provisional: {REASON}." in page
    assert 'id="provisional-reason"' not in client.get(
        reverse("chargeback-statement", args=[december.pk])).content.decode()
    pdf = client.get(reverse("chargeback-statement-pdf", args=[january.pk])).content
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert f"PROVISIONAL: {REASON}" in " ".join(text.split())


def test_the_csv_exports_carry_the_provisional_status(
        client: Any, planner_user: Any, logs_end_on_6_january: dict[str, Any]) -> None:
    january, december = logs_end_on_6_january["january"], logs_end_on_6_january["december"]
    login(client, planner_user)
    statement_csv = client.get(reverse("chargeback-statement-csv", args=[january.pk])).content.decode()
    assert f"# status,PROVISIONAL: {REASON}" in statement_csv
    assert "# status,final" in client.get(reverse("chargeback-statement-csv", args=[december.pk])).content.decode()
    assert "\n2020-01,provisional," in client.get(reverse("chargeback-ytd-csv", args=["ggs"]) + "?year=2020"
                                                  ).content.decode()
    assert "\n2019-12,final," in client.get(reverse("chargeback-ytd-csv", args=["ggs"]) + "?year=2019"
                                            ).content.decode()


def test_the_api_flags_the_statement_provisional_with_its_reason(
        client: Any, planner_user: Any, logs_end_on_6_january: dict[str, Any]) -> None:
    login(client, planner_user)
    rows = {r["month"]: r for r in client.get("/api/v1/chargeback/statements/").json()["results"]}
    assert (rows["2020-01"]["provisional"], rows["2020-01"]["provisional_reason"]) == (True, REASON)
    assert (rows["2019-12"]["provisional"], rows["2019-12"]["provisional_reason"]) == (False, "")
    one = client.get(f"/api/v1/chargeback/statements/{logs_end_on_6_january['january'].pk}/").json()
    assert one["provisional"] is True and one["provisional_reason"] == REASON


def test_the_demo_computes_twelve_whole_months_and_the_month_the_logs_end_inside(
        tmp_path: Path, departments: dict[str, Any]) -> None:
    from forecasts.chargeback.demo import demo_months

    firsts = [date(2018 + i // 12, i % 12 + 1, 3) for i in range(25)]  # January 2018 to January 2020
    ingest_lines([sacct_line(400 + i, user="gina", account="autism-wgs", group="ggs", start=f"{d}T08:00:00",
                             end=f"{d}T10:00:00") for i, d in enumerate(firsts)], tmp_path)  # logs end 3 Jan 2020
    months = demo_months()
    assert months[0] == date(2019, 1, 1) and months[-2] == date(2019, 12, 1) and months[-1] == date(2020, 1, 1)
    assert len(months) == 13
