"""Sign-on backend for OpenID Connect (mozilla-django-oidc); LDAP is in planner.access.ldap_backend.

Both hand the groups the identity provider or the directory sent to
``planner.access.services.access_apply`` at every login, so roles and departments follow
the institution's groups.  Neither takes over a local account (one with a usable password:
the demo logins and break-glass admins): a sign-on whose name matches one is refused, so an
IdP user called "admin" cannot become the local admin.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from planner.access.services import access_apply

log = logging.getLogger(__name__)


def _local_account(user: Any) -> bool:
    return bool(user.has_usable_password())


def active_or_none(user: Any) -> Any:
    """The session's user, or None once an admin deactivated them (as Django's ModelBackend does).

    mozilla-django-oidc's and django-auth-ldap's get_user return the user whatever ``is_active``
    says, so a deactivated user's open session kept working until it expired.
    """
    return user if user is not None and user.is_active else None


def _claim_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


class OIDCBackend(OIDCAuthenticationBackend):
    """Users are matched by ``OIDC_USERNAME_CLAIM`` (default preferred_username), not by e-mail."""

    def _username(self, claims: dict[str, Any]) -> str:
        return str(claims.get(settings.OIDC_USERNAME_CLAIM) or claims.get("sub") or "")[:150]

    def get_user(self, user_id: Any) -> Any:
        return active_or_none(super().get_user(user_id))

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(self._username(claims))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return self.UserModel.objects.filter(username=self._username(claims))

    def create_user(self, claims: dict[str, Any]) -> Any:
        user = self.UserModel.objects.create_user(self._username(claims), email=claims.get("email") or "")
        return self._apply(user, claims)

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        if _local_account(user):
            log.warning("OIDC sign-on for %r refused: a local account of that name exists", user.username)
            return None
        return self._apply(user, claims)

    def _apply(self, user: Any, claims: dict[str, Any]) -> Any:
        email = claims.get("email") or ""
        if email and user.email != email:
            user.email = email
            user.save(update_fields=["email"])
        access_apply(user=user, source="oidc", groups=_claim_list(claims.get(settings.OIDC_GROUPS_CLAIM)))
        return user
