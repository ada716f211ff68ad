"""A real Celery worker generates a report from the page; an edit saves a new version with the text in the PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import login, wait_for_job
from tests.planner.reports_data import report_inputs, squash


def test_a_report_from_the_form_is_generated_by_a_worker_and_edits_make_a_new_version(
        client: Any, planner_user: Any, departments: dict[str, Any], tmp_path: Path, live_worker: Any) -> None:
    from pypdf import PdfReader

    from planner.reports.models import GrantReport

    data = report_inputs(tmp_path, departments, with_forecast=False)
    login(client, planner_user)
    response = client.post("/reports/new/", {"design": data["narrow"].pk, "cluster": data["cluster"].pk,
                                             "start": "2021-01", "end": "2023-12"})
    report = GrantReport.objects.get()
    assert response["Location"] == f"/reports/{report.pk}/progress/"
    assert 'class="card job-progress"' in client.get(response["Location"]).content.decode()
    job = wait_for_job(report.job_id, timeout_s=180)
    assert job.status == "succeeded", job.message
    assert job.result_url == f"/reports/{report.pk}/" and job.done == job.total == 6
    report.refresh_from_db()
    assert report.status == "ready" and report.parameters["start"] == "2021-01-01"
    # the progress bar's JSON names the files by their download links, never by where the server keeps them
    files = client.get(f"/jobs/{job.pk}.json").json()["result"]["files"]
    assert files and files == {fmt: f"/reports/{report.pk}/download/{fmt}/" for fmt in report.files}
    assert client.get(files["pdf"]).status_code == 200

    words = "Our cluster serves every genomics lab of the institute."
    response = client.post(f"/reports/{report.pk}/edit/", {"para-summary": words})
    new = GrantReport.objects.exclude(pk=report.pk).get()
    assert response["Location"] == f"/reports/{new.pk}/progress/"
    assert new.version == report.version + 1 and new.parent_id == report.pk
    assert new.narrative_overrides == {"summary": words}
    job = wait_for_job(new.job_id, timeout_s=180)
    assert job.status == "succeeded", job.message
    new.refresh_from_db()
    text = squash("".join(p.extract_text() for p in PdfReader(str(new.file_path("pdf"))).pages))
    assert squash(words) in text
    report.refresh_from_db()
    assert report.narrative_overrides == {} and report.file_path("pdf").exists()  # the old version is kept
