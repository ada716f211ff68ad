"""Every input is checked at the edge: malformed query parameters and ids sent to every route of
the URL conf (tests/routes.py), as every role, answer 400 or 404 with a message, never 500.

The sweep is generated, so a route added later is tried without anyone listing it.  Each
route gets, as each role, one request per kind of bad value (a NUL byte, a huge number, a
negative number, a wrong type / unknown choice) in every query parameter any view reads, and
one request with its ids replaced by an id too large for the database.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.routes import ADMIN, Route, routes

# every query parameter name a view of the product reads (request.GET / query_params), any role
PARAMS = ("year", "month", "start", "end", "from", "to", "cluster", "department", "dept", "metric", "kind",
          "page", "limit", "offset", "format", "q", "sort", "order", "snapshot", "filesystem", "horizon",
          "version", "plan", "design", "fit", "series", "chart", "group", "by", "period", "status", "run",
          "scenario", "project", "queue", "qos", "user", "compare", "a", "b", "level", "years", "next")
BAD_VALUES = {
    "nul": "2024\x00<script>",
    "huge": "99999999999999999999999",
    "negative": "-5",
    "wrong type": "not-a-number-or-choice",
}
ROLES = ("admin", "planner", "finance", "viewer")
HUGE_ID = 99999999999999999999  # past PostgreSQL's bigint


def _swept(world: Any) -> list[Route]:
    from dataclasses import replace

    s = world.samples_a
    # routes added by the designs area after tests/routes.py was written (move them into SAMPLE_KWARGS)
    extra = {"api-design-service-level": {"pk": s.design_pk}, "designs:service-level": {"pk": s.design_pk},
             "designs:use-newest-forecasts": {"pk": s.design_pk}, "designs:from-forecast": {"fit": s.forecast_fit_pk}}
    samples = replace(s, extra={**extra, **s.extra})
    return [r for r in routes(samples) if r.kind != ADMIN and not r.name.startswith("api-docs")]


def _with_huge_ids(route: Route) -> str | None:
    """The route's path with every integer id replaced by one past bigint (None: it has no id)."""
    ints = [v for v in route.kwargs.values() if isinstance(v, int)]
    if not ints:
        return None
    path = route.path
    for value in ints:
        path = re.sub(rf"(?<![0-9]){value}(?![0-9])", str(HUGE_ID), path, count=1)
    return path


RAISED: list[str] = []  # the exception behind the last 500, so a failure names its cause


def _remember(sender: Any, request: Any = None, **_: Any) -> None:
    import sys
    import traceback

    exc = sys.exc_info()[1]
    if exc is not None:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        RAISED.append(f"{type(exc).__name__}: {str(exc)[:160]} at {frame.filename.rsplit('/', 3)[-3:]}:{frame.lineno}")


def _problem(response: Any, what: str) -> str | None:
    if response.status_code >= 500:
        return f"{what}: {response.status_code} ({RAISED[-1] if RAISED else 'no exception seen'})"
    if response.status_code == 400:
        body = response.content.decode(errors="replace")
        if not body.strip() or "Bad Request (400)" in body and len(body) < 40:
            return f"{what}: 400 without a message"
    return None


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_malformed_parameters_and_ids_on_every_route_answer_400_or_404_never_500(
        world: Any, role: str, client: Any) -> None:
    from django.core.signals import got_request_exception

    client.raise_request_exception = False  # a view's exception must come back as the 500 a user would see
    got_request_exception.connect(_remember, dispatch_uid="malformed-input-sweep")
    client.force_login(world.users[role])
    problems: list[str] = []
    for route in _swept(world):
        for name, value in BAD_VALUES.items():
            response = client.get(route.path, dict.fromkeys(PARAMS, value))
            if problem := _problem(response, f"{route} ?…={name}"):
                problems.append(problem)
        huge = _with_huge_ids(route)
        if huge is not None:
            response = client.get(huge)
            if problem := _problem(response, f"{route.name} {huge}"):
                problems.append(problem)
            elif response.status_code not in (302, 400, 403, 404, 405):  # 405: a POST-only route
                problems.append(f"{route.name} {huge}: {response.status_code} for an id that cannot exist")
    assert not problems, "\n".join(problems)


@pytest.mark.django_db
def test_a_nul_byte_in_a_query_or_a_form_is_refused_with_a_message_naming_the_field(world: Any, client: Any) -> None:
    client.force_login(world.users["planner"])
    response = client.get("/usage/", {"cluster": "a\x00b"})
    assert response.status_code == 400
    assert "the query parameter &#x27;cluster&#x27; contains a NUL byte" in response.content.decode()
    response = client.get("/api/v1/departments/", {"q": "\x00"})
    assert response.status_code == 400 and "'q' contains a NUL byte" in response.json()["detail"]
    response = client.post(f"/forecasts/plans/{world.samples_a.sequencer_plan_pk}/edit/", "name=x%00",
                           content_type="application/x-www-form-urlencoded")  # what a browser's form sends
    assert response.status_code == 400 and "the form field &#x27;name&#x27;" in response.content.decode()


@pytest.mark.django_db
def test_an_id_the_database_cannot_hold_is_a_404_and_a_non_numeric_one_a_400(world: Any, client: Any) -> None:
    client.force_login(world.users["planner"])
    assert client.get(f"/jobs/{HUGE_ID}/").status_code == 404
    response = client.get("/forecasts/plans/compare/", {"a": "seven", "b": "1"})
    assert response.status_code == 400 and "expected a number but got &#x27;seven&#x27;" in response.content.decode()


@pytest.mark.django_db
def test_an_unknown_api_address_answers_json_and_an_unknown_page_the_sites_page(world: Any, client: Any) -> None:
    client.force_login(world.users["planner"])
    response = client.get("/api/v1/no-such-endpoint/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "/api/v1/no-such-endpoint/" in response.json()["detail"] and "/api/v1/docs/" in response.json()["detail"]
    page = client.get("/no-such-area/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert "Not found" in page.content.decode()


def test_a_server_error_under_the_api_is_json_and_elsewhere_a_page() -> None:
    from django.test import RequestFactory

    from planner.web.edge import server_error

    api = server_error(RequestFactory().get("/api/v1/designs/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
    page = server_error(RequestFactory().get("/designs/"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
