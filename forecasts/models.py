"""The demand side's models, re-exported so Django finds them (tables and labels unchanged).

Each sub-domain owns its models (forecasts.accounting, .storage, .workload, .demand,
.chargeback); code imports them from the owning module; this module exists for Django's
model discovery.
"""

from forecasts.accounting.models import (
    Cluster,
    ClusterCapacity,
    Department,
    Identity,
    IdentityMapping,
    IngestFile,
    IngestRejection,
    IngestRun,
    Institution,
    Job,
    Project,
    UsageMonthly,
)
from forecasts.chargeback.models import (
    ComputeRate,
    DepartmentAdjustment,
    QosMultiplier,
    RatePlan,
    Statement,
    StatementJob,
    StatementLine,
    StorageRate,
)
from forecasts.demand.models import ExternalSeries, ForecastFit, SequencerPlan
from forecasts.storage.models import FileSystem, StorageRejection, StorageSnapshot, StorageUsage
from forecasts.workload.models import WorkloadShapeMonthly

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
