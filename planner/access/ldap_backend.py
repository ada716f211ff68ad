"""Sign-on backend for LDAP (django-auth-ldap), loaded only when LDAP_SERVER_URI is set.

django-auth-ldap needs python-ldap, which builds against the OpenLDAP client libraries
(Debian: libldap2-dev, libsasl2-dev): it is an optional install (requirements-ldap.txt), so a
site without a directory, and `make run` on a bare machine, never need those headers.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django_auth_ldap.backend import LDAPBackend

from planner.access.backends import _local_account, active_or_none
from planner.access.services import access_apply

log = logging.getLogger(__name__)


class PlannerLDAPBackend(LDAPBackend):
    """LDAP bind and group lookup by django-auth-ldap; groups become roles via the mappings."""

    def get_user(self, user_id: Any) -> Any:
        return active_or_none(super().get_user(user_id))

    def authenticate_ldap_user(self, ldap_user: Any, password: str) -> Any:
        existing = get_user_model().objects.filter(username__iexact=ldap_user._username).first()
        if existing is not None and _local_account(existing):
            log.warning("LDAP sign-on for %r refused: a local account of that name exists", existing.username)
            return None
        user = super().authenticate_ldap_user(ldap_user, password)
        if user is not None:
            access_apply(user=user, source="ldap", groups=sorted(ldap_user.group_names))
        return user
