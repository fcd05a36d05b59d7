"""The generated cluster the stand-in serves: Pods, Deployments and Services as the API sends them.

Pods come from ``bench.podgen`` (~9.5 KB of JSON each, with managedFields,
two containers and a Running status), spread evenly over ``namespaces``
namespaces, each namespace holding ``DEPLOYMENTS_PER_NAMESPACE``
Deployments (one Service each) that own its Pods. Every Pod carries two
labels for the bench: ``bench`` ("1" on the first Deployment's Pods of each
namespace, "0" on the others: the rule matches only the first) and ``seq``
(the number of the last change made to it; "0" at first).

Objects are kept as the JSON bytes of a list item (no ``kind`` nor
``apiVersion``, as kube-apiserver writes list items); ``event_line`` wraps
one into a watch event. Deterministic per seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from datetime import timedelta
from typing import NamedTuple

import msgspec

from bench import podgen

DEPLOYMENTS_PER_NAMESPACE = 2
Json = podgen.Json


class Generated(NamedTuple):
    kind: str  # "Pod", "Deployment" or "Service"
    namespace: str
    name: str
    document: bytes  # a list item: no kind, no apiVersion


def namespace_name(index: int) -> str:
    return f"team-{index:04d}"


def _deployments(rng: random.Random, namespaces: int) -> list[podgen.Deployment]:
    return [
        dataclasses.replace(
            podgen._deployment(rng, index),
            namespace=namespace_name(index // DEPLOYMENTS_PER_NAMESPACE),
        )
        for index in range(namespaces * DEPLOYMENTS_PER_NAMESPACE)
    ]


def _app(deployment: podgen.Deployment) -> str:
    return deployment.name.rsplit("-", 1)[0]


def _meta(deployment: podgen.Deployment, name: str, uid: str) -> Json:
    return {
        "name": name,
        "namespace": deployment.namespace,
        "uid": uid,
        "resourceVersion": "1",
        "generation": 1,
        "creationTimestamp": podgen._ts(podgen._EPOCH),
        "labels": podgen._labels(deployment),
    }


def deployment_document(deployment: podgen.Deployment, replicas: int, uid: str) -> Json:
    selector = {"matchLabels": {"app": _app(deployment)}}
    template = {
        "metadata": {"labels": podgen._labels(deployment)},
        "spec": podgen._spec(deployment, None, None),
    }
    meta = _meta(deployment, deployment.name, uid)
    meta["annotations"] = {"deployment.kubernetes.io/revision": "1"}
    available = {
        "type": "Available",
        "status": "True",
        "reason": "MinimumReplicasAvailable",
        "message": "Deployment has minimum availability.",
    }
    return {
        "metadata": meta,
        "spec": {
            "replicas": replicas,
            "selector": selector,
            "template": template,
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
            },
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 1,
            "replicas": replicas,
            "updatedReplicas": replicas,
            "readyReplicas": replicas,
            "availableReplicas": replicas,
            "conditions": [available],
        },
    }


def service_document(deployment: podgen.Deployment, cluster_ip: str, uid: str) -> Json:
    port = {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080}
    return {
        "metadata": _meta(deployment, deployment.name, uid),
        "spec": {
            "ports": [port],
            "selector": {"app": _app(deployment)},
            "clusterIP": cluster_ip,
            "clusterIPs": [cluster_ip],
            "type": "ClusterIP",
            "sessionAffinity": "None",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "internalTrafficPolicy": "Cluster",
        },
        "status": {"loadBalancer": {}},
    }


def _pod_identity(
    rng: random.Random, deployment: podgen.Deployment, nodes: tuple[str, ...]
) -> podgen.PodIdentity:
    node_index = rng.randrange(len(nodes))
    suffix = podgen._suffix(rng, 5)
    return podgen.PodIdentity(
        deployment=deployment,
        name=f"{deployment.name}-{deployment.template_hash}-{suffix}",
        uid=podgen._uid(rng),
        node=nodes[node_index],
        pod_ip=f"10.244.{rng.randrange(256)}.{rng.randrange(1, 255)}",
        host_ip=f"10.0.{node_index // 250}.{node_index % 250}",
        created=podgen._EPOCH + timedelta(seconds=rng.randrange(86_400)),
    )


def pod_document(identity: podgen.PodIdentity, matching: bool) -> Json:
    document = podgen.pod_document(identity, podgen.PodState(resource_version=1))
    del document["kind"], document["apiVersion"]
    labels = document["metadata"]["labels"]
    document["metadata"]["labels"] = {**labels, "bench": "1" if matching else "0", "seq": "0"}
    return document


def generate(pods: int, namespaces: int, seed: int = 11) -> Iterator[Generated]:
    """Deployments and Services first, then the Pods, spread round-robin over the namespaces."""
    rng = random.Random(seed)
    deployments = _deployments(rng, namespaces)
    nodes = podgen.make_fleet(rng, deployments=1, nodes=max(50, pods // 100)).nodes
    replicas = max(1, pods // len(deployments))
    for index, deployment in enumerate(deployments):
        ns, name = deployment.namespace, deployment.name
        document = deployment_document(deployment, replicas, podgen._uid(rng))
        yield Generated("Deployment", ns, name, msgspec.json.encode(document))
        cluster_ip = f"10.96.{index // 250}.{index % 250 + 1}"
        document = service_document(deployment, cluster_ip, podgen._uid(rng))
        yield Generated("Service", ns, name, msgspec.json.encode(document))
    names: set[str] = set()
    for index in range(pods):
        ns_index = index % namespaces
        slot = (index // namespaces) % DEPLOYMENTS_PER_NAMESPACE
        deployment = deployments[ns_index * DEPLOYMENTS_PER_NAMESPACE + slot]
        identity = _pod_identity(rng, deployment, nodes)
        while identity.name in names:  # a 5-letter suffix may repeat; real names never do
            identity = _pod_identity(rng, deployment, nodes)
        names.add(identity.name)
        document = pod_document(identity, matching=slot == 0)
        yield Generated("Pod", deployment.namespace, identity.name, msgspec.json.encode(document))
