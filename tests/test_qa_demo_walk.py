"""A first-time visitor's walk through the demo (dashboard, forecasts, designs, compare, report, chargeback),
session 27: what read wrong on a page is held here."""

from __future__ import annotations

import html as html_lib
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login


@pytest.mark.django_db
def test_the_chargeback_month_page_ends_the_rate_plans_note_once(
        departments: dict[str, Any], tmp_path: Any, admin_user: Any) -> None:
    """The demo's rate-plan note ends with a full stop ('... storage $5 per TB-month.') and the month page wrote it
    inside its own sentence, so the demo's December 2019 read 'storage $5 per TB-month.. Each statement gives ...'."""
    from forecasts.chargeback.models import RatePlan
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import logs_cover_march, minerva_plan, small_site

    site = small_site(tmp_path)
    logs_cover_march(tmp_path)
    minerva_plan()
    RatePlan.objects.update(note="Illustrative rates, not a site's: base $0.02 per core-hour; storage $5 per TB-month.")
    statements_compute(month=site["month"])
    page = html_lib.unescape(login(Client(), admin_user).get(
        f"/chargeback/?month={site['month']:%Y-%m}").content.decode())
    line = " ".join(page.split('id="rate-plans">')[1].split("</p>")[0].split())
    assert "storage $5 per TB-month. Each statement gives the rate of each line." in line
    assert ".." not in line
    assert "Illustrative rates, not a site's: base $0.02 per core-hour" in line
