"""The organisation: the institution, its departments and projects (PI groups)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Institution(models.Model):
    """The site using the product (one row; its name heads every page and report)."""

    name = models.CharField(max_length=200)
    short_name = models.CharField(max_length=40, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", help_text="Zone of local times in logs")

    def __str__(self) -> str:
        return self.name

    @classmethod
    def current(cls) -> Institution | None:
        return cls.objects.order_by("pk").first()


class Department(models.Model):
    UNASSIGNED = "Unassigned"

    name = models.CharField(max_length=200, unique=True)
    code = models.SlugField(max_length=40, unique=True)
    viewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="viewable_departments",
        help_text="Department viewers who may see this department's usage and chargeback",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Project(models.Model):
    """A PI group or allocation; belongs to one department."""

    name = models.CharField(max_length=200, unique=True)
    pi = models.CharField("principal investigator", max_length=200, blank=True)
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="projects")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
