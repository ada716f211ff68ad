"""SAML 2.0 sign-on against a real identity provider (pysaml2's IdP, tests/saml_idp/, in a second process on
127.0.0.1 with its own key and certificate): metadata exchanged both ways over HTTP, login through the
product's endpoints (AuthnRequest by HTTP-Redirect, signed; the assertion by HTTP-POST, signed), a group
attribute to a role, a group removed at the IdP taking the role away at the next login, and single logout."""

from __future__ import annotations

import base64
import datetime as dt
import json
import shutil
import sys
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import requests
from django.test import override_settings

from tests.planner.access.servers import answers_200, free_port, serving

SAML = "/accounts/login/saml2"
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("xmlsec1") is None,
                                 reason="SAML tests need Debian's xmlsec1 (apt-get install xmlsec1; .ci/run does)")]


def _key_and_cert(folder: Path, name: str) -> tuple[Path, Path]:
    """A fresh RSA key and a self-signed certificate, as an IdP or SP operator would make them."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=30)).sign(key, hashes.SHA256()))
    key_path, cert_path = folder / f"{name}.key", folder / f"{name}.crt"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


class Form(HTMLParser):
    """The first form of a page: its action and its inputs (the IdP's login form, its POST to the ACS)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = a.get("action") or ""
        elif tag == "input" and a.get("name"):
            self.fields[str(a["name"])] = a.get("value") or ""


class IdP:
    def __init__(self, url: str, folder: Path) -> None:
        self.url, self.folder = url, folder

    def set_groups(self, username: str, groups: list[str]) -> None:
        users = json.loads((self.folder / "users.json").read_text())
        users[username]["groups"] = groups
        (self.folder / "users.json").write_text(json.dumps(users))

    def sessions(self) -> dict[str, str]:
        """The IdP's sessions: cookie -> username."""
        return dict(requests.get(f"{self.url}/sessions", timeout=10).json())


@pytest.fixture(scope="module")
def idp(live_server: Any, tmp_path_factory: Any) -> Iterator[IdP]:
    folder = tmp_path_factory.mktemp("idp")
    _key_and_cert(folder, "idp")
    (folder / "users.json").write_text(json.dumps({"carol": {"password": "carol-pw", "mail": "carol@example.org",
                                                             "groups": ["hpc-planners", "staff"]}}))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving([sys.executable, "-m", "tests.saml_idp.serve", str(port), str(folder),
                  f"{live_server.url}{SAML}/metadata/"],
                 answers_200(f"{url}/metadata"), "the test SAML IdP"):
        yield IdP(url, folder)


@pytest.fixture(scope="module")
def sp_key(tmp_path_factory: Any) -> tuple[Path, Path]:
    """The product's signing key and certificate (the IdP keeps the metadata it fetched once, as IdPs do)."""
    return _key_and_cert(tmp_path_factory.mktemp("sp"), "sp")


@pytest.fixture
def saml_on(idp: IdP, live_server: Any, sp_key: tuple[Path, Path]) -> Iterator[None]:
    key, cert = sp_key
    idp.set_groups("carol", ["hpc-planners", "staff"])
    with override_settings(
        SAML_ENABLED=True, SAML_IDP_METADATA_URL=f"{idp.url}/metadata", SAML_SP_KEY_FILE=str(key),
        SAML_SP_CERT_FILE=str(cert), SAML_WANT_RESPONSE_SIGNED=True,
        AUTHENTICATION_BACKENDS=["planner.access.throttle.ThrottleBackend",
                                 "planner.access.saml_backend.PlannerSaml2Backend",
                                 "django.contrib.auth.backends.ModelBackend"],
    ):
        yield


def _sign_in(session: requests.Session, live_url: str, idp: IdP, *, password: str | None,
             start: str = f"{SAML}/login/", tamper: Callable[[str], str] | None = None) -> requests.Response:
    """From the product's SAML button to the IdP (its login form when it asks) and back through the ACS."""
    page = session.get(f"{live_url}{start}", timeout=30)
    assert page.url.startswith(f"{idp.url}/sso/redirect?SAMLRequest="), page.url
    assert "Signature=" in page.url  # the AuthnRequest is signed with the SP's key
    if password is not None:
        login = Form(page.text)
        assert login.action == "/login", page.text
        page = session.post(f"{idp.url}/login", timeout=30,
                            data={**login.fields, "username": "carol", "password": password})
    assert page.status_code == 200, page.text
    to_acs = Form(page.text)
    assert to_acs.action == f"{live_url}{SAML}/acs/" and "SAMLResponse" in to_acs.fields, page.text
    if tamper is not None:
        xml = base64.b64decode(to_acs.fields["SAMLResponse"]).decode()
        to_acs.fields["SAMLResponse"] = base64.b64encode(tamper(xml).encode()).decode()
    return session.post(to_acs.action, data=to_acs.fields, timeout=30)


def test_metadata_is_exchanged_and_a_group_attribute_maps_to_a_role_until_the_group_is_removed(
        transactional_db: Any, live_server: Any, idp: IdP, saml_on: None) -> None:
    from django.contrib.auth.models import User

    from planner.access.services import mappings_import

    metadata = requests.get(f"{live_server.url}{SAML}/metadata/", timeout=10)
    assert metadata.status_code == 200 and b"AssertionConsumerService" in metadata.content
    assert f"{live_server.url}{SAML}/acs/".encode() in metadata.content and b"X509Certificate" in metadata.content

    mappings_import(text="group,role,departments,source\nhpc-planners,planner,,saml\n", filename="m.csv")
    session = requests.Session()
    landed = _sign_in(session, live_server.url, idp, password="carol-pw", start=f"{SAML}/login/?next=/designs/")
    assert landed.status_code == 200 and landed.url == f"{live_server.url}/designs/", landed.url
    me = session.get(f"{live_server.url}/api/v1/me/", timeout=10).json()
    assert me["username"] == "carol" and me["role"] == "planner"
    user = User.objects.get(username="carol")
    assert user.email == "carol@example.org" and not user.has_usable_password()
    assert user.sign_on.source == "saml" and user.sign_on.groups == ["hpc-planners", "staff"]

    # the IdP drops carol from hpc-planners: her next sign-on loses the role (the IdP session still
    # holds, so no password is asked)
    idp.set_groups("carol", ["staff"])
    for cookie in [c for c in session.cookies if not c.domain.startswith("127.0.0.1")]:
        session.cookies.clear(cookie.domain, cookie.path, cookie.name)  # the product's cookies only: a new visit
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)
    again = _sign_in(session, live_server.url, idp, password=None)
    assert again.url == f"{live_server.url}/", again.url
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).json()["role"] is None
    assert session.get(f"{live_server.url}/designs/", timeout=10).status_code == 403
    assert User.objects.get(username="carol").sign_on.reasons == ["no group of this user is mapped to a role"]


