"""The signals that write audit events (planner.audit.events): sign-ins, failed and refused sign-ins (Django's auth
signals) and optimiser runs (an OptimizerRun created by the page, the API or a service-level plan).
Wired at start-up."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_login_failed

from planner.access.throttle import REFUSED
from planner.audit.events import USERNAME_CHARS, record_event

BACKEND_WORDS = (("oidc", "single sign-on (OIDC)"), ("saml", "single sign-on (SAML)"), ("ldap", "LDAP password"))


def _signed_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    backend = str(getattr(user, "backend", "") or "").lower()
    how = next((words for key, words in BACKEND_WORDS if key in backend), "password")
    record_event("sign-in", obj=user, actor=user, request=request, detail={"how": how})


def _sign_in_failed(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    user_model = get_user_model()
    field = str(user_model.USERNAME_FIELD)
    username = str(credentials.get(field) or credentials.get("username") or "")[:USERNAME_CHARS]
    known = user_model._default_manager.filter(**{field: username}).first() if username else None
    detail = {"username": username, "account": "exists" if known else "no such user"}
    refused = getattr(request, REFUSED, False)  # the throttle refused it (planner.access.throttle.ThrottleBackend)
    if refused:
        detail["why"] = "locked out after too many failed sign-ins: the password was not checked"
    record_event("refused sign-in" if refused else "failed sign-in", obj=known, model=user_model,
                 object_repr=username or "(no username)", request=request, detail=detail)


def _optimiser_run_created(sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if not created or raw:
        return
    params = instance.params or {}
    what = (f"plan for {float(params['service_level']):.0%} of demand paths" if params.get("kind") == "service_level"
            else "lowest-cost plan")
    record_event("optimiser run", obj=instance.design, actor=instance.created_by,
                 detail={"run": instance.pk, "what": what})


def connect() -> None:
    """Wire the signals (at start-up, from planner.apps)."""
    from django.db.models.signals import post_save

    from planner.designs.models import OptimizerRun

    user_logged_in.connect(_signed_in, dispatch_uid="planner.audit.sign_in")
    user_login_failed.connect(_sign_in_failed, dispatch_uid="planner.audit.sign_in_failed")
    post_save.connect(_optimiser_run_created, sender=OptimizerRun, dispatch_uid="planner.audit.optimiser_run")
