"""docker/README.md, env.example and compose.yml agree: the README's steps, followed from a clean
checkout as far as a machine without a Docker engine can, give a configuration the production
settings accept (`check --deploy`), and every setting the example names is one the product reads."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"


def _env_file(text: str) -> dict[str, str]:
    """KEY=VALUE lines as compose reads an env_file (comments and blank lines skipped)."""
    return dict(line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _readme_steps() -> str:
    return (DOCKER / "README.md").read_text().split("```sh", 1)[1].split("```", 1)[0]


def test_compose_reads_the_file_the_readme_tells_you_to_make() -> None:
    steps = _readme_steps()
    assert "cp docker/env.example docker/env" in steps
    compose = yaml.safe_load((DOCKER / "compose.yml").read_text())
    env_files = compose["x-app"]["env_file"]
    assert [e["path"] for e in env_files] == ["env"]  # relative to docker/, i.e. docker/env
    for service in ("migrate", "web", "worker", "beat"):
        assert compose["services"][service]["env_file"] == env_files  # every app service through the anchor
    assert compose["x-app"]["environment"]["PRODUCTION"] == "1"
    assert {"postgres", "redis", "migrate", "web", "worker", "beat"} <= set(compose["services"])


def test_every_setting_env_example_names_is_read_by_the_product() -> None:
    named = set(re.findall(r"^#?([A-Z][A-Z0-9_]*)=", (DOCKER / "env.example").read_text(), re.M))
    sources = "".join(p.read_text() for p in [ROOT / "planner" / "settings.py", *(ROOT / "planner").rglob("*.py")])
    unread = sorted(k for k in named if f'"{k}"' not in sources)
    assert not unread, f"env.example names settings nothing reads: {unread}"


def test_the_readme_steps_give_a_configuration_that_passes_check_deploy(tmp_path: Path) -> None:
    # the README's steps: copy the example, append a generated key, delete the placeholder line
    text = (DOCKER / "env.example").read_text()
    text += "SECRET_KEY=" + secrets.token_urlsafe(50) + "\n"
    lines = text.splitlines()
    placeholder = next(i for i, line in enumerate(lines) if line.startswith("SECRET_KEY=change-me"))
    env = _env_file("\n".join(lines[:placeholder] + lines[placeholder + 1:]))
    compose = yaml.safe_load((DOCKER / "compose.yml").read_text())
    env.update(compose["x-app"]["environment"])
    # the compose network's host names do not resolve here: the machine's (or a dummy) database;
    # `check` does not connect to it
    env["DATABASE_URL"] = os.environ.get("DATABASE_URL") or "postgres://planner@127.0.0.1:5432/planner"
    env["PLANNER_DATA_DIR"] = str(tmp_path)
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    # and with the placeholder left in, the stack refuses to start, as the README says
    placeholder_key = _env_file((DOCKER / "env.example").read_text())["SECRET_KEY"]
    refused = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                             env={**base, **env, "SECRET_KEY": placeholder_key}, timeout=120)
    assert refused.returncode != 0 and "SECRET_KEY" in refused.stderr
