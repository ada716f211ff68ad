"""The Queue waits section in a real browser: CDF and p95 charts drawn, the what-if slider answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.replay.services import design_replay_execute, design_replay_start
from tests.helpers import SCREENSHOTS, screenshot
from tests.planner.designs_data import load_catalog_and_designs
from tests.planner.replay.replay_data import CLUSTER, load_cluster

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_queue_waits_charts_and_the_machine_size_slider(page_as: Any, live_server: Any, planner_user: Any,
                                                        tmp_path: Path) -> None:
    load_cluster(tmp_path)
    designs = load_catalog_and_designs()
    narrow = designs["narrow"]
    design_replay_execute(design_replay_start(design=narrow, cluster=CLUSTER).pk)
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/designs/{narrow.pk}/#queue-waits")
    for fig in ("fig-queue-cdf", "fig-queue-p95"):
        page.wait_for_selector(f"[data-figure='{fig}'][data-drawn='yes'] .main-svg", timeout=15000)
    out = page.locator("#what-if .what-if-out")
    assert out.inner_text().startswith("x1 (") and "cores in 2019" in out.inner_text()
    page.locator("#what-if .what-if-scale").fill("0")
    assert out.inner_text().startswith("x0.5 (")
    page.locator("#what-if .what-if-year").select_option(label="2014")
    assert "cores in 2014" in out.inner_text()
    assert page.locator("#queue-waits-table tbody tr").count() == 7  # today + 2014..2019
    page.locator("#queue-waits").screenshot(path=str(SCREENSHOTS / "replay-queue-waits-section.png"))
    screenshot(page, "replay-design-page")
    page.goto(f"{live_server.url}/designs/compare/?ids={narrow.pk}&ids={designs['wide'].pk}")
    page.wait_for_selector("[data-figure='fig-queue-cdf'][data-drawn='yes'] .main-svg", timeout=15000)
    page.locator("#queue-waits").screenshot(path=str(SCREENSHOTS / "replay-compare-section.png"))
