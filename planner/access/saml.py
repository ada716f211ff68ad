"""SAML 2.0 sign-on routes (/accounts/login/saml2/...): djangosaml2's views, answering 404 while SAML is off.

The routes always exist (so the URL conf and its route enumeration do not depend on the
environment); the service provider's configuration is built per request from the settings
(``SAML_*``, read from the environment in planner/settings.py), so a deployment switches SAML
on with environment variables alone.  They sit under /accounts/login/ because that prefix is
open to anonymous visitors (planner.web.middleware): the identity provider posts the
assertion (ACS), fetches the metadata and answers a logout without the product's session.

djangosaml2 keeps its own state (outstanding requests, the IdP's subject id for logout) in a
second session cookie (``saml_session``, SameSite=None so the IdP's cross-site POST carries
it); its middleware wraps these views only, not every request of the product.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth import logout
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.urls import path, reverse
from djangosaml2 import views as saml_views
from djangosaml2.middleware import SamlSessionMiddleware
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.config import SPConfig

log = logging.getLogger(__name__)
_cache: dict[tuple[Any, ...], tuple[float, SPConfig]] = {}
_cache_lock = threading.Lock()


def _base_url(request: HttpRequest | None) -> str:
    if settings.SAML_SP_BASE_URL:
        return str(settings.SAML_SP_BASE_URL).rstrip("/")
    if request is None:
        raise Http404("SAML_SP_BASE_URL is not set and there is no request to take the site's address from.")
    return f"{request.scheme}://{request.get_host()}"


def sp_settings(base: str) -> dict[str, Any]:
    """pysaml2's service-provider configuration for this site, from the SAML_* settings."""
    key, cert = settings.SAML_SP_KEY_FILE, settings.SAML_SP_CERT_FILE
    signing = bool(key and cert)
    if settings.SAML_IDP_METADATA_URL:
        metadata: dict[str, Any] = {"remote": [{"url": settings.SAML_IDP_METADATA_URL,
                                                **({"cert": settings.SAML_IDP_CERT_FILE}
                                                   if settings.SAML_IDP_CERT_FILE else {})}]}
    else:
        metadata = {"local": [settings.SAML_IDP_METADATA_FILE]}
    return {
        "entityid": settings.SAML_SP_ENTITY_ID or f"{base}{reverse('saml2_metadata')}",
        "xmlsec_binary": settings.SAML_XMLSEC_BINARY or shutil.which("xmlsec1") or "/usr/bin/xmlsec1",
        "allow_unknown_attributes": True,
        "metadata": metadata,
        "service": {"sp": {
            "name": settings.SITE_NAME,
            "endpoints": {
                "assertion_consumer_service": [(f"{base}{reverse('saml2_acs')}", BINDING_HTTP_POST)],
                "single_logout_service": [(f"{base}{reverse('saml2_ls')}", BINDING_HTTP_REDIRECT),
                                          (f"{base}{reverse('saml2_ls_post')}", BINDING_HTTP_POST)],
            },
            "allow_unsolicited": False,  # only answers to a request this site made (no IdP-initiated login)
            "authn_requests_signed": signing,
            "logout_requests_signed": signing,
            "want_assertions_signed": True,
            "want_response_signed": settings.SAML_WANT_RESPONSE_SIGNED,
        }},
        # redirects, not pysaml2's auto-submitting forms (inline script, refused by the CSP)
        "preferred_binding": {"single_logout_service": [BINDING_HTTP_REDIRECT, BINDING_HTTP_POST]},
        **({"key_file": key, "cert_file": cert, "encryption_keypairs": [{"key_file": key, "cert_file": cert}]}
           if signing else {}),
    }


def config_loader(request: HttpRequest | None = None) -> SPConfig:
    """djangosaml2's SAML_CONFIG_LOADER: the loaded configuration, kept SAML_METADATA_REFRESH seconds.

    Loading reads (or fetches) the IdP's metadata, so it is not redone on every request.
    """
    base = _base_url(request)
    conf_dict = sp_settings(base)
    key = (base, repr(sorted(conf_dict.items())))
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and now - hit[0] < settings.SAML_METADATA_REFRESH:
            return hit[1]
    conf = SPConfig()
    conf.load(conf_dict)
    with _cache_lock:
        _cache.clear()  # one site, one configuration: a changed setting replaces the old one
        _cache[key] = (now, conf)
    return conf


def attribute_mapping() -> dict[str, tuple[str, ...]]:
    """SAML attribute -> user fields (djangosaml2's attribute mapping, from the settings at each login)."""
    mapping: dict[str, tuple[str, ...]] = {settings.SAML_USERNAME_ATTRIBUTE: ("username",)}
    if settings.SAML_EMAIL_ATTRIBUTE:
        mapping.setdefault(settings.SAML_EMAIL_ATTRIBUTE, ())
        mapping[settings.SAML_EMAIL_ATTRIBUTE] += ("email",)
    return mapping


def acs_failure(request: HttpRequest, exception: Exception | None = None, status: int = 403,
                **kwargs: Any) -> HttpResponse:
    """A refused or broken assertion lands on the login page saying so, like a failed OIDC sign-on."""
    log.warning("SAML sign-on refused: %s", exception)
    return HttpResponseRedirect(settings.LOGIN_REDIRECT_URL_FAILURE)


def _when_enabled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 while SAML is off; otherwise the view with djangosaml2's own session (request.saml_session)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.SAML_ENABLED:
            raise Http404("SAML sign-on is not configured on this site (SAML_ENABLED).")
        return SamlSessionMiddleware(lambda r: view(r, *args, **kwargs))(request)

    return wrapped


class AssertionConsumerServiceView(saml_views.AssertionConsumerServiceView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return super().post(request, attribute_mapping=attribute_mapping(), create_unknown_user=True)


class LogoutInitView(saml_views.LogoutInitView):
    """Single logout, started by a POST (a GET link could log anyone out from another site).

    A session that did not come from SAML (a local account) just ends here; one that did is
    ended here and the browser sent to the IdP's single-logout service, which answers at ls/.
    """

    http_method_names = ["post"]

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if saml_views._get_subject_id(request.saml_session) is None:  # type: ignore[attr-defined]
            logout(request)
            return HttpResponseRedirect(resolve_url(settings.LOGOUT_REDIRECT_URL))
        response = super().get(request, *args, **kwargs)
        if response.status_code == 400:  # the IdP's session info has expired here: the local logout is done
            return self.handle_no_permission()
        return response

    def handle_no_permission(self) -> HttpResponse:  # not signed in: nothing to end
        return HttpResponseRedirect(resolve_url(settings.LOGOUT_REDIRECT_URL))

    def handle_unsupported_slo_exception(self, request: HttpRequest, exception: Exception, *args: Any,
                                         **kwargs: Any) -> HttpResponse:  # an IdP without single logout
        return self.handle_no_permission()


single_logout = _when_enabled(LogoutInitView.as_view())

urlpatterns = [
    path("login/", _when_enabled(saml_views.LoginView.as_view()), name="saml2_login"),
    path("acs/", _when_enabled(AssertionConsumerServiceView.as_view()), name="saml2_acs"),
    path("logout/", single_logout, name="saml2_logout"),
    path("ls/", _when_enabled(saml_views.LogoutView.as_view()), name="saml2_ls"),
    path("ls/post/", _when_enabled(saml_views.LogoutView.as_view()), name="saml2_ls_post"),
    path("metadata/", _when_enabled(saml_views.MetadataView.as_view()), name="saml2_metadata"),
]
