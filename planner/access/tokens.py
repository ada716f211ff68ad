"""The API's personal tokens: ``Authorization: Bearer cpt_...`` with a scope and an expiry.

A read-only token may only GET/HEAD/OPTIONS; anything else answers 403 naming the scope.
An expired or revoked token answers 401 saying so, so a script's owner knows what to renew.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS

from planner.access.models import ApiToken
from planner.access.services import token_lookup, token_touch

KEYWORD = "Bearer"


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode(errors="replace").lower() != KEYWORD.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization: Bearer needs exactly one token after it.")
        token = token_lookup(parts[1].decode(errors="replace"))
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown API token: create one on your profile page.")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(f"API token {token.prefix}… was revoked.")
        if not token.active:
            raise exceptions.AuthenticationFailed(
                f"API token {token.prefix}… expired on {token.expires_at:%Y-%m-%d}: create a new one.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("The token's user is inactive.")
        if token.scope == ApiToken.Scope.READ and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(
                f"API token {token.prefix}… is read-only: {request.method} needs a read-write token.")
        token_touch(token)
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        return f'{KEYWORD} realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Documents the personal tokens in the OpenAPI schema."""

    target_class = "planner.access.tokens.ApiTokenAuthentication"
    name = "personalToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http", "scheme": "bearer", "bearerFormat": "cpt_<8 hex>_<secret>",
            "description": "A personal API token from your profile page (/access/profile/): read-only tokens "
                           "may only read (GET); read-write tokens may also create and change. Tokens expire "
                           "(at most a year) and can be revoked there; the secret is shown once and stored "
                           "hashed.",
        }
