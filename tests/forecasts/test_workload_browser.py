"""In a real browser: the workload overview and the storage page, as a planner and as a department viewer."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(tmp_path: Path, departments: dict[str, Any]) -> None:
    """A year of a small genomics-heavy site and two quarterly scans, through the real paths."""
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.accounting.parsers.synth import Person, slurm_lines
    from forecasts.models import ClusterCapacity, IdentityMapping
    from forecasts.storage.services import ingest_scan
    from forecasts.storage.synth import scan_lines

    people = [Person(f"g{i}", "ggs", "autism-wgs", "genomics") for i in range(8)] + \
             [Person(f"c{i}", "scb", "md-membrane", "md") for i in range(3)]
    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    log = tmp_path / "jobs.sacct"
    with log.open("w") as out:
        out.writelines(slurm_lines(20_000, start=datetime(2024, 1, 1, tzinfo=UTC),
                                   end=datetime(2025, 1, 1, tzinfo=UTC), people=people, seed=3))
    run = ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[log], tz="UTC")
    ingest_run_execute(run.pk)
    ClusterCapacity.objects.create(cluster=run.cluster, effective_from=date(2024, 1, 1), cores=512, nodes=8)
    owners = [(p.user, p.group) for p in people]
    for i, day in enumerate([date(2024, 6, 1), date(2024, 9, 1)]):
        scan = tmp_path / f"scan{i}.tsv"
        with scan.open("w") as out:
            out.writelines(scan_lines(20_000 * (i + 1), owners=owners, seed=i,
                                      as_of_epoch=int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())))
        ingest_scan(filesystem="minerva-gpfs", fmt="tsv", path=scan, taken_on=day)


def test_workload_overview_as_a_planner(page_as: Any, planner_user: Any, live_server: Any, site: None) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/usage/workload/?cluster=minerva")
    assert page.locator("#kpi-jobs").inner_text() == "20,000"
    assert page.get_by_role("heading", name="Table 1: jobs and core-hours").is_visible()
    page.wait_for_selector("#chart-size[data-drawn=yes]")
    page.wait_for_selector("#chart-growth[data-drawn=yes]")
    assert page.locator(".chart-actions a", has_text="Download CSV").count() >= 5
    screenshot(page, "workload-overview")
    page.get_by_role("link", name="Genetics and Genomic Sciences").click()
    page.wait_for_selector("#chart-size[data-drawn=yes]")
    assert "Workload:" in page.locator("h1").inner_text()
    screenshot(page, "workload-department")


def test_storage_page_as_a_planner_and_a_viewer(page_as: Any, planner_user: Any, chemistry_viewer: Any,
                                                live_server: Any, site: None) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/usage/storage/")
    assert page.locator("#kpi-files").inner_text() == "40,000"
    assert page.get_by_role("heading", name="Table 2: file-size deciles").is_visible()
    page.wait_for_selector("#chart-sizes[data-drawn=yes]")
    page.wait_for_selector("#chart-departments[data-drawn=yes]")
    screenshot(page, "storage-overview")
    viewer = page_as(chemistry_viewer)
    viewer.goto(f"{live_server.url}/usage/storage/")
    rows = viewer.locator("#by-department tr").all_inner_texts()
    assert any("Chemistry" in r or "chem" in r.lower() for r in rows)
    assert not any("Genomics" in r for r in rows)
    assert viewer.locator("#deciles").count() == 0
    screenshot(viewer, "storage-viewer")
