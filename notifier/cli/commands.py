"""The flags of ``rules``, ``dead-letters``, ``silence`` and ``sinks``, and their handlers.

Each subcommand sets ``handler``, a function of the parsed arguments
returning the exit code. A handler imports its command's module (the
config models, the rules, the Kubernetes client, the sinks) only when that
command runs, with the cyclic GC paused (``notifier/importing.py``): ``run``
and ``--help`` import none of the other commands' modules.
"""

from __future__ import annotations

import argparse
import getpass
import os
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from notifier.importing import collection_paused
from notifier.origin import Origin

if TYPE_CHECKING:
    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def add_rules_commands(subparsers: Commands) -> None:
    rules = subparsers.add_parser("rules", help="check a config file or try it on an object")
    commands = rules.add_subparsers(dest="rules_command", required=True)
    check = commands.add_parser("check", help="load a config file and report every error")
    check.add_argument("file", type=Path, help="the config file")
    check.add_argument(
        "--no-files",
        action="store_true",
        help="do not read the sinks' *_file secrets and TLS files (they are in the pod, not "
        "here); everything else is checked as run checks it",
    )
    check.add_argument(
        "--service-account",
        metavar="NAMESPACE/NAME",
        help="ask the cluster (your kubeconfig) whether this service account has the RBAC the "
        "rules' enrich: parts need; exit 1 if not, 3 if the cluster cannot be asked",
    )
    check.add_argument("--kubeconfig", default=None, help="with --service-account")
    check.add_argument("--context", default=None, help="with --service-account")
    check.set_defaults(handler=_rules_check)
    _add_rules_test(commands)
    _add_rules_timeline(commands)


def _add_rules_test(commands: Commands) -> None:
    test = commands.add_parser("test", help="show what the rules do with one change")
    test.add_argument("file", type=Path, help="the config file")
    test.add_argument("--old", type=Path, help="the object before (omit for an add)")
    test.add_argument("--new", type=Path, help="the object after (omit for a delete)")
    test.add_argument(
        "--explain",
        action="store_true",
        help="say why other rules did not match, and show the body each sink would send",
    )
    test.add_argument(
        "--resolved", action="store_true", help="with --explain: the bodies of the resolutions"
    )
    test.add_argument(
        "--origin",
        choices=[o.value for o in Origin],
        default=Origin.LIVE.value,
        help="how the change was seen (live by default)",
    )
    test.add_argument(
        "--namespace-labels", default=None, help="labels of the object's namespace: k=v,k2=v2"
    )
    test.add_argument("--payload", action="store_true", help="the sinks' bodies, as --explain")
    test.add_argument("--blocks", action="store_true", help="the sinks' bodies, as --explain")
    test.add_argument("--silences", type=Path, help="silences.json, or its ConfigMap as YAML")
    test.add_argument(
        "--silences-config-map", metavar="NAMESPACE/NAME", help="read the silences from here"
    )
    test.add_argument("--kubeconfig", default=None, help="with --silences-config-map")
    test.add_argument("--context", default=None, help="with --silences-config-map")
    test.set_defaults(handler=_rules_test)


def _add_rules_timeline(commands: Commands) -> None:
    timeline = commands.add_parser("timeline", help="play an object's states over time")
    timeline.add_argument("file", type=Path)
    timeline.add_argument("states", nargs="+", help="FILE@TIME: 0s, 15m, or an RFC 3339 time")
    timeline.add_argument("--every", default="1m", help="between states with no time of their own")
    timeline.add_argument("--until", default="1h", help="how long the clock runs after the last")
    timeline.set_defaults(handler=_rules_timeline)


def add_dead_letter_commands(subparsers: Commands) -> None:
    group = subparsers.add_parser("dead-letters", help="list or resend what delivery gave up on")
    commands = group.add_subparsers(dest="dead_letters_command", required=True)
    listing = commands.add_parser("list", help="the dead letters, oldest first")
    _dead_letter_flags(listing)
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(handler=_dead_letters_list)
    replay = commands.add_parser("replay", help="send dead letters again, once each")
    _dead_letter_flags(replay)
    replay.add_argument("--dry-run", action="store_true", help="say what would be sent")
    replay.set_defaults(handler=_dead_letters_replay)


