"""`manage.py check --deploy` refuses the env.example placeholder SECRET_KEY (Django's own check
only looks at length and variety, which the placeholder passes); `manage.py check` names what a
switched-on SAML sign-on is missing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register


@register(Tags.security, deploy=True)
def secret_key_is_real(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    from planner.settings import secret_key_problem

    problem = secret_key_problem(settings.SECRET_KEY)
    if problem is None:
        return []
    return [Error(f"{problem}.", hint="Generate one: python -c 'import secrets; print(secrets.token_urlsafe(50))'",
                  id="planner.E001")]


@register(Tags.security)
def saml_is_configured(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """With SAML on, `manage.py check` (and every start) names what is missing, before the first login fails."""
    import shutil

    if not settings.SAML_ENABLED:
        return []
    errors: list[CheckMessage] = []
    if not (settings.SAML_IDP_METADATA_URL or settings.SAML_IDP_METADATA_FILE):
        errors.append(Error("SAML_ENABLED is set but neither SAML_IDP_METADATA_URL nor SAML_IDP_METADATA_FILE is.",
                            hint="Point SAML_IDP_METADATA_URL at your IdP's metadata.", id="planner.E002"))
    if not shutil.which(settings.SAML_XMLSEC_BINARY or "xmlsec1"):
        errors.append(Error("SAML needs the xmlsec1 program to check signatures and it is not installed.",
                            hint="apt-get install xmlsec1 (or set SAML_XMLSEC_BINARY).", id="planner.E003"))
    if bool(settings.SAML_SP_KEY_FILE) != bool(settings.SAML_SP_CERT_FILE):
        errors.append(Error("Set both SAML_SP_KEY_FILE and SAML_SP_CERT_FILE, or neither.", id="planner.E004"))
    if not settings.SESSION_COOKIE_SECURE:
        errors.append(Warning("Browsers drop djangosaml2's SameSite=None 'saml_session' cookie unless it is Secure, "
                              "so SAML logins fail over plain HTTP.",
                              hint="Serve over HTTPS with PRODUCTION=1 (or SESSION_COOKIE_SECURE=1).",
                              id="planner.W001"))
    return errors
