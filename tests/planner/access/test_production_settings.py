"""Production settings refuse a missing or placeholder SECRET_KEY, and `check --deploy` flags one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = "change-me-to-a-long-random-string-of-at-least-fifty-characters"
GOOD = "k3N0v9-Jq2xP7wLm4Zr8Ty1Ub6Hc5Vd0Ae3Sf9Gi2Oj7Kl4Qn8Wp1Mx6Yb5Rt0Ue"


def _settings_with(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "PRODUCTION")}
    return subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                           "print(settings.SESSION_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "planner.settings", "PLANNER_DATA_DIR": str(tmp_path),
                               "DATABASE_URL": os.environ.get("DATABASE_URL") or "postgres://x@127.0.0.1/x", **env})


@pytest.mark.parametrize(("key", "reason"), [("", "SECRET_KEY is not set"),
                                             (PLACEHOLDER, "still the placeholder from env.example"),
                                             ("short-but-random-Xy7", "shorter than 50 characters")])
def test_production_refuses_to_start_without_a_real_secret_key(tmp_path: Path, key: str, reason: str) -> None:
    result = _settings_with(tmp_path, PRODUCTION="1", SECRET_KEY=key)
    assert result.returncode != 0 and reason in result.stderr
    assert "production (PRODUCTION=1) refuses to start" in result.stderr


def test_production_with_a_real_key_starts_with_secure_cookies_and_hsts(tmp_path: Path) -> None:
    result = _settings_with(tmp_path, PRODUCTION="1", SECRET_KEY=GOOD)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "31536000"]


def test_a_development_checkout_still_starts_with_nothing_set(tmp_path: Path) -> None:
    result = _settings_with(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "0"]


def test_check_deploy_flags_the_placeholder_key() -> None:
    from django.test import override_settings

    from planner.access.checks import secret_key_is_real

    with override_settings(SECRET_KEY=PLACEHOLDER):
        assert [e.id for e in secret_key_is_real()] == ["planner.E001"]
    with override_settings(SECRET_KEY=GOOD):
        assert secret_key_is_real() == []
