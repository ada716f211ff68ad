"""Demand-side models, one module per sub-domain."""

from forecasts.models.chargeback import (
    ComputeRate,
    DepartmentAdjustment,
    QosMultiplier,
    RatePlan,
    Statement,
    StatementJob,
    StatementLine,
    StorageRate,
)
from forecasts.models.forecasting import ExternalSeries, ForecastFit, SequencerPlan
from forecasts.models.org import Department, Institution, Project
from forecasts.models.storage import FileSystem, StorageRejection, StorageSnapshot, StorageUsage
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
from forecasts.models.workload import WorkloadShapeMonthly

__all__ = [
    "ComputeRate",
    "DepartmentAdjustment",
    "QosMultiplier",
    "RatePlan",
    "Statement",
    "StatementJob",
    "StatementLine",
    "StorageRate",
    "Cluster",
    "ClusterCapacity",
    "Department",
    "ExternalSeries",
    "ForecastFit",
    "Identity",
    "IdentityMapping",
    "IngestFile",
    "IngestRejection",
    "IngestRun",
    "Institution",
    "Job",
    "Project",
    "SequencerPlan",
    "UsageMonthly",
    "FileSystem",
    "StorageRejection",
    "StorageSnapshot",
    "StorageUsage",
    "WorkloadShapeMonthly",
]
