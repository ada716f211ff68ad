"""OpenID Connect sign-on against a real provider (django-oauth-toolkit in a second process on
127.0.0.1): login, the group claim to a role, logout (here, and at the provider's end-session endpoint),
and a group removed at the provider taking the role away at the next login."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.test import override_settings

from tests.planner.access.servers import answers_200, free_port, serving

ROOT = Path(__file__).resolve().parents[3]
CLIENT_ID, CLIENT_SECRET = "capacity-planner", "a-client-secret-for-the-tests"
pytestmark = pytest.mark.slow


def _rsa_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


class Provider:
    def __init__(self, url: str, env: dict[str, str]) -> None:
        self.url, self.env = url, env

    def set_groups(self, username: str, groups: list[str]) -> None:
        subprocess.run([sys.executable, "-m", "tests.oidc_provider.serve", "groups", username, ",".join(groups)],
                       cwd=ROOT, env=self.env, check=True, timeout=60)


@pytest.fixture(scope="module")
def provider(live_server: Any, tmp_path_factory: Any) -> Iterator[Provider]:
    port = free_port()
    env = {**os.environ, "OP_DB": str(tmp_path_factory.mktemp("op") / "op.sqlite3"), "OP_RSA_KEY": _rsa_pem()}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    users = [{"username": "alice", "password": "alice-pw", "email": "alice@example.org",
              "groups": ["hpc-planners", "staff"]}]
    url = f"http://127.0.0.1:{port}"
    with serving([sys.executable, "-m", "tests.oidc_provider.serve", "run", str(port), CLIENT_ID,
                  CLIENT_SECRET, f"{live_server.url}/oidc/callback/", json.dumps(users)],
                 answers_200(f"{url}/o/.well-known/openid-configuration"), "the test OIDC provider", env=env):
        yield Provider(url, env)


@pytest.fixture
def oidc_on(provider: Provider) -> Iterator[None]:
    with override_settings(
        OIDC_ENABLED=True, OIDC_RP_CLIENT_ID=CLIENT_ID, OIDC_RP_CLIENT_SECRET=CLIENT_SECRET,
        OIDC_OP_AUTHORIZATION_ENDPOINT=f"{provider.url}/o/authorize/",
        OIDC_OP_TOKEN_ENDPOINT=f"{provider.url}/o/token/", OIDC_OP_USER_ENDPOINT=f"{provider.url}/o/userinfo/",
        OIDC_OP_JWKS_ENDPOINT=f"{provider.url}/o/.well-known/jwks.json",
        AUTHENTICATION_BACKENDS=["planner.access.throttle.ThrottleBackend", "planner.access.backends.OIDCBackend",
                                 "django.contrib.auth.backends.ModelBackend"],
    ):
        yield


def _sign_in(session: requests.Session, live_url: str, provider: Provider, *,
             password: str | None) -> requests.Response:
    """Start at the product's sign-on button; answer the provider's login form when it asks."""
    response = session.get(f"{live_url}/oidc/authenticate/", timeout=30)
    if password is not None:
        assert response.url.startswith(f"{provider.url}/login/"), response.url
        csrf = session.cookies.get("op_csrftoken")
        after = requests.utils.unquote(response.url.split("next=", 1)[1])
        response = session.post(f"{provider.url}/login/", timeout=30, data={
            "username": "alice", "password": password, "csrfmiddlewaretoken": csrf, "next": after})
    return response


def test_sign_on_maps_the_group_claim_to_a_role_and_a_removed_group_loses_it(
        transactional_db: Any, live_server: Any, provider: Provider, oidc_on: None) -> None:
    from django.contrib.auth.models import User

    from planner.access.services import mappings_import

    mappings_import(text="group,role\nhpc-planners,planner\n", filename="m.csv")
    session = requests.Session()
    landed = _sign_in(session, live_server.url, provider, password="alice-pw")
    assert landed.status_code == 200 and landed.url == f"{live_server.url}/", landed.url
    me = session.get(f"{live_server.url}/api/v1/me/", timeout=10).json()
    assert me["username"] == "alice" and me["role"] == "planner"
    assert session.get(f"{live_server.url}/designs/", timeout=10).status_code == 200
    user = User.objects.get(username="alice")
    assert user.email == "alice@example.org" and not user.has_usable_password()
    assert user.sign_on.groups == ["hpc-planners", "staff"] and user.sign_on.source == "oidc"

    # logging out ends the product's session
    logout = session.post(f"{live_server.url}/accounts/logout/", timeout=10,
                          headers={"X-CSRFToken": session.cookies.get("csrftoken") or ""})
    assert logout.url.startswith(f"{live_server.url}/accounts/login/")
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)

    # the provider drops alice from hpc-planners: her next sign-on takes the role away
    provider.set_groups("alice", ["staff"])
    again = _sign_in(session, live_server.url, provider, password=None)  # still signed in at the provider
    assert again.url == f"{live_server.url}/", again.url
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).json()["role"] is None
    assert session.get(f"{live_server.url}/designs/", timeout=10).status_code == 403
    assert User.objects.get(username="alice").sign_on.reasons == ["no group of this user is mapped to a role"]


def test_logging_out_ends_the_session_here_and_at_the_providers_end_session_endpoint(
        transactional_db: Any, live_server: Any, provider: Provider, oidc_on: None) -> None:
    from urllib.parse import parse_qs, urlsplit

    end = requests.get(f"{provider.url}/o/.well-known/openid-configuration", timeout=10).json()["end_session_endpoint"]
    with override_settings(OIDC_OP_LOGOUT_ENDPOINT=end):
        session = requests.Session()
        _sign_in(session, live_server.url, provider, password="alice-pw")
        assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code == 200
        # the navigation's "Log out" ends the session here and sends the browser to the provider
        out = session.post(f"{live_server.url}/accounts/logout/", timeout=10, allow_redirects=False,
                           headers={"X-CSRFToken": session.cookies.get("csrftoken") or ""})
        assert out.status_code == 302 and out.headers["Location"].startswith(f"{end}?"), out.headers.get("Location")
        query = parse_qs(urlsplit(out.headers["Location"]).query)
        assert query["client_id"] == [CLIENT_ID] and query["id_token_hint"][0].count(".") == 2
        assert query["post_logout_redirect_uri"] == [f"{live_server.url}/accounts/login/"]
        assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)
        # the provider asks alice to confirm (django-oauth-toolkit does, as the spec says an OP should), ends
        # its own session and sends the browser back to the login page
        confirm = session.get(out.headers["Location"], timeout=10)
        assert "Confirm Logout" in confirm.text, confirm.text[:2000]
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', confirm.text))
        back = session.post(confirm.url, data={**{k: html.unescape(v) for k, v in fields.items()}, "allow": "Logout"},
                            timeout=10)
        assert back.status_code == 200 and back.url == f"{live_server.url}/accounts/login/", back.text[:2000]
        # so the next sign-on asks for the password again instead of signing alice straight back in
        again = session.get(f"{live_server.url}/oidc/authenticate/", timeout=30)
        assert again.url.startswith(f"{provider.url}/login/"), again.url


def test_a_failed_sign_on_lands_on_the_login_page_saying_so(transactional_db: Any, live_server: Any,
                                                           provider: Provider, oidc_on: None) -> None:
    session = requests.Session()
    response = session.get(f"{live_server.url}/oidc/callback/?code=forged&state=forged", timeout=10)
    assert response.url.startswith(f"{live_server.url}/accounts/login/?sso=failed")
    assert "Signing in through your institution did not succeed" in response.text
    assert "Sign in with your institution" in session.get(f"{live_server.url}/accounts/login/", timeout=10).text


def test_while_oidc_is_off_its_routes_are_404(db: Any, client: Any) -> None:
    assert client.get("/oidc/authenticate/").status_code == 404
