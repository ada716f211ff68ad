"""Demand forecasting records: sequencer plans (versioned), external series and stored fits.

A number in a report must be traceable and re-makeable: a ForecastFit keeps which series it
fitted (cluster/department/metric, or an uploaded ExternalSeries), up to which month, the
values it used, the settings, the chosen family and why, every family's errors and the whole
``Forecast.to_dict()`` of the pure core (``forecasts/demand/growth``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models

from forecasts.accounting.models import Cluster, Department
from forecasts.units import PERIOD_UNITS, YEAR_AGGREGATE, period_word

# Below this many values fitted a forecast's intervals are flagged as running narrow (interval_caveat).
SHORT_HISTORY_VALUES = 14


class SequencerPlan(models.Model):
    """One version of a sequencer rollout plan (schema: ``forecasts/demand/sequencing.py``).

    Plans are versioned by name: editing saves a new row with ``version + 1`` and ``parent``
    pointing at the version it was edited from; old versions are never changed.  A version names the
    department whose sequencing it describes when its document does (``department``).
    """

    name = models.CharField(max_length=200)
    version = models.PositiveIntegerField(default=1)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    document = models.JSONField(help_text="the plan as plain data (plan_to_dict)")
    note = models.CharField(max_length=300, blank=True, help_text="what changed in this version")
    source = models.CharField(max_length=20, default="command", help_text="command, upload, editor, api, demo")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    # The document's ``department`` code as a row, set by plan_save from the document (which stays the
    # source): compared by id with a fit's department or excluded department (planner.designs
    # .services_paths.plan_overlap, the combined projection), and PROTECT keeps a named department from
    # vanishing under the plans that name it.
    department = models.ForeignKey(Department, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="sequencer_plans",
                                   help_text="whose sequencing the plan describes (its document's department "
                                             "code); empty = the plan does not say")

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="sequencerplan_one_per_version"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class ExternalSeries(models.Model):
    """A series a planner brings (disk $/TB, sequencing output, a national facility's growth)."""

    class Frequency(models.TextChoices):
        MONTHLY = "M", "monthly"
        QUARTERLY = "Q", "quarterly"
        SEMIANNUAL = "S", "semiannual"
        ANNUAL = "A", "annual"

    class Aggregate(models.TextChoices):
        SUM = "sum", "sum (a flow: per-period amounts add up to a year)"
        MEAN = "mean", "mean (a rate or a price)"
        LAST = "last", "last (a stock: the year's value is its last period)"

    name = models.CharField(max_length=200, unique=True)
    units = models.CharField(max_length=60, help_text="e.g. USD/TB, core-hours/month, PB")
    frequency = models.CharField(max_length=1, choices=Frequency.choices)
    aggregate = models.CharField(max_length=4, choices=Aggregate.choices, default=Aggregate.MEAN)
    points = models.JSONField(help_text='[["YYYY-MM-DD", value], ...] as uploaded (period start dates)')
    description = models.TextField(blank=True)
    source_name = models.CharField(max_length=300, blank=True, help_text="uploaded file name or provenance")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "external series"

    def __str__(self) -> str:
        return f"{self.name} ({self.units})"


class ForecastFit(models.Model):
    """One stored forecast of one series, with everything needed to trace and re-make it."""

    class Metric(models.TextChoices):
        CORE_HOURS = "core_hours", "core-hours per month"
        STORAGE_PB = "storage_pb", "PB stored"
        JOBS = "jobs", "jobs per month"
        ACTIVE_USERS = "active_users", "active users per month"
        EXTERNAL = "external", "external series"

    metric = models.CharField(max_length=20, choices=Metric.choices)
    cluster = models.ForeignKey(Cluster, null=True, blank=True, on_delete=models.CASCADE,
                                help_text="empty = all clusters")
    department = models.ForeignKey(Department, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="forecast_fits", help_text="empty = all departments")
    exclude_department = models.ForeignKey(
        Department, null=True, blank=True, on_delete=models.CASCADE, related_name="forecast_fits_excluding",
        help_text="fit everything except this department (the trend part of a combined projection)",
    )
    external_series = models.ForeignKey(ExternalSeries, null=True, blank=True, on_delete=models.CASCADE,
                                        related_name="fits")
    units = models.CharField(max_length=60)
    # inputs
    frequency = models.CharField(max_length=1, default="M")
    start = models.DateField(help_text="first period of the values used")
    through = models.DateField(help_text="last period of the values used (history up to this month)")
    values = models.JSONField(help_text="the values fitted, one per period (null = gap)")
    options = models.JSONField(default=dict, help_text="horizon, log, family override, backtest origins, seed")
    # outputs
    family = models.CharField(max_length=30)
    selection = models.CharField(max_length=20, help_text="backtest, aicc or override")
    reason = models.TextField()
    parameters = models.JSONField(default=dict)
    errors = models.JSONField(default=dict, help_text="chosen family's MASE, sMAPE, 80% coverage, AICc")
    yearly = models.JSONField(default=list, help_text="[{year, median, p10, p90, ...}]")
    result = models.JSONField(help_text="Forecast.to_dict() of forecasts.demand.growth")
    seconds = models.FloatField(default=0)
    background_job = models.ForeignKey("planner.BackgroundJob", null=True, blank=True, on_delete=models.SET_NULL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # "latest fit of this series" on the forecast pages
            models.Index(fields=["metric", "cluster", "department", "-created_at"], name="forecastfit_series_latest"),
        ]

    def __str__(self) -> str:
        return f"fit #{self.pk} {self.series_label} ({self.family})"

    @property
    def series_label(self) -> str:
        """The series with departments by code ('nexus / all but ggs / core-hours per month')."""
        return self._series("code")

    @property
    def series_name(self) -> str:
        """The series as the Department picker names it: departments by name, not by code."""
        return self._series("name")

    def _series(self, field: str) -> str:
        if self.external_series_id:
            return self.external_series.name
        if self.metric == self.Metric.STORAGE_PB:
            # scans belong to file systems, not clusters: a storage fit asked for one cluster holds them all
            return f"all file systems / {self.get_metric_display()}"
        parts = [self.cluster.name if self.cluster_id else "all clusters"]
        if self.department_id:
            parts.append(getattr(self.department, field))
        elif self.exclude_department_id:
            parts.append(f"all but {getattr(self.exclude_department, field)}")
        else:
            parts.append("all departments")
        return " / ".join(parts) + f" / {self.get_metric_display()}"

    @property
    def period_unit(self) -> str:
        """The series' periods in words: months, quarters, half-years, years."""
        return PERIOD_UNITS.get(self.frequency, "periods")

    @property
    def period_word(self) -> str:
        """One of the series' periods in words: month, quarter, half-year, year."""
        return period_word(self.frequency)

    @property
    def interval_caveat(self) -> str | None:
        """What a reader should know about this fit's intervals: on short histories, and on yearly series
        forecast one at a time, they run narrow (measured, docs/forecasting.md, "Intervals on short histories"
        and "Later steps of single-series intervals"); None otherwise."""
        if not self.result.get("engine"):
            return None
        steps = self.result.get("steps") or []
        if steps and all(s["p97_5"] - s["p2_5"] <= 1e-9 * max(1.0, abs(s["median"])) for s in steps):
            shape = ("are all equal" if len({v for v in self.values if v is not None}) == 1
                     else "follow a pattern the models reproduce exactly")
            return (f"The band has no width: the {len(self.values)} values fitted {shape}, so every backtest error "
                    f"was 0. It says the past did not vary, not "
                    f"that the future cannot: a change the history never showed (new users, a cluster retired) is "
                    f"not in it.")
        if len(self.values) < SHORT_HISTORY_VALUES:
            return (f"A short history: {len(self.values)} values fitted. On public yearly series with 8-12 values, "
                    f"intervals made this way held about 67-78% of the later points at 80%, not 80% "
                    f"(docs/forecasting.md, \"Intervals on short histories\"): read the band as narrower than it "
                    f"should be.")
        if self.frequency == "A":  # a stored fit is one series on its own: no panel to calibrate the pooled member
            return ("A yearly series forecast on its own: on five public panels of yearly series (M1, M3, tourism, "
                    "GDP, population) forecast one at a time, intervals made this way held about 68-79% of the later "
                    "years at 80%, fewer at the later steps (docs/forecasting.md, \"Later steps of single-series "
                    "intervals\"): read the band as narrower than it should be, most of all at its far end.")
        return None

    @property
    def yearly_units(self) -> str:
        """Units of the yearly figures: flows (core-hours, jobs) are a year's months summed, so per year; a
        stock (PB) or a mean (users) keeps the series' own units."""
        base = self.units.removesuffix("/month")
        flow = YEAR_AGGREGATE.get(self.metric) == "sum"
        return f"{base}/year" if flow and self.units.endswith("/month") else base

    @property
    def accuracy_caveat(self) -> str | None:
        """What a reader should know when the forecast's own backtest did worse than a naive step: MASE above 1
        means its errors at the asked horizon exceeded the history's typical change from one period to the
        next (seasonal: one season to the next); None otherwise."""
        mase = (self.errors or {}).get("mase")
        if not self.result.get("engine") or mase is None or not mase > 1:
            return None
        horizon = (self.errors or {}).get("horizon") or self.options.get("horizon")
        ahead = f" up to {horizon} {self.period_unit} ahead" if horizon else ""
        return (f"Backtest MASE {mase:.2f}: in the backtest this forecast's errors{ahead} were larger than the "
                f"history's typical change from one period to the next (for a seasonal series, from the same "
                f"period a year before). The series moves more than it can be predicted this far ahead: plan on "
                f"the 80% band, not the median.")

    @property
    def storage_caveat(self) -> str | None:
        """A storage series whose file systems were first scanned in different months starts when every one had
        been (forecasts.demand.storage_series): the months before are left out, and this says so; and months with
        no scan carry the last scans forward, which this counts."""
        left = (self.result or {}).get("storage_left_out")
        carried = (self.result or {}).get("storage_carried")
        notes = []
        if left:
            later = ", ".join(f"{f['name']} first scanned {f['first_scan_month'][:7]}" for f in left["filesystems"])
            notes.append(f"Storage history starts {left['start'][:7]}, when every file system had been scanned "
                         f"({later}); the months from {left['from'][:7]} are left out: there the sum lacked those "
                         f"file systems, and each one's first scan would have entered as a jump from 0 that is not "
                         f"growth.")
        if carried:
            notes.append(f"{carried['carried']} of the {carried['months']} months had no scan of any file system: "
                         f"their value is the last scans' carried forward. Scanning monthly gives the fit a "
                         f"figure for every month.")
        return " ".join(notes) or None

    @cached_property  # two queries; the pages read it twice (whether, then what); a list primes it (below)
    def logs_caveat(self) -> str | None:
        """One cluster's series whose logs end months before the latest logs loaded (other clusters'): its history
        stops there, and nothing in it says whether the cluster was retired or its logs not loaded since."""
        if not self._logs_caveat_applies():
            return None
        from forecasts.accounting.selectors import logs_end

        return self._logs_caveat_text(logs_end(self.cluster), logs_end())

    def _logs_caveat_applies(self) -> bool:
        return bool(self.cluster_id) and not self.external_series_id and self.metric != self.Metric.STORAGE_PB

    def _logs_caveat_text(self, own: datetime | None, latest: datetime | None) -> str | None:
        if own is None or latest is None:
            return None
        behind = (latest.year - own.year) * 12 + latest.month - own.month
        if behind < 2:  # the same month or the next: no whole month of the other clusters' logs is missing
            return None
        name = self.cluster.name
        return (f"{name}'s logs end {own:%Y-%m-%d}, {behind} months before the latest logs loaded "
                f"({latest:%Y-%m-%d}, other clusters): its history and this forecast start from there. If {name} "
                f"was retired, this is not demand to plan for; if its logs were not loaded since, load them "
                f"(ingest_accounting) and fit again.")

    @classmethod
    def prime_logs_caveats(cls, fits: Iterable[ForecastFit]) -> None:
        """Compute ``logs_caveat`` of many fits from one query of every cluster's logs' end, instead of two
        queries a fit (the API's list of fits); ``select_related("cluster")`` keeps the names query-free."""
        fits = list(fits)
        if not any(fit._logs_caveat_applies() for fit in fits):
            for fit in fits:
                fit.__dict__["logs_caveat"] = None
            return
        from forecasts.accounting.selectors import logs_ends_by_cluster

        ends = logs_ends_by_cluster()
        latest = max((end for end in ends.values() if end is not None), default=None)
        for fit in fits:
            fit.__dict__["logs_caveat"] = (fit._logs_caveat_text(ends.get(fit.cluster_id), latest)
                                           if fit._logs_caveat_applies() else None)

    def summary(self) -> dict[str, Any]:
        """The JSON summary the command prints and the API returns."""
        return {
            "fit": self.pk,
            "series": self.series_label,
            "metric": self.metric,
            "cluster": self.cluster.name if self.cluster_id else None,
            "department": self.department.code if self.department_id else None,
            "exclude_department": self.exclude_department.code if self.exclude_department_id else None,
            "external_series": self.external_series_id,
            "units": self.units,
            "yearly_units": self.yearly_units,
            "frequency": self.frequency,
            "history_from": self.start.isoformat(),
            "history_through": self.through.isoformat(),
            "periods_used": len(self.values),
            "family": self.family,
            "selection": self.selection,
            "reason": self.reason,
            "log_scale": self.result.get("log"),
            "parameters": self.parameters,
            "backtest": self.errors,
            "yearly": self.yearly,
            "options": self.options,
            "members": [
                {k: f.get(k) for k in ("family", "mase", "smape", "weight", "rank", "message")}
                for f in self.result.get("fits", []) if "weight" in f and f["family"] != "combined"
            ],
            "partial_period": self.result.get("partial_period"),
            "first_part_period": self.result.get("first_part_period"),
            "log_reason": self.result.get("log_reason"),
            "interval_caveat": self.interval_caveat,
            "accuracy_caveat": self.accuracy_caveat,
            "logs_caveat": self.logs_caveat,
            "storage_caveat": self.storage_caveat,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "seconds": round(self.seconds, 3),
        }
