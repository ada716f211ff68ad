"""Access pages: everyone's effective access (admins), group mappings (admins), your profile and tokens."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import BACKEND_SESSION_KEY, logout
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from planner.access import oidc, rules, saml
from planner.access.models import ApiToken, GroupMapping
from planner.access.selectors import effective_access, effective_access_all
from planner.access.services import MAX_TOKEN_DAYS, mappings_import, token_create, token_revoke
from planner.roles import admin_required
from planner.web.textfiles import UploadTextError, upload_text

EXAMPLE_YAML = """mappings:
  - {group: hpc-admins, role: admin}
  - {group: hpc-planners, role: planner, source: oidc}
  - {group: research-finance, role: finance}
  - {group: genomics-pis, role: department viewer, departments: [ggs]}"""


class SignInView(LoginView):
    """The login page: local accounts and LDAP (one form), and the OIDC and SAML buttons when they are on."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context.update({"oidc_enabled": settings.OIDC_ENABLED, "oidc_label": settings.OIDC_LOGIN_LABEL,
                        "saml_enabled": settings.SAML_ENABLED, "saml_label": settings.SAML_LOGIN_LABEL,
                        "ldap_enabled": settings.LDAP_ENABLED, "sso_failed": self.request.GET.get("sso") == "failed"})
        return context

    def get_redirect_url(self) -> str:
        # /accounts/logout/ opened signed out comes back here as ?next=: signing in must not land on it
        url = super().get_redirect_url()
        return "" if url.split("?", 1)[0] == reverse("logout") else url


class SignOutView(LogoutView):
    """The navigation's "Log out": ends the session here and, when the session came from a sign-on whose
    provider can end its own (OIDC with OIDC_OP_LOGOUT_ENDPOINT, SAML single logout), there too, so the
    next visit to the sign-on button asks for the password again.

    Opened by GET (a bookmark, a typed address) it asks to confirm, instead of Django's bare 405."""

    http_method_names = ["get", "post", "options"]

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect("login")
        return render(request, "registration/logout_confirm.html")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        backend = request.session.get(BACKEND_SESSION_KEY, "").rsplit(".", 1)[-1]
        if settings.SAML_ENABLED and backend == "PlannerSaml2Backend":
            return saml.single_logout(request)
        if settings.OIDC_ENABLED and settings.OIDC_OP_LOGOUT_ENDPOINT and backend == "OIDCBackend":
            url = oidc.provider_logout_url(request)  # before the session (and its ID token) is gone
            logout(request)
            return HttpResponseRedirect(url)
        return super().post(request, *args, **kwargs)


class MappingImportForm(forms.Form):
    file = forms.FileField(help_text="YAML or CSV: group, role, departments (codes), source")
    replace = forms.BooleanField(required=False, help_text="remove mappings that are not in the file")


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="what the token is for, e.g. 'nightly export script'")
    scope = forms.ChoiceField(choices=ApiToken.Scope.choices, initial=ApiToken.Scope.READ)
    days = forms.IntegerField(min_value=1, max_value=MAX_TOKEN_DAYS, initial=90, label="expires after (days)")


@admin_required
def access_overview(request: HttpRequest) -> HttpResponse:
    return render(request, "access/overview.html", {"rows": effective_access_all()})


@admin_required
def mappings(request: HttpRequest) -> HttpResponse:
    form = MappingImportForm()
    if request.method == "POST":
        form = MappingImportForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                text = upload_text(upload.read(), upload.name)
                result = mappings_import(text=text, filename=upload.name, replace=form.cleaned_data["replace"])
            except (rules.RuleError, UploadTextError) as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"{upload.name}: {result.created} mappings created, {result.updated} "
                                          f"changed, {result.removed} removed. They apply at each user's next "
                                          "sign-on.")
                return redirect("access-mappings")
    rows = GroupMapping.objects.prefetch_related("departments")
    return render(request, "access/mappings.html", {"rows": rows, "form": form, "example": EXAMPLE_YAML})


def profile(request: HttpRequest) -> HttpResponse:
    form = TokenForm()
    new_key = None
    status = 200
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            token, new_key = token_create(user=request.user, name=form.cleaned_data["name"],
                                          scope=form.cleaned_data["scope"], days=form.cleaned_data["days"])
            form = TokenForm()
        else:
            status = 400
    tokens = ApiToken.objects.filter(user=request.user)
    response = render(request, "access/profile.html", {
        "me": effective_access(request.user), "tokens": tokens, "form": form, "new_key": new_key}, status=status)
    if new_key:
        response["Cache-Control"] = "no-store"  # the secret must not sit in a cache
    return response


@require_POST
def token_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token_revoke(token=token)
    messages.success(request, f"Token {token.prefix}… ({token.name}) revoked: scripts using it now get 401.")
    return redirect("access-profile")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form whose token is stale or missing, said in words, in the product's layout.

    The usual cause is not an attack: signing in (or out) rotates the token, so a form opened before
    that in another tab, the login page's included, is refused. Nothing of the form is used.
    """
    from django.middleware.csrf import REASON_NO_CSRF_COOKIE

    return render(request, "403_csrf.html", {
        "on_login": request.path == reverse("login"),
        "no_cookie": reason == REASON_NO_CSRF_COOKIE,
        "again_url": request.path if request.path not in (reverse("logout"),) else reverse("dashboard"),
    }, status=403)
