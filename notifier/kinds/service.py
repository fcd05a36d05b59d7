"""Services: no states; their type, ports and selector changing are the news."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.objects import Kind, KubeObject, Wire


class ServicePort(Wire, frozen=True):
    name: str = ""
    protocol: str = "TCP"
    port: int = 0
    target_port: int | str | None = None
    node_port: int | None = None


class ServiceSpec(Wire, frozen=True):
    type: str = "ClusterIP"
    cluster_ip: str = msgspec.field(default="", name="clusterIP")
    external_name: str = ""
    ports: tuple[ServicePort, ...] = ()
    selector: dict[str, str] = {}


class LoadBalancerIngress(Wire, frozen=True):
    ip: str = ""
    hostname: str = ""


class LoadBalancerStatus(Wire, frozen=True):
    ingress: tuple[LoadBalancerIngress, ...] = ()


class ServiceStatus(Wire, frozen=True):
    load_balancer: LoadBalancerStatus = LoadBalancerStatus()


class Service(KubeObject, frozen=True, tag="Service"):
    spec: ServiceSpec = ServiceSpec()
    status: ServiceStatus = ServiceStatus()


def render_port(port: ServicePort) -> str:
    """kubectl's ``80:30080/TCP`` plus ``->8080`` for the target and ``name=`` in front."""
    text = f"{port.port}:{port.node_port}" if port.node_port else str(port.port)
    text = f"{text}/{port.protocol}"
    if port.target_port is not None:
        text = f"{text}->{port.target_port}"
    return f"{port.name}={text}" if port.name else text


def render_ports(spec: ServiceSpec) -> str:
    return ",".join(render_port(port) for port in spec.ports)


def render_selector(selector: Mapping[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in sorted(selector.items()))


def _states(service: Service) -> frozenset[str]:
    return frozenset()


def _signals(old: Service, new: Service) -> Iterator[str]:
    if old.spec.type != new.spec.type:
        yield "TypeChanged"
    # Compared as rendered, so a signal always has its change (and 8080 == "8080" is no change).
    if old.spec.ports != new.spec.ports and render_ports(old.spec) != render_ports(new.spec):
        yield "PortsChanged"
    if old.spec.selector != new.spec.selector:
        yield "SelectorChanged"


def _diff(diff: Diff, old: Service, new: Service) -> None:
    was, now = old.spec, new.spec
    diff.text("spec.type", was.type, now.type)
    diff.text("spec.clusterIP", was.cluster_ip, now.cluster_ip)
    diff.text("spec.externalName", was.external_name, now.external_name)
    if was.ports != now.ports:
        diff.text("spec.ports", render_ports(was), render_ports(now))
    if was.selector != now.selector:
        diff.text("spec.selector", render_selector(was.selector), render_selector(now.selector))
    if old.status != new.status:
        diff.text("status.loadBalancer.ingress", _ingress(old.status), _ingress(new.status))


def _ingress(status: ServiceStatus) -> str:
    return ",".join(entry.ip or entry.hostname for entry in status.load_balancer.ingress)


def _facts(service: Service, old: Service | None) -> Facts:
    """A Service has no conditions to quote: its changes tell the story."""
    return facts()


def _share(sharing: Sharing, service: Service) -> Service:
    spec = msgspec.structs.replace(
        service.spec,
        type=sharing.values.intern(service.spec.type),
        ports=sharing.values.intern(service.spec.ports),
        selector=sharing.mapping(service.spec.selector),
    )
    return msgspec.structs.replace(service, metadata=sharing.metadata(service.metadata), spec=spec)


SERVICE = KindSpec(
    kind=Kind.SERVICE,
    struct=Service,
    api=ApiResource("", "v1", "services"),
    summary="no states: type, ports and selector changes",
    states={},
    signals={
        "TypeChanged": "`spec.type` changed",
        "PortsChanged": "`spec.ports` changed as rendered (a nodePort allocated included)",
        "SelectorChanged": "`spec.selector` changed",
    },
    states_of=_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=_share,
)
