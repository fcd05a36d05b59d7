"""The scale bench's table: each figure beside issue #16's target for it, met or not met.

Targets (issue #16, "Sized for 100k Pods"): steady RSS <= 200 MiB at
100,000 Pods; peaks during a 410 relist and a restart with saved state
<= 1.5x the steady RSS; ready <= 15 s; >= 3,000 changes/s end to end on
one core with nothing lost. The baseline's ratios are baseline / ours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from bench import speed

Figures = dict[str, Any]
STEADY_RSS_MIB = 200.0
PEAK_OVER_STEADY = 1.5
READY_S = 15.0
CHANGES_PER_S = 3000.0


class Target(NamedTuple):
    name: str
    value: float
    wanted: str
    met: bool


def _ratio(value: float, steady: float) -> float:
    return value / steady if steady else float("inf")


def targets(figures: Figures) -> list[Target]:
    fresh, relist, restart = figures["first_start"], figures["relist"], figures["restart"]
    flow = figures["throughput"]
    steady = fresh["steady_rss_mib"]
    relist_peak, restart_peak = relist["peak_rss_mib"], restart["peak_rss_mib"]
    nothing_lost = flow["lost"] == 0 and flow["unexpected"] == 0
    return [
        Target("ready (s)", fresh["ready_s"], f"<= {READY_S:g}", fresh["ready_s"] <= READY_S),
        Target("steady RSS (MiB)", steady, f"<= {STEADY_RSS_MIB:g}", steady <= STEADY_RSS_MIB),
        Target(
            "peak RSS during a 410 relist (x steady)",
            _ratio(relist_peak, steady),
            f"<= {PEAK_OVER_STEADY:g}",
            _ratio(relist_peak, steady) <= PEAK_OVER_STEADY,
        ),
        Target(
            "peak RSS of a restart with saved state (x steady)",
            _ratio(restart_peak, steady),
            f"<= {PEAK_OVER_STEADY:g}",
            _ratio(restart_peak, steady) <= PEAK_OVER_STEADY,
        ),
        Target(
            "changes/s end to end, nothing lost",
            flow["changes_per_s"],
            f">= {CHANGES_PER_S:g}, 0 lost",
            flow["changes_per_s"] >= CHANGES_PER_S and nothing_lost,
        ),
    ]


ROWS: list[tuple[str, Callable[[Figures], str]]] = [
    ("ready / acted on (s)", lambda f: f"{f['ready_s']:.2f} / {f['acted_on_s']:.2f}"),
    ("steady RSS (MiB)", lambda f: f"{f['steady_rss_mib']:.0f}"),
    ("peak RSS, VmHWM (MiB)", lambda f: f"{f['peak_rss_mib']:.0f}"),
    ("threads", lambda f: f"{f['threads']}"),
]


def render(figures: Figures) -> str:
    plan = figures["plan"]
    lines = [
        *([speed.line(figures["speed_at_start"])] if "speed_at_start" in figures else []),
        f"kube-notifier against the stand-in: {plan['pods']:,} Pods in "
        f"{plan['namespaces']:,} namespaces (+ {figures['deployments']:,} Deployments and "
        f"as many Services); kube-notifier pinned to CPU {plan['notifier_cpu']}",
        "",
        "| | all namespaces | restart (saved state) | "
        f"watch.namespaces: {plan['watch_namespaces']} |",
        "| --- | ---: | ---: | ---: |",
    ]
    starts = [figures["first_start"], figures["restart"], figures.get("namespaced")]
    for label, show in ROWS:
        lines.append(f"| {label} | " + " | ".join(show(s) if s else "-" for s in starts) + " |")
    relist, flow = figures["relist"], figures["throughput"]
    lines += [
        "",
        f"410 relist: every watch ended ({relist['watches_ended']}), lists again in "
        f"{relist['relisted_s']:.1f}s, peak RSS {relist['peak_rss_mib']:.0f} MiB "
        f"(sampled every 50 ms), {relist['rss_after_mib']:.0f} MiB after",
        f"restart: stopped in {figures['restart']['stop_s']:.1f}s; "
        f"{figures['restart']['notifications_after_restart']} notifications after it (0 expected)",
        f"bursts: {flow['changes']:,} changes offered at {flow['offered_per_s']:,.0f}/s; "
        f"last notification after {flow['seconds_to_last_notification']:.1f}s: "
        f"{flow['changes_per_s']:,.0f} changes/s, {flow['notifications_per_s']:,.0f} "
        f"notifications/s, {flow['changes_per_cpu_s']:,.0f} changes per CPU-second",
        f"  the rule matched {flow['expected']:,}: told {flow['told']:,}, coalesced "
        f"{flow['coalesced']:,}, lost {flow['lost']:,}, told twice {flow['duplicates']:,}, "
        f"unexpected {flow['unexpected']:,}",
    ]
    lines += ["", *_kubewatch_lines(figures), "", *_baseline_lines(figures)]
    lines += ["", "| target | measured | wanted | |"]
    lines.append("| --- | ---: | --- | --- |")
    for target in targets(figures):
        verdict = "met" if target.met else "NOT MET"
        lines.append(f"| {target.name} | {target.value:,.2f} | {target.wanted} | {verdict} |")
    return "\n".join(lines)


def _baseline_lines(figures: Figures) -> list[str]:
    base = figures.get("baseline")
    if not base or "skipped" in base:
        return [f"baseline: skipped ({(base or {}).get('skipped', 'not asked for')})"]
    ours = figures["first_start"]
    return [
        "baseline (kubernetes client, paged list + Watch.stream(deserialize=False) into dicts):",
        f"  ready {base['ready_s']:.2f}s ({base['ready_s'] / ours['ready_s']:.1f}x ours), "
        f"steady RSS {base['steady_rss_mib']:,.0f} MiB "
        f"({base['steady_rss_mib'] / ours['steady_rss_mib']:.1f}x ours), "
        f"peak {base['peak_rss_mib']:,.0f} MiB",
    ]


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _kubewatch_lines(figures: Figures) -> list[str]:
    """kubewatch's figures beside ours, and kubewatch / ours (above 1x: ours is better)."""
    peer = figures.get("kubewatch")
    if not peer or "skipped" in peer:
        return [f"kubewatch: skipped ({(peer or {}).get('skipped', 'not asked for')})"]
    fresh, flow, over = (
        figures["first_start"],
        figures["throughput"],
        figures["kubewatch_over_ours"],
    )
    ours_cpu = flow["cpu_s"] / flow["changes"] * 1000 if flow["changes"] else float("nan")
    rows = [
        ("ready (s)", fresh["ready_s"], peer["ready_s"], over["ready"]),
        ("CPU s by ready (ours: acted on)", fresh["cpu_s_to_quiet"], peer["cpu_s_to_quiet"],
         over["cpu_s_to_quiet"]),
        ("steady RSS (MiB)", fresh["steady_rss_mib"], peer["steady_rss_mib"], over["steady_rss"]),
        ("peak RSS, VmHWM (MiB)", fresh["peak_rss_mib"], peer["peak_rss_mib"], over["peak_rss"]),
        ("CPU s per 1,000 changes (bursts)", ours_cpu, peer["cpu_s_per_1000_changes"],
         over["cpu_per_1000_changes"]),
        ("changes/s end to end", flow["changes_per_s"], peer["changes_per_s"], None),
    ]  # fmt: skip
    short = peer["told"] < peer["changes"]
    lines = [
        f"kubewatch, same stand-in, same core ({peer['binary']}); it posts every Pod update "
        f"({peer['told']:,} of {peer['changes']:,} changes), we the rule's half:",
        *(["  it did not post them all: its burst figures (CPU, rate) compare nothing"] * short),
        "| | kube-notifier | kubewatch | kubewatch / ours |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, ours, theirs, ratio in rows:
        lines.append(f"| {label} | {ours:,.2f} | {theirs:,.2f} | {_x(ratio)} |")
    rate = over["changes_per_s_ours_over_kubewatch"]
    lines.append(f"(changes/s: ours / kubewatch {_x(rate)})")
    return lines