def _dead_letter_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=Path(os.environ.get("KUBE_NOTIFIER_CONFIG", "/etc/kube-notifier/config.yaml")),
        help="the service's config file [KUBE_NOTIFIER_CONFIG]",
    )
    parser.add_argument(
        "--state",
        default=os.environ.get("KUBE_NOTIFIER_STATE", ""),
        help="the state file; default: the config's state.path [KUBE_NOTIFIER_STATE]",
    )
    parser.add_argument("--sink", help="only this sink's")
    parser.add_argument("--reason", help="only those given up for this reason (http_400, ...)")
    parser.add_argument("--limit", type=int, default=100, help="at most this many (100)")


def add_silence_commands(subparsers: Commands) -> None:
    group = subparsers.add_parser("silence", help="mute matching notifications for a while")
    commands = group.add_subparsers(dest="silence_command", required=True)
    add = commands.add_parser("add", help="add a silence; prints its id")
    add.add_argument("--match", required=True, help="namespace=payments,kind=Pod,name=web-*,...")
    add.add_argument("--for", dest="duration", default="1h", help="how long: 30m, 2h, 1d")
    add.add_argument("--comment", default="", help="why, for whoever reads the list")
    add.add_argument("--author", default=_whoami(), help="who (default: the user name)")
    add.set_defaults(handler=_silence_add)
    listing = commands.add_parser("list", help="the silences, active first")
    listing.add_argument("--all", action="store_true", help="also those that ended")
    listing.set_defaults(handler=_silence_list)
    expire = commands.add_parser("expire", help="end a silence now")
    expire.add_argument("id", help="the id `silence add` printed")
    expire.set_defaults(handler=_silence_expire)
    for parser in (add, listing, expire):
        _silence_flags(parser)


def _silence_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config-map",
        default=os.environ.get("KUBE_NOTIFIER_SILENCES", ""),
        help="NAMESPACE/NAME of the silences ConfigMap [KUBE_NOTIFIER_SILENCES]",
    )
    parser.add_argument("--kubeconfig", default=None, help="kubeconfig (default as kubectl)")
    parser.add_argument("--context", default=None, help="kubeconfig context")


def _whoami() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def add_sink_commands(subparsers: Commands) -> None:
    sinks = subparsers.add_parser("sinks", help="try a sink of a config file")
    commands = sinks.add_subparsers(dest="sinks_command", required=True)
    test = commands.add_parser("test", help="send one marked test notification through a sink")
    test.add_argument("name", help="the sink's name in the config")
    test.add_argument(
        "--config", type=Path, required=True, help="the config file (its secret files are read)"
    )
    test.set_defaults(handler=_sinks_test)


# The handlers: each imports its command's module when that command runs (module docstring).


def _rules_check(args: argparse.Namespace) -> int:
    # Paused to the end: what a file makes (about a million objects for 20,000 rules, bounded
    # by its size) lives until the command ends, and each collection would rescan it all.
    with collection_paused():
        from notifier.cli.rules_check import run_check  # noqa: PLC0415

        return run_check(args, done=args.done)


def _rules_test(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.rules import run_test  # noqa: PLC0415

    return int(args.done(run_test(args)))


def _rules_timeline(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.timeline import run_timeline  # noqa: PLC0415

    return int(args.done(run_timeline(args)))


def _dead_letters_list(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.dead_letters import run_list  # noqa: PLC0415

    return run_list(args)


def _dead_letters_replay(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.dead_letters import run_replay  # noqa: PLC0415

    return run_replay(args)


def _silence_add(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.silences import run_add  # noqa: PLC0415

    return run_add(args)


def _silence_list(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.silences import run_list  # noqa: PLC0415

    return run_list(args)


def _silence_expire(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.silences import run_expire  # noqa: PLC0415

    return run_expire(args)


def _sinks_test(args: argparse.Namespace) -> int:
    with collection_paused():
        from notifier.cli.sinks import run_test  # noqa: PLC0415

    return run_test(args)
