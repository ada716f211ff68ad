"""An anonymous visitor (no session, no token) gets nothing from any route of the URL conf but the sign-in
forms and the health check: pages redirect to the sign-in form, the API answers 401, the admin site sends
to its own sign-in form. The role matrix (test_role_matrix.py) signs in as every role; this is the role
before any sign-in."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.planner.access.world import PLANTED
from tests.routes import ADMIN, API, routes

pytestmark = pytest.mark.django_db

PUBLIC = {"login", "admin:login", "healthz"}
# answer 404 while their sign-on is switched off (OIDC, SAML), to everyone
OFF = {"oidc_authentication_callback", "oidc_authentication_init", "oidc_logout", "saml2_login", "saml2_acs",
       "saml2_logout", "saml2_ls", "saml2_ls_post", "saml2_metadata"}
LOGOUTS = {"logout", "admin:logout"}


def _refused(route: Any, response: Any) -> bool:
    status, location = response.status_code, response.get("Location", "")
    if route.kind == ADMIN:
        return status == 302 and "/admin/login/" in location
    if route.kind == API:
        return status in (401, 403)
    return status == 302 and location.startswith("/accounts/login/")


def test_an_anonymous_visitor_gets_nothing_but_the_sign_in_forms(world: Any) -> None:
    client = Client(raise_request_exception=False)
    problems: list[str] = []
    for route in routes(world.samples_a):
        if route.name in PUBLIC or route.name in LOGOUTS:
            continue
        for method in ("get", "post"):
            response = getattr(client, method)(route.path)
            expected_off = route.name in OFF and response.status_code == 404
            if not (expected_off or _refused(route, response)):
                problems.append(f"{method.upper()} {route.path} ({route.name}): {response.status_code} "
                                f"{response.get('Location', '')}")
            if PLANTED.encode() in (b"" if getattr(response, "streaming", False) else response.content):
                problems.append(f"{method.upper()} {route.path} ({route.name}): department B's rows shown")
    assert problems == [], "\n".join(problems)


def test_the_api_schema_refuses_an_anonymous_caller_in_json(client: Any) -> None:
    """It was served to anyone; refused, its 401 was labelled application/vnd.oai.openapi (a browser saved it)."""
    for accept in ("*/*", "application/json", "application/vnd.oai.openapi"):
        response = client.get("/api/v1/schema/", HTTP_ACCEPT=accept)
        assert response.status_code == 401, accept
        assert response["Content-Type"] == "application/json", accept
        assert "credentials" in response.json()["detail"]
