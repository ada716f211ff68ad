"""/api/v1/ lists every endpoint a client can start from, not only the last router's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import login


@pytest.mark.django_db
def test_the_api_root_links_every_resource(client: Any, planner_user: Any) -> None:
    assert client.get("/api/v1/").status_code in (401, 403)
    login(client, planner_user)
    links = client.get("/api/v1/", HTTP_ACCEPT="application/json").json()
    for resource in ("departments", "designs", "forecasts", "ingestions", "usage/monthly", "chargeback/statements",
                     "storage-scans", "reports", "sequencer-plans", "optimizer-runs", "me", "schema", "docs"):
        assert links[resource] == f"http://testserver/api/v1/{resource}/", resource
    assert "" not in links
    assert client.get("/api/v1/.json").json() == links  # the format suffix names the root's own format only
    for url in links.values():  # every link resolves for its caller (GET-only listing)
        accept = "text/html" if url.endswith("/docs/") else "application/json"  # the docs are a page
        assert client.get(url, HTTP_ACCEPT=accept).status_code in (200, 405), url
