"""What schemathesis found against the demo: the API's schema said one thing and its answers another,
and some requests answered 500. Each answer is checked here against the served OpenAPI schema
(schemathesis validates the test client's answers against it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_schema(client: Any, admin_user: Any) -> Any:
    import schemathesis

    client.force_login(admin_user)
    raw = client.get("/api/v1/schema/?format=json").json()
    client.logout()
    return schemathesis.openapi.from_dict(raw)


def _call(api_schema: Any, client: Any, pattern: str, path: str, user: Any) -> Any:
    """GET ``path`` as ``user`` and validate the answer against the schema's ``pattern`` (raises on a lie)."""
    import requests
    from schemathesis import Response

    client.force_login(user)
    answer = client.get(path)
    assert answer.status_code == 200, answer.content
    response = Response(status_code=answer.status_code, headers={k: [v] for k, v in answer.items()},
                        content=answer.content, request=requests.Request("GET", f"http://testserver{path}").prepare(),
                        elapsed=0.0, verify=False)
    api_schema[pattern]["GET"].validate_response(response)
    return answer


def test_a_sequencer_plan_and_its_versions_answer_as_the_schema_says(api_schema: Any, client: Any,
                                                                     planner_user: Any) -> None:
    """An imported plan has no author and may name no department (null); /versions/ is a list, not one plan."""
    from forecasts.demand.plans import plan_import_file

    plan, _ = plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml", source="test")
    assert plan.created_by is None and plan.department is None
    one = _call(api_schema, client, "/api/v1/sequencer-plans/{id}/", f"/api/v1/sequencer-plans/{plan.pk}/",
                planner_user)
    assert one.json()["created_by"] is None
    versions = _call(api_schema, client, "/api/v1/sequencer-plans/{id}/versions/",
                     f"/api/v1/sequencer-plans/{plan.pk}/versions/", planner_user)
    assert [v["id"] for v in versions.json()] == [plan.pk]
    listed = _call(api_schema, client, "/api/v1/sequencer-plans/", "/api/v1/sequencer-plans/", planner_user)
    assert listed.json()["results"][0]["department"] is None


@pytest.mark.parametrize("document", [None, True, [], "a plan", 3])
def test_a_plan_document_that_is_not_an_object_is_refused_with_a_reason(client: Any, planner_user: Any,
                                                                        document: Any) -> None:
    """A form field is read as JSON text: 'null' or 'true' there answered 500 (dict(None)); JSON bodies too."""
    client.force_login(planner_user)
    form = client.post("/api/v1/sequencer-plans/", {"document": json.dumps(document)})
    assert form.status_code == 400, form.content
    assert "expected the plan as a JSON object" in form.json()["document"][0]
    body = client.post("/api/v1/sequencer-plans/", {"document": document}, content_type="application/json")
    assert body.status_code == 400, body.content
    assert ("may not be null" if document is None else "expected the plan as a JSON object") in \
        body.json()["document"][0]


def test_a_statement_month_is_the_yyyy_mm_the_schema_says(api_schema: Any, client: Any, finance_user: Any,
                                                          departments: Any, tmp_path: Path) -> None:
    """The schema said an ISO date; the body has always been 2024-03."""
    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import minerva_plan, small_site

    site = small_site(tmp_path)
    minerva_plan()
    statements_compute(month=site["month"])
    listed = _call(api_schema, client, "/api/v1/chargeback/statements/", "/api/v1/chargeback/statements/",
                   finance_user)
    rows = listed.json()["results"]
    assert rows and rows[0]["month"] == "2024-03"
    _call(api_schema, client, "/api/v1/chargeback/statements/{id}/", f"/api/v1/chargeback/statements/{rows[0]['id']}/",
          finance_user)


def test_deleting_a_node_type_that_benchmarks_cite_answers_409_saying_so(client: Any, admin_user: Any) -> None:
    """It answered 500 (ProtectedError); the node type is kept."""
    from planner.models import Benchmark, NodeType
    from tests.planner.designs_data import load_catalog_and_designs

    load_catalog_and_designs()
    cited = Benchmark.objects.values_list("node_type", flat=True).first()
    client.force_login(admin_user)
    response = client.delete(f"/api/v1/node-types/{cited}/")
    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert "cannot be deleted while other rows refer to it" in detail and "benchmark" in detail
    assert NodeType.objects.filter(pk=cited).exists()


@pytest.mark.parametrize("fullness", [0, -0.5, 1.5])
def test_a_storage_system_put_with_a_fullness_limit_outside_0_1_is_refused_with_the_field(
        client: Any, planner_user: Any, fullness: float) -> None:
    """It answered 500 (the table's CHECK constraint); the catalog file already refused it."""
    from planner.models import StorageSystem
    from tests.planner.designs_data import load_catalog_and_designs

    load_catalog_and_designs()
    system = StorageSystem.objects.order_by("pk").first()
    client.force_login(planner_user)
    body = client.get(f"/api/v1/storage-systems/{system.pk}/").json()
    response = client.put(f"/api/v1/storage-systems/{system.pk}/", {**body, "fullness_limit": fullness},
                          content_type="application/json")
    assert response.status_code == 400, response.content
    assert "must be in (0, 1]" in response.json()["fullness_limit"][0]
    patched = client.patch(f"/api/v1/storage-systems/{system.pk}/", {"fullness_limit": fullness},
                           content_type="application/json")
    assert patched.status_code == 400, patched.content


def test_a_row_the_database_refuses_answers_400_naming_its_rule_not_500(rf: Any) -> None:
    """The net under the serializers: PostgreSQL's own refusal of a row, as the middleware sees it."""
    from django.db import IntegrityError, connection, transaction

    from planner.web.edge import RejectMalformedInput
    from tests.planner.designs_data import load_catalog_and_designs

    load_catalog_and_designs()
    with pytest.raises(IntegrityError) as refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE planner_storagesystem SET fullness_limit = 0")
    response = RejectMalformedInput(lambda r: None).process_exception(rf.put("/api/v1/storage-systems/1/"),
                                                                      refused.value)
    assert response is not None and response.status_code == 400
    assert "storagesystem_fullness_limit_0_1" in json.loads(response.content)["detail"]
