"""What a command imports: the CLI only its flags; ``run``, before it lists, what the config uses.

Each probe runs in a fresh interpreter, since this one has imported everything already.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from notifier.importing import collection_paused

# Neither the commands' modules nor their libraries, until a command is chosen.
COMMAND_MODULES = (
    "notifier.config", "notifier.rules", "notifier.sinks", "notifier.source", "notifier.state",
    "notifier.cli.rules", "notifier.cli.dead_letters", "notifier.cli.silences",
    "notifier.cli.sinks", "notifier.cli.timeline",
    "pydantic", "kubernetes", "jinja2", "yaml", "msgspec", "prometheus_client", "urllib3",
    "fastapi", "starlette", "uvicorn", "slack_sdk",
    "notifier.service", "dataclasses", "socket",  # run's options, and what they import
)  # fmt: skip
# Not before the informers list (the HTTP layer), or not at all without a sink of that type.
NOT_BEFORE_LISTING = ("fastapi", "starlette", "uvicorn", "slack_sdk", "smtplib")
WEBHOOK_ONLY = """\
sinks:
  - {name: hook, type: webhook, url: "http://127.0.0.1:9/hook"}
rules:
  - {name: crashes, match: {kinds: [Pod], events: [updated]}, sinks: [hook]}
"""


def _imported_after(code: str, watched: tuple[str, ...]) -> list[str]:
    """Which of ``watched`` (or their submodules) a fresh interpreter holds after ``code``."""
    probe = code + textwrap.dedent(f"""
        import json, sys
        watched = {watched!r}
        print(json.dumps(sorted({{m for m in sys.modules for w in watched
                                  if m == w or m.startswith(w + ".")}})))
    """)
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    found: list[str] = json.loads(shown.stdout)
    return found


def test_the_cli_imports_only_the_commands_flags() -> None:
    code = "import notifier.cli\nnotifier.cli.build_parser().parse_args(['run'])\n"
    assert _imported_after(code, COMMAND_MODULES) == []


def test_run_before_listing_imports_no_http_layer_and_no_sink_it_does_not_use(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(WEBHOOK_ONLY)
    code = textwrap.dedent(f"""
        from pathlib import Path
        import notifier.service.running
        from notifier.reload.holder import RulesHolder
        from notifier.sinks.building import build_sink
        from notifier.sinks.thread_roots import MemoryThreads
        holder = RulesHolder.from_file(Path({str(config)!r}))
        for sink in holder.current.config.sinks:
            build_sink(sink, threads=MemoryThreads()).close()
    """)
    assert _imported_after(code, NOT_BEFORE_LISTING) == []


# What loading a config does not need: the rules' engine, the transitions, the state's stores.
NOT_FOR_RULES_CHECK = (
    "notifier.rules.engine", "notifier.rules.facts.previewing", "notifier.transitions.detecting",
    "notifier.state.store", "notifier.state.outbox", "notifier.enrichment.wiring",
    "notifier.source", "sqlite3", "kubernetes", "slack_sdk", "notifier.service",
)  # fmt: skip


# Nor, when no sink needs them, the libraries of the sinks' sending, templates and metrics.
NOT_FOR_CHECKING_CONSOLE_SINKS = ("pycurl", "prometheus_client", "jinja2")
CONSOLE_ONLY = """\
sinks:
  - {name: hook, type: console}
rules:
  - {name: crashes, match: {kinds: [Pod], events: [updated]}, sinks: [hook]}
"""


@pytest.mark.parametrize(
    ("config_text", "unwanted"),
    [(WEBHOOK_ONLY, NOT_FOR_RULES_CHECK), (CONSOLE_ONLY, NOT_FOR_CHECKING_CONSOLE_SINKS)],
    ids=["no-engine-or-stores", "console-sinks-no-transfer-or-metrics"],
)
def test_rules_check_imports_only_what_loading_the_config_takes(
    tmp_path: Path, config_text: str, unwanted: tuple[str, ...]
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(config_text)
    code = textwrap.dedent(f"""
        import contextlib, io
        from notifier.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["rules", "check", {str(config)!r}]) == 0, out.getvalue()
    """)
    assert _imported_after(code, unwanted) == []


@pytest.mark.parametrize("enabled", [True, False])
def test_collection_is_paused_inside_and_as_it_was_after(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with collection_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_run_freezes_what_it_imported_with_no_collection_before(tmp_path: Path) -> None:
    """A collection between the imports and ``run``'s freeze would rescan all of them."""
    probe = textwrap.dedent(f"""
        import gc, json, sys
        before_freeze = []
        def note(phase, info):
            imported = "notifier.service.running" in sys.modules
            if phase == "start" and imported and gc.get_freeze_count() == 0:
                before_freeze.append(info["generation"])
        gc.callbacks.append(note)
        from notifier.cli import main
        code = main(["run", "--config", {str(tmp_path / "missing.yaml")!r}])
        frozen = gc.get_freeze_count()
        gc.callbacks.remove(note)
        print(json.dumps([code, before_freeze, frozen > 0]))
    """)
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    code, collections, frozen = json.loads(shown.stdout.splitlines()[-1])
    assert code != 0 and frozen  # "cannot read config", after the freeze
    assert collections == []


def test_rules_check_builds_no_receivers_own_validator(tmp_path: Path) -> None:
    """The sinks' settings are validated inside the ``Config``: none is built on its own."""
    config = tmp_path / "config.yaml"
    config.write_text(CONSOLE_ONLY)
    probe = textwrap.dedent(f"""
        import contextlib, io, json
        from notifier.cli import main
        from notifier.sinks.registry import RECEIVERS
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["rules", "check", {str(config)!r}]) == 0, out.getvalue()
        print(json.dumps([r.name for r in RECEIVERS if r.config.__pydantic_complete__]))
    """)
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(shown.stdout) == []
