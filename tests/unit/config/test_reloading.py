"""Hot reload: good configs swap in atomically, bad ones leave the last good one in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from notifier.config import ConfigError, ConfigIssue, read_config_text
from notifier.config.loading import LoadedConfig
from notifier.config.metrics import hash_value
from notifier.reload.holder import RulesHolder, Staged

GOOD = """
sinks: [{name: console, type: console}]
rules:
  - {name: first, sinks: [console]}
"""


def _gauge(name: str) -> float | None:
    return REGISTRY.get_sample_value(name)


def _holder(clock_value: list[float]) -> RulesHolder:
    return RulesHolder(read_config_text(GOOD, "cm", environ={}), clock=lambda: clock_value[0])


def test_initial_load_is_recorded() -> None:
    holder = _holder([100.0])
    assert holder.last_result.ok
    assert _gauge("kube_notifier_config_last_reload_successful") == 1
    assert _gauge("kube_notifier_config_last_reload_success_timestamp_seconds") == 100
    assert _gauge("kube_notifier_config_hash") == hash_value(holder.current.digest)


def test_good_reload_swaps_the_ruleset() -> None:
    now = [100.0]
    holder = _holder(now)
    before = holder.ruleset()
    now[0] = 200.0
    result = holder.reload_text(GOOD.replace("first", "second"), "cm", environ={})
    assert result.ok and result.changed and result.restart_needed == ()
    assert holder.ruleset() is not before
    assert [rule.name for rule in holder.ruleset().rules] == ["second"]
    assert _gauge("kube_notifier_config_last_reload_success_timestamp_seconds") == 200


def test_identical_reload_changes_nothing() -> None:
    holder = _holder([1.0])
    before = holder.ruleset()
    result = holder.reload_text(GOOD + "\n# only a comment\n", "cm", environ={})
    assert result.ok and not result.changed
    assert holder.ruleset() is before


def test_bad_reload_keeps_the_last_good_config() -> None:
    now = [100.0]
    holder = _holder(now)
    good = holder.ruleset()
    failures = (
        REGISTRY.get_sample_value("kube_notifier_config_reloads_total", {"result": "failure"}) or 0
    )
    now[0] = 300.0
    result = holder.reload_text(GOOD.replace("[console]}", "[nowhere]}"), "cm", environ={})
    assert not result.ok and not result.changed
    assert "unknown sink 'nowhere'" in str(result.issues[0])
    assert holder.ruleset() is good
    assert holder.last_result is result
    assert _gauge("kube_notifier_config_last_reload_successful") == 0
    assert _gauge("kube_notifier_config_last_reload_success_timestamp_seconds") == 100
    assert (
        REGISTRY.get_sample_value("kube_notifier_config_reloads_total", {"result": "failure"})
        == failures + 1
    )


def test_sections_needing_a_restart_are_named() -> None:
    holder = _holder([1.0])
    changed = GOOD + "watch: {workers: 8}\n"
    assert holder.reload_text(changed, "cm", environ={}).restart_needed == ("watch",)


WITH_WEBHOOK = GOOD.replace(
    "sinks: [{name: console, type: console}]",
    "sinks: [{name: console, type: console}, {name: hook, type: webhook, url: 'http://h/'}]",
).replace("sinks: [console]", "sinks: [console, hook]")


def test_a_stager_applies_the_sinks_before_the_new_rules_are_in_use() -> None:
    holder = _holder([1.0])
    seen: list[tuple[str, list[str]]] = []

    def stager(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        names = [sink.name for sink in candidate.config.sinks]
        rules_then = [rule.name for rule in holder.ruleset().rules]
        return Staged(apply=lambda: seen.append((",".join(names), rules_then)))

    holder.stage_with(stager)
    result = holder.reload_text(WITH_WEBHOOK.replace("first", "second"), "cm", environ={})

    assert result.ok and result.changed
    assert result.restart_needed == ()  # the stager applied the sinks: no restart for them
    assert seen == [("console,hook", ["first"])]  # applied while the old rules were in use
    assert [rule.name for rule in holder.ruleset().rules] == ["second"]
    holder.reload_text(WITH_WEBHOOK.replace("first", "second") + "# same\n", "cm", environ={})
    assert len(seen) == 1  # nothing changed: nothing staged


def test_a_stager_that_cannot_prepare_rejects_the_reload() -> None:
    holder = _holder([1.0])
    applied: list[bool] = []

    def stager(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        if any(sink.name == "hook" for sink in candidate.config.sinks):
            raise ConfigError([ConfigIssue("cm", None, None, "sinks", "sink 'hook': no url")])
        return Staged(apply=lambda: applied.append(True))

    holder.stage_with(stager)
    before = holder.current
    result = holder.reload_text(WITH_WEBHOOK, "cm", environ={})

    assert not result.ok and not result.changed
    assert [str(issue) for issue in result.issues] == ["cm: sinks: sink 'hook': no url"]
    assert holder.current is before and applied == []
    assert _gauge("kube_notifier_config_last_reload_successful") == 0
    assert holder.reload_text(GOOD.replace("first", "third"), "cm", environ={}).ok
    assert applied == [True]


def test_a_first_namespace_selector_needs_a_restart_for_the_namespace_watch() -> None:
    holder = _holder([1.0])
    selecting = GOOD + "  - {name: paid, match: {namespace_selector: team=pay}, sinks: [console]}\n"
    result = holder.reload_text(selecting, "cm", environ={})
    assert result.ok and result.changed  # the rules apply at once...
    assert result.restart_needed == ("rules (namespace_selector needs the namespace watch)",)
    # ...and it is said once, by the reload that brings the first such rule
    assert holder.reload_text(selecting + "# edit\n", "cm", environ={}).restart_needed == ()


def test_reload_from_file(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = RulesHolder.from_file(path)
    path.write_text(GOOD.replace("first", "renamed"))
    assert holder.reload_file(path).changed
    result = holder.reload_file(tmp_path / "gone.yaml")
    assert not result.ok and "cannot read the config" in result.issues[0].message


def test_from_file_raises_for_a_bad_config(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("rules: 3\n")
    with pytest.raises(ConfigError):
        RulesHolder.from_file(path)


CERTIFICATES = """
watch:
  kinds: [Pod, Certificate]
  resources:
    - kind: Certificate
      group: cert-manager.io
      version: v1
      resource: certificates
      states:
        Ready: {condition: Ready}
        NotReady: {condition: Ready, status: "False"}
