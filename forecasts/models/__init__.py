"""Demand-side models, one module per sub-domain."""

from forecasts.models.org import Department, Institution, Project
from forecasts.models.usage import (
    Cluster,
    ClusterCapacity,
    Identity,
    IdentityMapping,
    IngestFile,
    IngestRejection,
    IngestRun,
    Job,
    UsageMonthly,
)

__all__ = [
    "Cluster",
    "ClusterCapacity",
    "Department",
    "Identity",
    "IdentityMapping",
    "IngestFile",
    "IngestRejection",
    "IngestRun",
    "Institution",
    "Job",
    "Project",
    "UsageMonthly",
]
