"""Personal API tokens: shown once and stored hashed, read-only ones cannot write, expired and revoked
ones are refused with a reason, and the OpenAPI schema documents them."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from planner.access.models import ApiToken
from planner.access.services import token_create
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _bearer(key: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


def test_a_token_made_on_the_profile_page_is_shown_once_and_stored_hashed(planner_user: Any) -> None:
    client = login(Client(), planner_user)
    page = client.post("/access/profile/", {"name": "nightly export", "scope": "read", "days": "30"})
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    key = re.search(r'value="(cpt_[0-9a-f]{8}_[^"]+)"', page.content.decode()).group(1)  # type: ignore[union-attr]
    token = ApiToken.objects.get(user=planner_user)
    assert key not in str(list(ApiToken.objects.values_list()))  # only its hash and prefix are kept
    assert key.startswith(f"cpt_{token.prefix}_") and token.scope == "read"
    assert 29 <= (token.expires_at - timezone.now()).days <= 30
    assert key not in client.get("/access/profile/").content.decode()  # never shown again
    me = Client().get("/api/v1/me/", **_bearer(key))
    assert me.status_code == 200 and me.json()["role"] == "planner"


def test_a_read_only_token_may_read_but_not_write(planner_user: Any, departments: Any) -> None:
    _, key = token_create(user=planner_user, name="ro", scope="read", days=7)
    client = Client()
    assert client.get("/api/v1/departments/", **_bearer(key)).status_code == 200
    refused = client.post("/api/v1/chargeback/statements/compute/", {"month": "2024-03"},
                          content_type="application/json", **_bearer(key))
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]


def test_a_read_write_token_may_write_what_its_user_may(planner_user: Any, genomics_viewer: Any,
                                                        departments: Any) -> None:
    _, planner_key = token_create(user=planner_user, name="rw", scope="write", days=7)
    _, viewer_key = token_create(user=genomics_viewer, name="rw", scope="write", days=7)
    body = {"month": "03/2024"}
    answer = Client().post("/api/v1/chargeback/statements/compute/", body, content_type="application/json",
                           **_bearer(planner_key))
    assert answer.status_code == 400 and "YYYY-MM" in answer.content.decode()  # got past auth to validation
    viewer = Client().post("/api/v1/chargeback/statements/compute/", body, content_type="application/json",
                           **_bearer(viewer_key))
    assert viewer.status_code == 403  # the token acts with its user's role, no more


def test_expired_revoked_and_unknown_tokens_are_refused_saying_why(planner_user: Any) -> None:
    expired, expired_key = token_create(user=planner_user, name="old", scope="read", days=1)
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    revoked, revoked_key = token_create(user=planner_user, name="gone", scope="read", days=1)
    client = login(Client(), planner_user)
    assert client.post(f"/access/profile/tokens/{revoked.pk}/revoke/").status_code == 302
    anonymous = Client()
    for key, reason in ((expired_key, "expired"), (revoked_key, "revoked"), ("cpt_00000000_nope", "Unknown")):
        response = anonymous.get("/api/v1/me/", **_bearer(key))
        assert response.status_code == 401 and reason in response.json()["detail"], key
        assert response["WWW-Authenticate"].startswith("Bearer")


def test_nobody_revokes_someone_elses_token(planner_user: Any, genomics_viewer: Any) -> None:
    token, _ = token_create(user=planner_user, name="mine", scope="read", days=7)
    client = login(Client(), genomics_viewer)
    assert client.post(f"/access/profile/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_the_profile_refuses_a_token_without_expiry_or_longer_than_a_year(planner_user: Any) -> None:
    client = login(Client(), planner_user)
    for days in ("0", "400", ""):
        response = client.post("/access/profile/", {"name": "x", "scope": "write", "days": days})
        assert response.status_code == 400, days
    assert not ApiToken.objects.exists()


def test_the_openapi_schema_documents_the_bearer_tokens(planner_user: Any) -> None:
    client = login(Client(), planner_user)
    schema = client.get("/api/v1/schema/?format=json").json()
    scheme = schema["components"]["securitySchemes"]["personalToken"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer" and "read-only" in scheme["description"]
    assert {"personalToken": []} in schema["paths"]["/api/v1/me/"]["get"]["security"]
