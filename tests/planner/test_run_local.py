"""`make run` serves the demo without the development autoreloader (DEBUG off), with it under DEBUG=1."""

from __future__ import annotations

from planner.management.commands.run_local import runserver_command


def test_the_demo_server_does_not_reload_on_a_source_change_unless_debugging() -> None:
    assert runserver_command("127.0.0.1:8000", debug=False)[-2:] == ["127.0.0.1:8000", "--noreload"]
    assert runserver_command("127.0.0.1:8000", debug=True)[-1] == "127.0.0.1:8000"
