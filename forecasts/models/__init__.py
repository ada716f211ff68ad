"""Demand-side models, one module per sub-domain."""

from forecasts.models.org import Department, Institution, Project

__all__ = ["Department", "Institution", "Project"]
