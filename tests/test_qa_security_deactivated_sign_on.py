"""An admin who deactivates a user (admin site: "Active" unticked, the way to cut off someone who left)
expects them out at once. For a local account Django does that: the session's user is refused on the
next request. For a user signed in through OpenID Connect or LDAP it did not: their backends' get_user
returned the user whatever is_active said, so the departed user's open session kept every page of their
role until it expired (12 hours). Against the real OIDC provider (and slapd, skipped where absent)."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from django.test import Client

from tests.planner.access.test_ldap import ldap_on, slapd  # noqa: F401 - fixtures
from tests.planner.access.test_ldap import pytestmark as ldap_marks
from tests.planner.access.test_oidc import Provider, _sign_in, oidc_on, provider  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow


def _deactivate(username: str) -> None:
    from django.contrib.auth.models import User

    user = User.objects.get(username=username)
    user.is_active = False
    user.save(update_fields=["is_active"])


def test_a_deactivated_oidc_user_loses_the_open_session_at_once(
        transactional_db: Any, live_server: Any, provider: Provider, oidc_on: None) -> None:  # noqa: F811
    from planner.access.services import mappings_import

    mappings_import(text="group,role\nhpc-planners,planner\n", filename="m.csv")
    session = requests.Session()
    _sign_in(session, live_server.url, provider, password="alice-pw")
    assert session.get(f"{live_server.url}/designs/", timeout=10, allow_redirects=False).status_code == 200
    _deactivate("alice")
    page = session.get(f"{live_server.url}/designs/", timeout=10, allow_redirects=False)
    assert page.status_code == 302 and page.headers["Location"].startswith("/accounts/login/")
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)


def _ldap_marks(test: Any) -> Any:
    """test_ldap's skips, saying why, where slapd or python-ldap is absent."""
    for mark in ldap_marks:
        test = mark(test)
    return test


@_ldap_marks
def test_a_deactivated_ldap_user_loses_the_open_session_at_once(db: Any, ldap_on: str) -> None:  # noqa: F811
    from django.contrib.auth.models import User

    from planner.access.services import mappings_import

    mappings_import(text="group,role\nhpc-planners,planner\n", filename="m.csv")
    client = Client()
    assert client.post("/accounts/login/", {"username": "lee", "password": "lee-directory-pw"}).status_code == 302
    assert client.get("/designs/").status_code == 200
    assert User.objects.get(username="lee").has_usable_password() is False
    _deactivate("lee")
    page = client.get("/designs/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
