"""Access: group-to-role mappings, what each sign-on granted, and personal API tokens."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from planner.access import rules


class Role(models.TextChoices):
    ADMIN = rules.ADMIN, "admin"
    PLANNER = rules.PLANNER, "planner"
    FINANCE = rules.FINANCE, "finance"
    VIEWER = rules.VIEWER, "department viewer"


class Source(models.TextChoices):
    ANY = "any", "any sign-on"
    OIDC = "oidc", "OpenID Connect"
    LDAP = "ldap", "LDAP"
    SAML = "saml", "SAML"


class GroupMapping(models.Model):
    """Members of ``group`` (as the identity provider or directory names it) get ``role``."""

    group = models.CharField(max_length=300, help_text="group name or DN as the IdP/directory sends it")
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.ANY)
    role = models.CharField(max_length=20, choices=Role.choices)
    departments = models.ManyToManyField("forecasts.Department", blank=True, related_name="+",
                                         help_text="departments a department viewer of this group sees")
    note = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["group", "source"]
        constraints = [models.UniqueConstraint(fields=["group", "source"], name="access_group_source_unique")]

    def __str__(self) -> str:
        return f"{self.group} ({self.source}) -> {self.role}"

    def as_rule(self) -> rules.Rule:
        codes = tuple(sorted(d.code for d in self.departments.all()))
        return rules.Rule(group=self.group, role=self.role, departments=codes, source=self.source)


class SignOn(models.Model):
    """What the latest sign-on through an identity provider granted a user, and why.

    Written at every OIDC/LDAP/SAML login; the effective-access page reads it.  Local
    accounts (the demo, break-glass admins) have none: their role is set in the admin.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_on")
    source = models.CharField(max_length=8, choices=Source.choices)
    groups = models.JSONField(default=list, help_text="groups the IdP/directory sent at the last sign-on")
    role = models.CharField(max_length=20, choices=Role.choices, blank=True)
    departments = models.JSONField(default=list, help_text="department codes granted")
    reasons = models.JSONField(default=list, help_text="which mapping granted what")
    at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.user} via {self.source} at {self.at:%Y-%m-%d %H:%M}"


class ApiToken(models.Model):
    """A personal API token: shown once, stored as a SHA-256 hash, with a scope and an expiry."""

    class Scope(models.TextChoices):
        READ = "read", "read-only"
        WRITE = "write", "read-write"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="what the token is for")
    prefix = models.CharField(max_length=12, unique=True, help_text="the token's visible start, to recognise it")
    key_sha256 = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=5, choices=Scope.choices, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… {self.name} ({self.scope})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()
