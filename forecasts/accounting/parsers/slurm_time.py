"""Sacct time stamps to UTC datetimes, cached (pure core, no Django)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo

from forecasts.accounting.parsers.slurm_fields import FieldError

_TIME_CACHE_LIMIT = 20_000
_fromiso = datetime.fromisoformat
_TIME_NONE = {"": None, "Unknown": None, "None": None, "unknown": None, "N/A": None}


class TimeParser:
    """Cached ``str -> UTC datetime | None`` for sacct times written in zone ``tz``.

    ``cache`` is exposed so the row loop can try a plain dict lookup first.  On a
    miss the UTC offset of the local hour is looked up once per hour and the time
    parsed as ``fromisoformat(s + "+00:00") - offset`` (``datetime.replace(tzinfo=)``
    costs ~1.5 us on CPython 3.11; this costs ~0.25 us).  Local times that do not
    exist or are ambiguous (DST changes) resolve as ``replace(tzinfo=tz)`` does (fold=0); the
    row parser then re-reads an End in a repeated hour (``in_repeated_hour``) in the pass that
    its Elapsed, or its Start, says (``slurm_rows``).
    """

    __slots__ = ("tz", "cache", "_offsets", "_repeated", "_zero", "is_utc")

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.cache: dict[str, datetime | None] = dict(_TIME_NONE)
        self._offsets: dict[str, timedelta] = {}
        self._repeated: dict[str, bool] = {}
        self._zero = self.is_utc = tz is UTC or tz.utcoffset(None) == timedelta(0) and _is_fixed(tz)

    def __call__(self, s: str) -> datetime | None:
        try:
            return self.cache[s]
        except KeyError:
            return self.miss(s)

    def miss(self, s: str) -> datetime | None:
        """Parse and cache a time not in ``cache`` (raises FieldError when it is not a time)."""
        try:
            dt = _fromiso(s + "+00:00")  # the common naive YYYY-MM-DDTHH:MM:SS
        except ValueError:
            return self._slow(s)
        if not self._zero:
            off = self._offsets.get(s[:13])
            if off is None:
                off = self._offset(s)
            if off:
                dt -= off
        cache = self.cache
        if len(cache) > _TIME_CACHE_LIMIT:
            cache.clear()
            cache.update(_TIME_NONE)
        cache[s] = dt
        return dt

    def in_repeated_hour(self, s: str) -> bool:
        """Whether local time ``s`` lies in an hour a DST change repeats (its reading is ambiguous); cached
        per hour, so the row loop can ask of every End of a local-time log."""
        key = s[:13]
        hit = self._repeated.get(key)
        if hit is None:
            if len(self._repeated) > _TIME_CACHE_LIMIT:
                self._repeated.clear()
            hit = self._repeated[key] = later_reading(key + ":30:00", self.tz) is not None
        return hit

    def _offset(self, s: str) -> timedelta:
        key = s[:13]
        try:
            naive = datetime.fromisoformat(key + ":00:00")
        except ValueError:
            naive = datetime.fromisoformat(s)
        off = self.tz.utcoffset(naive) or timedelta(0)
        if len(self._offsets) > _TIME_CACHE_LIMIT:
            self._offsets.clear()
        self._offsets[key] = off
        return off

    def _slow(self, s: str) -> datetime | None:
        st = s.strip()
        if st in _TIME_NONE:
            return None
        try:
            dt = datetime.fromisoformat(st)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=self.tz)
            dt = dt.astimezone(UTC)
        except (ValueError, OverflowError):
            raise FieldError(f"{s!r} is not a time") from None
        self.cache[s] = dt
        return dt


def later_reading(s: str, tz: tzinfo) -> datetime | None:
    """The UTC time of local time ``s`` in the second pass of an hour a DST change repeats (fold=1), or
    None when ``s`` is not in such an hour (or not a plain ISO time): what a stamp means when its first
    reading falls before the job's start."""
    try:
        naive = datetime.fromisoformat(s.strip())
    except ValueError:
        return None
    if naive.tzinfo is not None:
        return None
    first, second = naive.replace(tzinfo=tz), naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() == second.utcoffset():
        return None
    return second.astimezone(UTC)


def _is_fixed(tz: tzinfo) -> bool:
    """True for zones without DST (timezone objects, zoneinfo "UTC"/"Etc/UTC")."""
    if isinstance(tz, timezone):
        return True
    return getattr(tz, "key", "") in ("UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/Universal", "Zulu")
