"""Who may see reports: planners and admins everywhere; a department viewer nowhere (pages, API, files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import login
from tests.planner.reports_data import report_inputs


@pytest.fixture
def ready_report(tmp_path: Path, departments: dict[str, Any]) -> Any:
    from planner.reports.services import report_create, report_generate

    data = report_inputs(tmp_path, departments, with_forecast=False)
    report = report_create(design=data["narrow"], cluster=data["cluster"], enqueue=False)
    return report_generate(report.pk)


def _urls(pk: int) -> list[str]:
    return [
        "/reports/", "/reports/new/", f"/reports/{pk}/", f"/reports/{pk}/progress/",
        f"/reports/{pk}/download/pdf/", f"/reports/{pk}/download/docx/", f"/reports/{pk}/download/html/",
        f"/reports/{pk}/download/zip/", "/api/v1/reports/", f"/api/v1/reports/{pk}/",
    ]


def test_a_department_viewer_gets_403_on_every_page_api_and_file(client: Any, genomics_viewer: Any,
                                                                 ready_report: Any) -> None:
    login(client, genomics_viewer)
    for url in _urls(ready_report.pk):
        assert client.get(url).status_code == 403, url
    pk = ready_report.pk
    for url in (f"/reports/{pk}/edit/", f"/reports/{pk}/regenerate/", "/reports/new/"):
        assert client.post(url, {"design": ready_report.design_id}).status_code == 403, url
    assert client.post("/api/v1/reports/", {"design": ready_report.design_id}).status_code == 403


def test_a_planner_opens_every_page_and_downloads_every_format(client: Any, planner_user: Any,
                                                               ready_report: Any) -> None:
    login(client, planner_user)
    for url in _urls(ready_report.pk):
        response = client.get(url)
        assert response.status_code in (200, 302), url
    page = client.get(f"/reports/{ready_report.pk}/").content.decode()
    assert "Proposed configuration" in page and "Download:" in page and 'name="para-summary"' in page
    pdf = client.get(f"/reports/{ready_report.pk}/download/pdf/?download=1")
    assert pdf["Content-Type"] == "application/pdf" and "attachment" in pdf["Content-Disposition"]
    assert b"".join(pdf.streaming_content).startswith(b"%PDF")
    api = client.get(f"/api/v1/reports/{ready_report.pk}/").json()
    assert api["status"] == "ready" and set(api["downloads"]) == {"pdf", "docx", "html", "zip"}


def test_an_admin_may_too_and_anonymous_visitors_are_sent_to_log_in(client: Any, admin_user: Any,
                                                                    ready_report: Any) -> None:
    response = client.get(f"/reports/{ready_report.pk}/download/pdf/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    login(client, admin_user)
    assert client.get(f"/reports/{ready_report.pk}/").status_code == 200


def test_the_api_rejects_a_half_given_period_with_a_message(client: Any, planner_user: Any,
                                                           ready_report: Any) -> None:
    login(client, planner_user)
    response = client.post("/api/v1/reports/", {"design": ready_report.design_id, "start": "2021-01-01"})
    assert response.status_code == 400 and "give both start and end" in str(response.json())


def test_the_report_list_says_how_to_make_the_first_report(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    html = client.get("/reports/").content.decode()
    assert "No reports yet" in html and "evaluate_design" in html and "ingest_accounting" in html


def test_the_openapi_schema_documents_the_reports_api(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    schema = client.get("/api/v1/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/reports/" in paths and "post" in paths["/api/v1/reports/"]
