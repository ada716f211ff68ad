"""A mapping change re-prices the statements by itself, on a real worker, keeping the old versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forecasts.chargeback.services import statements_compute
from forecasts.models import Statement
from planner.models import BackgroundJob
from tests.forecasts.chargeback_data import map_accounts, minerva_plan, small_site
from tests.helpers import wait_for_job

pytestmark = pytest.mark.worker


def test_a_mapping_change_reprices_the_statements_in_the_background(live_worker: Any, departments: Any,
                                                                    tmp_path: Path) -> None:
    site = small_site(tmp_path)
    minerva_plan()
    statements_compute(month=site["month"])
    map_accounts([("rare-disease", "scb", "rare-disease")])  # the PI moved to chemistry
    job = BackgroundJob.objects.filter(kind="chargeback").latest("created_at")
    assert "identity mapping changed" in job.params["reason"]
    finished = wait_for_job(job.pk, timeout_s=60)
    assert finished.status == "succeeded", finished.message
    ggs = Statement.objects.get(department__code="ggs", month=site["month"], is_current=True)
    scb = Statement.objects.get(department__code="scb", month=site["month"], is_current=True)
    assert (ggs.version, scb.version) == (2, 2)
    assert ggs.core_hours == 16 and scb.core_hours == 16 + 10 + 80 + 24
    assert Statement.objects.filter(department__code="ggs", month=site["month"], version=1).exists()