sinks: [{name: console, type: console}]
rules:
  - {name: certs, match: {kinds: [Certificate], to: [NotReady]}, sinks: [console]}
"""


def test_a_refused_reload_changes_no_kind_anyone_holds() -> None:
    """Validation builds the candidate's kinds for itself: the refused file's states are
    nowhere, neither in the running config's kinds nor in the built-in registry."""
    from notifier.kinds.registry import KINDS
    from notifier.objects import Kind

    holder = RulesHolder(read_config_text(CERTIFICATES, "cm", environ={}))
    running = holder.current.kinds
    renamed = CERTIFICATES.replace("NotReady: {", "Unready: {")  # the rule still says NotReady
    result = holder.reload_text(renamed, "cm", environ={})
    assert not result.ok and "'NotReady'" in str(result.issues[0])
    certificate = Kind("Certificate")
    assert holder.current.kinds is running
    assert running.states_for(certificate) == {"Ready", "NotReady"}
    assert certificate not in KINDS
    fixed = renamed.replace("to: [NotReady]", "to: [Unready]")
    assert holder.reload_text(fixed, "cm", environ={}).ok
    assert holder.current.kinds.states_for(certificate) == {"Ready", "Unready"}
    assert running.states_for(certificate) == {"Ready", "NotReady"}  # a value: unchanged