def test_logging_out_ends_the_session_here_and_at_the_idp(transactional_db: Any, live_server: Any, idp: IdP,
                                                             saml_on: None) -> None:
    session = requests.Session()
    _sign_in(session, live_server.url, idp, password="carol-pw")
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code == 200
    idp_cookie = session.cookies.get("idp_session")
    assert idp.sessions().get(idp_cookie) == "carol"
    # the navigation's "Log out" (the SAML route saml2_logout does the same)
    out = session.post(f"{live_server.url}/accounts/logout/", timeout=30,
                       headers={"X-CSRFToken": session.cookies.get("csrftoken") or ""})
    # product -> IdP (signed LogoutRequest) -> product's ls/ (signed LogoutResponse) -> the login page
    assert out.url.startswith(f"{live_server.url}/accounts/login/"), out.url
    hops = [r.url.split("?")[0] for r in out.history]
    assert hops[1:3] == [f"{idp.url}/slo/redirect", f"{live_server.url}{SAML}/ls/"], hops
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)
    assert idp_cookie not in idp.sessions() and "idp_session" not in session.cookies
    # and the next sign-on asks for the password again
    page = session.get(f"{live_server.url}{SAML}/login/", timeout=30)
    assert Form(page.text).action == "/login"


def test_an_assertion_for_a_local_account_is_refused(transactional_db: Any, live_server: Any, idp: IdP,
                                                     saml_on: None) -> None:
    from django.contrib.auth.models import User

    User.objects.create_user("carol", password="a-local-password")  # a break-glass account of that name
    session = requests.Session()
    landed = _sign_in(session, live_server.url, idp, password="carol-pw")
    assert landed.url.startswith(f"{live_server.url}/accounts/login/?sso=failed"), landed.url
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)


def test_an_assertion_changed_on_the_way_is_refused(transactional_db: Any, live_server: Any, idp: IdP,
                                                     saml_on: None) -> None:
    """The IdP's signature covers the groups: a browser that edits them in transit gets nothing."""
    from planner.access.services import mappings_import

    mappings_import(text="group,role\nhpc-admins,admin\n", filename="m.csv")
    def promote(xml: str) -> str:
        assert ">hpc-planners<" in xml, xml
        return xml.replace(">hpc-planners<", ">hpc-admins<")

    session = requests.Session()
    landed = _sign_in(session, live_server.url, idp, password="carol-pw", tamper=promote)
    assert landed.url.startswith(f"{live_server.url}/accounts/login/?sso=failed"), landed.url
    assert session.get(f"{live_server.url}/api/v1/me/", timeout=10).status_code in (401, 403)


def test_a_forged_assertion_is_refused(transactional_db: Any, live_server: Any, idp: IdP, saml_on: None) -> None:
    forged = base64.b64encode(b"<samlp:Response xmlns:samlp='urn:oasis:names:tc:SAML:2.0:protocol'/>").decode()
    session = requests.Session()
    landed = session.post(f"{live_server.url}{SAML}/acs/", data={"SAMLResponse": forged}, timeout=10)
    assert landed.url.startswith(f"{live_server.url}/accounts/login/?sso=failed"), landed.url
    assert "Sign in with your institution (SAML)" in session.get(f"{live_server.url}/accounts/login/", timeout=10).text


def test_while_saml_is_off_its_routes_are_404(db: Any, client: Any) -> None:
    for route in ("login/", "acs/", "metadata/", "ls/", "ls/post/"):
        assert client.get(f"{SAML}/{route}").status_code == 404, route
    assert client.post(f"{SAML}/logout/").status_code == 404
    assert "SAML" not in client.get("/accounts/login/").content.decode()


def test_switched_on_without_its_settings_the_check_says_what_is_missing() -> None:
    from planner.access.checks import saml_is_configured

    with override_settings(SAML_ENABLED=True, SAML_IDP_METADATA_URL="", SAML_IDP_METADATA_FILE="",
                           SAML_SP_KEY_FILE="/etc/sp.key", SAML_SP_CERT_FILE="", SESSION_COOKIE_SECURE=False):
        assert [e.id for e in saml_is_configured()] == ["planner.E002", "planner.E004", "planner.W001"]
    assert saml_is_configured() == []
