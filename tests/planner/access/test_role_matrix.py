"""Every route (tests/routes.py) tried as every role: allowed routes answer, the others refuse, and
department A's viewer never sees a row of department B, whatever the route.

What each role may open is the table below (ALLOWED): a route added later falls under a
rule here or fails the test, and tests/routes.py fails loudly if it cannot fill its URL.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.planner.access.world import PLANTED
from tests.routes import ADMIN, Route, routes

pytestmark = pytest.mark.django_db

ROLES = ("admin", "planner", "finance", "viewer")
EVERYONE = frozenset(ROLES)
PLANNERS = frozenset({"admin", "planner"})
# Planner areas: pages under these paths and the API resources under /api/v1/<name>/.
PLANNER_PATHS = ("/forecasts/", "/hardware/", "/designs/", "/reports/", "/replay/", "/usage/ingest/",
                 "/usage/storage/upload/", "/usage/storage/snapshots/", "/jobs/")
PLANNER_API = ("ingestions", "storage-scans", "sequencer-plans", "forecasts", "external-series", "forecast-panels",
               "node-types", "storage-systems", "benchmarks", "designs", "optimizer-runs", "reports", "replay")
# identity mappings (usage-mappings, usage-unassigned, usage-unassigned-map) are for planners too (issue 20)
ADMIN_ONLY = {"access-overview", "access-mappings"}
MAPPING_EDITORS = {"usage-mappings", "usage-unassigned", "usage-unassigned-map"}
AUDIT = {"audit", "audit-csv"}
PLANNER_ACTIONS = {"chargeback-compute", "chargeback-statement-compute"}  # finance reads statements, planners price
PUBLIC = {"admin:login"}  # the admin site's sign-in form
OWNER_ONLY = {"access-token-revoke": "viewer"}  # the sample token is the viewer's; anyone else's revoke is a 404
# Routes that answer this status to a GET without input, or while a switch is off (OIDC, SAML), for the
# roles allowed to use them.
NEEDS_INPUT = {"forecast-plan-compare": 404, "api-replay-design": 404, "area": 404, "api-design-chance": 409,
               "designs:chance-csv": 409,  # the sample design is judged on one figure a year
               "designs:run-confidence-csv": 409,  # and its sample run bought no plan for a service level
               "oidc_authentication_callback": 404, "oidc_authentication_init": 404, "oidc_logout": 404,
               "saml2_login": 404, "saml2_acs": 404, "saml2_logout": 404, "saml2_ls": 404, "saml2_ls_post": 404,
               "saml2_metadata": 404,
               "admin:autocomplete": 403, "admin:view_on_site": 404, "admin:None:(?P<url>.*)$": 404}
LOGOUTS = {"logout", "admin:logout"}


def _expected_for_allowed(route: Route, user: Any) -> int | None:
    """The status an allowed role gets from GET when it is not 200: needs input, or a read-only admin's add."""
    if route.name in NEEDS_INPUT:
        return NEEDS_INPUT[route.name]
    if route.kind == ADMIN and route.name.endswith("_add"):
        from django.test import RequestFactory
        from django.urls import resolve

        request = RequestFactory().get(route.path)
        request.user = user
        model_admin = resolve(route.path).func.model_admin  # type: ignore[attr-defined]
        return None if model_admin.has_add_permission(request) else 403
    return None


def allowed(route: Route) -> frozenset[str]:
    if route.name in PUBLIC:
        return EVERYONE
    if route.name in OWNER_ONLY:
        return frozenset({OWNER_ONLY[route.name]})
    if route.kind == ADMIN:
        return frozenset({"admin"})  # the admin site sends everyone else to its own login
    if route.name in ADMIN_ONLY:
        return frozenset({"admin"})
    if route.name in MAPPING_EDITORS:
        return PLANNERS
    if route.name in AUDIT:
        return frozenset({"admin", "finance"})
    if route.name in PLANNER_ACTIONS:
        return PLANNERS
    if route.path.startswith(PLANNER_PATHS):
        return PLANNERS  # the sample job belongs to the admin: a viewer's own jobs are theirs (job tests)
    if route.path.startswith("/api/v1/") and route.path.removeprefix("/api/v1/").split("/")[0] in PLANNER_API:
        return PLANNERS
    return EVERYONE


def _body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)


def _try(client: Client, route: Route) -> tuple[str, Any]:
    response = client.get(route.path)
    if response.status_code == 405:  # a form's target: POST it empty
        response = client.post(route.path, {})
        return "POST", response
    return "GET", response


def _refused(route: Route, status: int) -> bool:
    if route.kind == ADMIN:
        return status == 302  # to the admin login
    return status in (403, 404)


@pytest.mark.parametrize("role", ROLES)
def test_each_role_opens_what_it_may_and_is_refused_the_rest(world: Any, role: str) -> None:
    user = world.users[role]
    client = Client(raise_request_exception=False)
    client.force_login(user)
    problems: list[str] = []
    tried = 0
    for route in routes(world.samples_a):
        method, response = _try(client, route)
        tried += 1
        status = response.status_code
        body = _body(response)
        if "_auth_user_id" not in client.session:
            client.force_login(user)  # a logout route was tried: carry on signed in
        redirect = response.get("Location", "")
        special = _expected_for_allowed(route, user) if role in allowed(route) and method == "GET" else None
        if special is not None:
            ok = status == special
        elif role in allowed(route):
            ok = (status in (200, 302) if method == "GET" else status in (200, 201, 202, 204, 302, 400)) \
                and ("login" not in redirect or route.name in LOGOUTS)
        else:
            ok = _refused(route, status)
        if not ok:
            problems.append(f"{method} {route.path} ({route.name}): {status} for {role}")
        if role == "viewer" and PLANTED.encode() in body:
            problems.append(f"{method} {route.path} ({route.name}): department B's rows shown to A's viewer")
    assert tried > 150
    assert problems == [], "\n".join(problems)


def test_a_viewer_gets_nothing_of_another_departments_objects_on_any_route(world: Any) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(world.users["viewer"])
    own = {r.path for r in routes(world.samples_a)}
    problems: list[str] = []
    theirs = [r for r in routes(world.samples_b) if r.path not in own]
    assert len(theirs) >= 8, [r.path for r in theirs]  # statements, their department's pages and charts
    for route in theirs:
        method, response = _try(client, route)
        if not _refused(route, response.status_code):
            problems.append(f"{method} {route.path} ({route.name}): {response.status_code}")
        if PLANTED.encode() in _body(response):
            problems.append(f"{method} {route.path} ({route.name}): department B's rows shown")
    assert problems == [], "\n".join(problems)


def test_the_planted_string_is_there_to_be_found(world: Any) -> None:
    """The leak check can fail: B's viewer and a planner do see B's planted rows."""
    for who in ("viewer_b", "planner"):
        client = Client()
        client.force_login(world.users[who])
        statement = client.get(f"/chargeback/statements/{world.samples_b.statement_pk}.csv")
        assert PLANTED.encode() in statement.content, who
