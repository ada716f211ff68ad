"""A real SAML 2.0 identity provider for the sign-on tests: pysaml2's ``saml2.server.Server`` behind a
small WSGI app, in a second process (``python -m tests.saml_idp.serve PORT DIR SP_METADATA_URL``).

DIR holds the IdP's own ``idp.key``/``idp.crt`` (made by the test) and ``users.json``
(``{username: {"password", "mail", "groups"}}``, read at every login, so the test changes a
user's groups by rewriting it).  The SP's metadata is fetched from the product on the first
request that needs it; the IdP's metadata is served at /metadata.

    GET  /metadata        the IdP's metadata (signing certificate, SSO and SLO endpoints)
    GET  /sso/redirect    AuthnRequest (HTTP-Redirect, signature checked): login form, or the
                          answer at once when the browser already has an IdP session
    POST /login           the login form: an HTML form that POSTs the signed assertion to the ACS
    GET  /slo/redirect    LogoutRequest (HTTP-Redirect, signature checked): ends the IdP session,
                          redirects back with a LogoutResponse

Never part of the product.
"""

from __future__ import annotations

import html
import json
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, make_server

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.metadata import entity_descriptor
from saml2.saml import AUTHN_PASSWORD, NAME_FORMAT_URI, NAMEID_FORMAT_PERSISTENT, NameID
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

SESSION_COOKIE = "idp_session"


