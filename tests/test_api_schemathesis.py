"""The API against its own OpenAPI schema, from outside: schemathesis over every operation.

schemathesis reads the schema the product serves (/api/v1/schema/, drf-spectacular), generates
requests for every operation (valid ones and broken ones) and sends them over HTTP to the live
test server, signed in with a personal API token as a planner (who may call every operation) and
as a department viewer (who is refused most of them). Every answer must be a 4xx with a reason or
a success, never a 5xx; a success must match the schema's body and content type. The rows the
operations read (a catalog with designs, a priced month of two departments, a sequencer plan)
are made first, and the ids schemathesis tries are theirs when it reaches for a known one.

Bounded: a few examples per operation, so the module runs in well under a minute; the fuller
run against the demo is in docs/commands.md ("The API against its schema").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance]
EXAMPLES = 4  # per operation and role: 66 operations x 2 roles in about 30 s on one core

pytestmark = [pytest.mark.slow]


@pytest.fixture
def site(transactional_db: Any, departments: Any, tmp_path: Path) -> dict[str, int]:
    """Committed rows (the live server reads them on its own connection); the ids of one row of each
    resource, by the first segment of its path, so that generated ids also reach real rows."""
    from forecasts.chargeback.services import statements_compute
    from forecasts.demand.plans import plan_import_file
    from forecasts.models import Statement
    from planner.models import Benchmark, Design, NodeType, StorageSystem
    from tests.forecasts.chargeback_data import minerva_plan, small_site
    from tests.planner.designs_data import load_catalog_and_designs

    month = small_site(tmp_path)["month"]
    minerva_plan()
    statements_compute(month=month)
    plan, _ = plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml", source="test")
    load_catalog_and_designs()
    other = Statement.objects.filter(department=departments["chemistry"], is_current=True).first()  # not the viewer's
    return {"sequencer-plans": plan.pk, "designs": Design.objects.order_by("pk").first().pk,
            "node-types": NodeType.objects.order_by("pk").first().pk, "chargeback": other.pk,
            "storage-systems": StorageSystem.objects.order_by("pk").first().pk,
            "benchmarks": Benchmark.objects.order_by("pk").first().pk, "departments": departments["chemistry"].pk}


def _token(user: Any) -> dict[str, str]:
    from planner.access.services import token_create

    _, secret = token_create(user=user, name="schemathesis", scope="write", days=1)
    return {"Authorization": f"Bearer {secret}"}


def _served_schema() -> dict[str, Any]:
    """The schema /api/v1/schema/ serves, generated the same way (drf-spectacular)."""
    from drf_spectacular.generators import SchemaGenerator

    return dict(SchemaGenerator().get_schema(request=None, public=True))


def _cases(operation: Any, known: dict[str, int]) -> Any:
    """Valid and invalid requests for one operation, some of them naming a row that exists."""
    from hypothesis import strategies as st
    from schemathesis import GenerationMode

    strategies = [operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)]
    resource = operation.path.removeprefix("/api/v1/").split("/")[0]
    if "{id}" in operation.path and resource in known:
        strategies.append(operation.as_strategy(GenerationMode.POSITIVE, path_parameters={"id": known[resource]}))
    return st.one_of(strategies)


@pytest.mark.parametrize("role", ["planner", "viewer"])
def test_every_operation_answers_as_its_schema_says_and_never_500(live_server: Any, site: dict[str, int],
                                                                  planner_user: Any, genomics_viewer: Any,
                                                                  role: str) -> None:
    from hypothesis import given

    headers = _token({"planner": planner_user, "viewer": genomics_viewer}[role])
    api = schemathesis.openapi.from_dict(_served_schema())
    failures: list[str] = []
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) > 60  # every operation, not a filtered few

    for operation in operations:
        @given(case=_cases(operation, site))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        def answers(case: Any) -> None:
            case.call_and_validate(base_url=live_server.url, headers=headers, checks=CHECKS, timeout=60)

        try:
            answers()
        except (Exception, BaseExceptionGroup) as exc:  # every operation is tried; the failures are listed together
            failures.append(f"{operation.method.upper()} {operation.path} as {role}: {exc}")
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
