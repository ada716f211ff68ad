"""Sign-on backend for SAML 2.0 (djangosaml2 + pysaml2), loaded only when SAML_ENABLED is set.

djangosaml2 checks the assertion (signature, audience, time, the request it answers) and
finds or creates the user by ``SAML_USERNAME_ATTRIBUTE``; this backend then hands the
``SAML_GROUPS_ATTRIBUTE`` values to ``planner.access.services.access_apply``, the same
mapping rules OIDC and LDAP sign-ons go through, at every login.  Like them it never takes
over a local account (one with a usable password).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from djangosaml2.backends import Saml2Backend

from planner.access.backends import _claim_list, _local_account
from planner.access.services import access_apply

log = logging.getLogger(__name__)


class PlannerSaml2Backend(Saml2Backend):
    def clean_user_main_attribute(self, main_attribute: Any) -> Any:
        return str(main_attribute)[:150] if main_attribute else main_attribute

    def get_or_create_user(self, user_lookup_key: str, user_lookup_value: Any, create_unknown_user: bool,
                           idp_entityid: str, attributes: dict[str, Any], attribute_mapping: dict[str, Any],
                           request: Any) -> tuple[Any, bool]:
        user, created = super().get_or_create_user(user_lookup_key, user_lookup_value, create_unknown_user,
                                                    idp_entityid, attributes, attribute_mapping, request)
        if user is not None and not created and _local_account(user):
            log.warning("SAML sign-on for %r refused: a local account of that name exists", user.username)
            return None, False
        return user, created

    def authenticate(self, request: Any, session_info: dict[str, Any] | None = None,
                     attribute_mapping: dict[str, Any] | None = None, create_unknown_user: bool = True,
                     assertion_info: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        user = super().authenticate(request, session_info=session_info, attribute_mapping=attribute_mapping,
                                    create_unknown_user=create_unknown_user, assertion_info=assertion_info, **kwargs)
        if user is None or session_info is None:
            return None
        groups = _claim_list(session_info["ava"].get(settings.SAML_GROUPS_ATTRIBUTE))
        access_apply(user=user, source="saml", groups=groups)
        return user