class IdP:
    def __init__(self, port: int, folder: Path, sp_metadata_url: str) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.folder, self.sp_metadata_url = folder, sp_metadata_url
        self.sessions: dict[str, str] = {}  # cookie -> username
        self._server: Server | None = None

    def config(self, with_sp: bool) -> IdPConfig:
        conf = IdPConfig()
        conf.load({
            "entityid": f"{self.base}/metadata",
            "xmlsec_binary": shutil.which("xmlsec1"),
            "allow_unknown_attributes": True,
            "key_file": str(self.folder / "idp.key"),
            "cert_file": str(self.folder / "idp.crt"),
            "service": {"idp": {
                "name": "Test IdP",
                "endpoints": {
                    "single_sign_on_service": [(f"{self.base}/sso/redirect", BINDING_HTTP_REDIRECT)],
                    "single_logout_service": [(f"{self.base}/slo/redirect", BINDING_HTTP_REDIRECT)],
                },
                "policy": {"default": {"lifetime": {"minutes": 15}, "attribute_restrictions": None,
                                       "name_form": NAME_FORMAT_URI}},
                "name_id_format": [NAMEID_FORMAT_PERSISTENT],
                "want_authn_requests_signed": True,
            }},
            **({"metadata": {"remote": [{"url": self.sp_metadata_url}]}} if with_sp else {}),
        })
        return conf

    @property
    def server(self) -> Server:
        if self._server is None:  # the SP's metadata is only there once the test has switched SAML on
            self._server = Server(config=self.config(with_sp=True))
        return self._server

    def __call__(self, environ: dict[str, Any], start: Any) -> list[bytes]:
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        cookies = dict(c.strip().split("=", 1) for c in environ.get("HTTP_COOKIE", "").split(";") if "=" in c)
        try:
            if path == "/metadata":
                body = str(entity_descriptor(self.config(with_sp=False))).encode()
                start("200 OK", [("Content-Type", "text/xml")])
                return [body]
            if path == "/sso/redirect":
                user = self.sessions.get(cookies.get(SESSION_COOKIE, ""))
                if user is None:
                    return self._page(start, "200 OK", self._login_form(environ.get("QUERY_STRING", "")))
                return self._answer(start, query, user)
            if path == "/login" and method == "POST":
                size = int(environ.get("CONTENT_LENGTH") or 0)
                form = {k: v[0] for k, v in parse_qs(environ["wsgi.input"].read(size).decode()).items()}
                users = json.loads((self.folder / "users.json").read_text())
                name = form.get("username", "")
                if name not in users or users[name]["password"] != form.get("password"):
                    return self._page(start, "401 Unauthorized", "<p>wrong password</p>")
                cookie = secrets.token_urlsafe(16)
                self.sessions[cookie] = name
                original = {k: v[0] for k, v in parse_qs(form.get("query", "")).items()}
                return self._answer(start, original, name, [("Set-Cookie", f"{SESSION_COOKIE}={cookie}; Path=/")])
            if path == "/slo/redirect":
                return self._logout(start, query, cookies.get(SESSION_COOKIE, ""))
            if path == "/sessions":  # for the test: who is signed in at the IdP
                return self._page(start, "200 OK", json.dumps(self.sessions), "application/json")
        except Exception as exc:  # a refused message: say why (the test shows it)
            return self._page(start, "400 Bad Request", f"<pre>{html.escape(repr(exc))}</pre>")
        return self._page(start, "404 Not Found", "not found")

    def _page(self, start: Any, status: str, text: str, content_type: str = "text/html",
              headers: list[tuple[str, str]] | None = None) -> list[bytes]:
        start(status, [("Content-Type", content_type), *(headers or [])])
        return [text.encode()]

    def _login_form(self, query: str) -> str:
        return ('<form method="post" action="/login"><input name="username"><input name="password" type="password">'
                f'<input type="hidden" name="query" value="{html.escape(query)}"><button>Sign in</button></form>')

    def _answer(self, start: Any, query: dict[str, str], user: str,
                headers: list[tuple[str, str]] | None = None) -> list[bytes]:
        request = self.server.parse_authn_request(query["SAMLRequest"], BINDING_HTTP_REDIRECT,
                                                  relay_state=query.get("RelayState"), sigalg=query.get("SigAlg"),
                                                  signature=query.get("Signature"))
        args = self.server.response_args(request.message, [BINDING_HTTP_POST])
        record = json.loads((self.folder / "users.json").read_text())[user]
        identity = {"uid": [user], "mail": [record["mail"]], "isMemberOf": list(record["groups"])}
        response = self.server.create_authn_response(
            identity, userid=user, name_id=NameID(format=NAMEID_FORMAT_PERSISTENT, text=user),
            authn={"class_ref": AUTHN_PASSWORD}, sign_assertion=True, sign_response=True, sign_alg=SIG_RSA_SHA256,
            digest_alg=DIGEST_SHA256, **args)
        http = self.server.apply_binding(BINDING_HTTP_POST, str(response), args["destination"],
                                         query.get("RelayState", ""), response=True)
        return self._page(start, "200 OK", "".join(http["data"]) if isinstance(http["data"], list)
                          else http["data"], headers=headers)

    def _logout(self, start: Any, query: dict[str, str], cookie: str) -> list[bytes]:
        request = self.server.parse_logout_request(query["SAMLRequest"], BINDING_HTTP_REDIRECT,
                                                   relay_state=query.get("RelayState"), sigalg=query.get("SigAlg"),
                                                   signature=query.get("Signature"))
        who = request.message.name_id.text
        if self.sessions.get(cookie) == who:
            del self.sessions[cookie]
        response = self.server.create_logout_response(request.message, [BINDING_HTTP_REDIRECT])
        args = self.server.response_args(request.message, [BINDING_HTTP_REDIRECT])
        http = self.server.apply_binding(BINDING_HTTP_REDIRECT, str(response), args["destination"],
                                         query.get("RelayState", ""), response=True, sign=True, sigalg=SIG_RSA_SHA256)
        location = dict(http["headers"])["Location"]
        start("302 Found", [("Location", location), ("Set-Cookie", f"{SESSION_COOKIE}=; Path=/; Max-Age=0")])
        return [b""]


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def main(argv: list[str]) -> None:
    port, folder, sp_metadata_url = int(argv[0]), Path(argv[1]), argv[2]
    with make_server("127.0.0.1", port, IdP(port, folder, sp_metadata_url), handler_class=_Quiet) as httpd:
        print("ready", flush=True)
        httpd.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])

