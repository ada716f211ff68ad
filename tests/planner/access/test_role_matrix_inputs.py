"""The role matrix (test_role_matrix.py) with what it does not send: a POST with a form to a route a role is
refused (it POSTs only where GET answers 405), and department B's codes and ids in the query string of
every route A's viewer may open (filters such as ?department=, ?project=, ?statement=), so a view that
scopes its default rows but trusts a filter is caught by the planted string."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.planner.access.test_role_matrix import allowed
from tests.planner.access.world import PLANTED
from tests.routes import ADMIN, routes

pytestmark = pytest.mark.django_db


def _body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)


@pytest.mark.parametrize("role", ("planner", "finance", "viewer"))
def test_a_role_refused_a_route_is_refused_its_post_too(world: Any, role: str) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(world.users[role])
    problems: list[str] = []
    tried = 0
    for route in routes(world.samples_a):
        if role in allowed(route) or route.kind == ADMIN:
            continue
        tried += 1
        response = client.post(route.path, {"department": "scb", "name": "x", "confirm": "1"})
        if response.status_code not in (403, 404, 405):
            problems.append(f"POST {route.path} ({route.name}): {response.status_code} for {role}")
    assert tried >= 3  # a planner is refused only the admin-only pages
    assert problems == [], "\n".join(problems)


def test_department_bs_codes_and_ids_in_a_query_string_show_a_viewer_nothing_of_b(world: Any) -> None:
    from forecasts.models import Project

    b = world.samples_b
    project_b = Project.objects.get(department__code=b.department_code).pk
    query = {"department": b.department_code, "department_id": b.department_pk, "departments": b.department_code,
             "dept": b.department_code, "code": b.department_code, "project": project_b, "project_id": project_b,
             "statement": b.statement_pk, "cluster": "minerva", "q": PLANTED, "exclude_department": "ggs"}
    client = Client(raise_request_exception=False)
    client.force_login(world.users["viewer"])
    problems: list[str] = []
    tried = 0
    for route in routes(world.samples_a):
        if "viewer" not in allowed(route) or route.kind == ADMIN or route.name in ("logout", "admin:logout"):
            continue
        for one in query.items():
            tried += 1
            response = client.get(route.path, dict([one]))
            if response.status_code >= 500:
                problems.append(f"GET {route.path}?{one[0]}={one[1]} ({route.name}): {response.status_code}")
            body = _body(response)
            if one[0] != "q" and PLANTED.encode() in body:
                problems.append(f"GET {route.path}?{one[0]}={one[1]} ({route.name}): department B's rows shown")
    assert tried > 100
    assert problems == [], "\n".join(problems)
