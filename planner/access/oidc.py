"""OpenID Connect routes (/oidc/...): mozilla-django-oidc's views, answering 404 while OIDC is off.

The routes always exist (so the URL conf and its route enumeration do not depend on the
environment); the settings are read per request, so a deployment switches OIDC on with
environment variables alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.urls import path
from mozilla_django_oidc import views as oidc_views


def _when_enabled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404("OpenID Connect sign-on is not configured on this site (OIDC_ENABLED).")
        return view(request, *args, **kwargs)

    return wrapped


def provider_logout_url(request: HttpRequest) -> str:
    """Where logging out sends the browser: the provider's end-session endpoint when one is set."""
    end = settings.OIDC_OP_LOGOUT_ENDPOINT
    if not end:
        return resolve_url(settings.LOGOUT_REDIRECT_URL)
    from urllib.parse import urlencode

    params = {"client_id": settings.OIDC_RP_CLIENT_ID}
    id_token = request.session.get("oidc_id_token")
    if id_token:
        params["id_token_hint"] = id_token
    back = settings.OIDC_POST_LOGOUT_REDIRECT_URI
    if back is None:  # default: back to this site's login page (register it at the provider)
        back = request.build_absolute_uri(resolve_url(settings.LOGOUT_REDIRECT_URL))
    if back:
        params["post_logout_redirect_uri"] = back
    return f"{end}?{urlencode(params)}"


urlpatterns = [
    path("callback/", _when_enabled(oidc_views.OIDCAuthenticationCallbackView.as_view()),
         name="oidc_authentication_callback"),
    path("authenticate/", _when_enabled(oidc_views.OIDCAuthenticationRequestView.as_view()),
         name="oidc_authentication_init"),
    path("logout/", _when_enabled(oidc_views.OIDCLogoutView.as_view()), name="oidc_logout"),
]
