"""Department viewers see only their departments' chargeback: every page, export, chart and API route.

The routes are enumerated from forecasts.chargeback.urls and forecasts.chargeback.api, so a
route added later is tried here without anyone remembering to list it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, reverse

from forecasts.chargeback import api as api_chargeback
from forecasts.chargeback import urls as urls_chargeback
from forecasts.chargeback.services import statements_compute
from forecasts.models import Statement
from tests.forecasts.chargeback_data import minerva_plan, small_site
from tests.helpers import login

pytestmark = pytest.mark.django_db

POST_ONLY = {"chargeback-compute", "chargeback-statement-compute"}


def _patterns(patterns: list[Any]) -> list[URLPattern]:
    out: list[URLPattern] = []
    for p in patterns:
        if isinstance(p, URLResolver):
            out += _patterns(p.url_patterns)
        else:
            out.append(p)
    return out


def page_routes() -> list[str]:
    return [p.name for p in _patterns(urls_chargeback.urlpatterns) if p.name]


def api_routes() -> list[str]:
    return [p.name for p in _patterns(api_chargeback.urlpatterns) if p.name]


def _converters(name: str) -> dict[str, Any]:
    pattern = next(p for p in _patterns(urls_chargeback.urlpatterns) + _patterns(api_chargeback.urlpatterns)
                   if p.name == name)
    return dict(pattern.pattern.regex.groupindex)  # path() converters and router regex groups alike


def url_for(name: str, statement: Statement) -> str:
    kwargs: dict[str, Any] = {}
    for key in _converters(name):
        kwargs[key] = {"pk": statement.pk, "code": statement.department.code}[key]
    return reverse(name, kwargs=kwargs)


@pytest.fixture
def priced(departments: Any, tmp_path: Path) -> dict[str, Statement]:
    site = small_site(tmp_path)
    minerva_plan()
    statements_compute(month=site["month"])
    return {s.department.code: s for s in Statement.objects.filter(is_current=True).select_related("department")}


def _queries(statement: Statement) -> list[str]:
    project = statement.lines.exclude(project=None).values_list("project_id", flat=True).first()
    return ["", f"?month={statement.month:%Y-%m}", f"?department={statement.department.code}",
            f"?month={statement.month:%Y-%m}&department={statement.department.code}&all_versions=1",
            f"?project={project}", f"?year={statement.month.year}", "?format=json"]


def _leaks(response: Any, statement: Statement) -> bool:
    body = response.content
    return (statement.department.name.encode() in body or f'"id":{statement.pk},'.encode() in body
            or str(statement.total_usd).encode() in body and statement.department.code.encode() in body)


@pytest.mark.parametrize("viewer, own, other", [("genomics_viewer", "ggs", "scb"),
                                                ("chemistry_viewer", "scb", "ggs")])
def test_a_viewer_gets_404_or_403_on_every_route_of_another_department(
        request: Any, priced: dict[str, Statement], viewer: str, own: str, other: str) -> None:
    client = login(Client(), request.getfixturevalue(viewer))
    theirs = priced[other]
    routes = page_routes() + api_routes()
    assert len(routes) >= 12, routes  # the enumeration found the routes
    tried = 0
    for name in routes:
        url = url_for(name, theirs)
        for query in _queries(theirs):
            if name in POST_ONLY:
                response = client.post(url + query, {"month": f"{theirs.month:%Y-%m}", "department": other})
                assert response.status_code in (403, 404, 405), (name, query, response.status_code)
                continue
            response = client.get(url + query)
            tried += 1
            if not _converters(name):
                # list routes answer, but with nothing of the other department
                assert response.status_code in (200, 400), (name, query, response.status_code)
            else:
                assert response.status_code in (403, 404), (name, query, response.status_code)
            assert not _leaks(response, theirs), (name, query)
    assert tried > 40
    assert Statement.objects.count() == 2  # and the POSTs computed nothing


@pytest.mark.parametrize("viewer, own", [("genomics_viewer", "ggs"), ("chemistry_viewer", "scb")])
def test_a_viewer_reads_every_route_of_their_own_department(request: Any, priced: dict[str, Statement],
                                                            viewer: str, own: str) -> None:
    client = login(Client(), request.getfixturevalue(viewer))
    mine = priced[own]
    for name in page_routes() + api_routes():
        if name in POST_ONLY:
            continue
        response = client.get(url_for(name, mine))
        assert response.status_code == 200, (name, response.status_code)
    listing = client.get(reverse("chargeback-statement-list") + f"?month={mine.month:%Y-%m}").json()["results"]
    assert [s["department"] for s in listing] == [own]
    page = client.get(reverse("chargeback") + f"?month={mine.month:%Y-%m}").content.decode()
    assert mine.department.name in page
    assert priced["ggs" if own == "scb" else "scb"].department.name not in page


def test_a_planner_sees_every_department_and_may_compute(planner_user: Any, priced: dict[str, Statement]) -> None:
    client = login(Client(), planner_user)
    listing = client.get(reverse("chargeback-statement-list") + "?month=2024-03").json()["results"]
    assert {s["department"] for s in listing} == {"ggs", "scb"}
    response = client.post(reverse("chargeback-statement-compute"), {"month": "2024-03"},
                           content_type="application/json")
    assert response.status_code == 201
    assert response.json()["total_usd"] == "29.32"
    bad = client.post(reverse("chargeback-statement-compute"), {"month": "03/2024"}, content_type="application/json")
    assert bad.status_code == 400 and "YYYY-MM" in json.dumps(bad.json())


def test_a_viewer_may_not_compute(genomics_viewer: Any, priced: dict[str, Statement]) -> None:
    client = login(Client(), genomics_viewer)
    assert client.post(reverse("chargeback-statement-compute"), {"month": "2024-03"},
                       content_type="application/json").status_code == 403
    assert client.post(reverse("chargeback-compute"), {"month": "2024-03"}).status_code == 403


def test_exports_open_and_carry_the_department_and_total(planner_user: Any, priced: dict[str, Statement]) -> None:
    from openpyxl import load_workbook
    from pypdf import PdfReader

    client = login(Client(), planner_user)
    scb = priced["scb"]
    csv_text = client.get(reverse("chargeback-statement-csv", args=[scb.pk])).content.decode()
    assert "Structural and Chemical Biology" in csv_text and csv_text.strip().endswith("25.92")
    wb = load_workbook(io.BytesIO(client.get(reverse("chargeback-statement-xlsx", args=[scb.pk])).content))
    ws = wb.active
    values = [c for row in ws.iter_rows(values_only=True) for c in row if c is not None]
    assert "Structural and Chemical Biology (scb)" in values
    amounts = [row[16] for row in ws.iter_rows(min_row=10, values_only=True) if isinstance(row[16], float)]
    assert round(sum(amounts), 2) == 25.92
    pdf = PdfReader(io.BytesIO(client.get(reverse("chargeback-statement-pdf", args=[scb.pk])).content))
    text = " ".join(page.extract_text() for page in pdf.pages)
    assert "Structural and Chemical Biology" in text and "$25.92" in text
    ggs = priced["ggs"]
    project = ggs.lines.filter(project_name="rare-disease").values_list("project_id", flat=True).first()
    pdf = PdfReader(io.BytesIO(client.get(reverse("chargeback-statement-pdf", args=[ggs.pk]) + f"?project={project}")
                               .content))
    assert "rare-disease" in " ".join(page.extract_text() for page in pdf.pages)
    chart = client.get(reverse("chargeback-ytd-json", args=["scb"]) + "?year=2024").json()
    assert [t["name"] for t in chart["data"]][:2] == ["Compute", "Storage"]
    assert chart["data"][0]["y"] == [25.92]
