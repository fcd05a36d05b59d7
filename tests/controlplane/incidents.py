"""Issue #37's incidents, as objects to create and a sign that each has played out.

Each incident lives in a namespace of its own name, so every message can be put down
to one incident (a Node's to ``node-lost``). ``wanted`` is what a person wants told:
one message per incident, none for what is not trouble, and a resolution where the
rule asks for one (``resolved``). The images are ``tests/controlplane/images.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.controlplane.images import MISSING_IMAGE, WORKLOAD_IMAGE
from tests.controlplane.statuses import Body, StatusRecorder

Manifest = dict[str, Any]
NODE_LOST = "node-lost"


def container(mode: str, **extra: Any) -> Manifest:
    return {
        "name": "main",
        "image": WORKLOAD_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "args": [mode],
        **extra,
    }


def pod_spec(main: Manifest, restart: str = "Always", **extra: Any) -> Manifest:
    return {
        "containers": [main],
        "restartPolicy": restart,
        "terminationGracePeriodSeconds": 1,
        "enableServiceLinks": False,
        "automountServiceAccountToken": False,
        "dnsPolicy": "Default",  # the test cluster has no DNS service
        **extra,
    }


def pod(name: str, spec: Manifest) -> Manifest:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def job(name: str, mode: str) -> Manifest:
    template = {"spec": pod_spec(container(mode), "Never")}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"backoffLimit": 1, "template": template},
    }


def deployment(name: str, main: Manifest) -> Manifest:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "progressDeadlineSeconds": 20,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod_spec(main)},
        },
    }


def _memory(limit: str) -> Manifest:
    return {"resources": {"limits": {"memory": limit}, "requests": {"memory": limit}}}


def filler(name: str = "filler", mode: str = "fill", limit: str = "1Mi") -> Manifest:
    """A pod writing 4 MiB into an emptyDir of ``limit``: the kubelet's eviction manager
    evicts it ("Usage of EmptyDir volume ... exceeds the limit") at its next pass. Its
    program exits 143 on SIGTERM (``fill``) or 0 (``fill-clean``)."""
    mount = {"name": "scratch", "mountPath": "/scratch"}
    main = container(mode, args=[mode, "/scratch"], volumeMounts=[mount])
    volume = {"name": "scratch", "emptyDir": {"sizeLimit": limit}}
    return pod(name, pod_spec(main, volumes=[volume]))


def _probe(path: str) -> Manifest:
    """A readiness probe on ``path``, first tried 3 s after the start (an app that takes a
    moment to be ready; without the delay, whether Running is posted before Ready is a
    race)."""
    get = {"path": path, "port": 8080}
    probe = {"httpGet": get, "initialDelaySeconds": 3, "periodSeconds": 2, "failureThreshold": 1}
    return {"readinessProbe": probe}


# -- signs that an incident has played out (on the recorder's latest bodies) -----------
def _containers(body: Body | None) -> list[Body]:
    return list(((body or {}).get("status") or {}).get("containerStatuses") or [])


def restarts(name: str, count: int) -> Callable[[StatusRecorder, str], bool]:
    def done(rec: StatusRecorder, ns: str) -> bool:
        return any(c.get("restartCount", 0) >= count for c in _containers(rec.get("Pod", ns, name)))

    return done


def phase(name: str, wanted: str) -> Callable[[StatusRecorder, str], bool]:
    def done(rec: StatusRecorder, ns: str) -> bool:
        body = rec.get("Pod", ns, name) or {}
        return bool((body.get("status") or {}).get("phase") == wanted)

    return done


def ended(name: str) -> Callable[[StatusRecorder, str], bool]:
    """``name`` reached a terminal phase, ``Succeeded`` or ``Failed``."""

    def done(rec: StatusRecorder, ns: str) -> bool:
        body = rec.get("Pod", ns, name) or {}
        return (body.get("status") or {}).get("phase") in ("Succeeded", "Failed")

    return done


def waiting(name: str, reason: str, times: int = 1) -> Callable[[StatusRecorder, str], bool]:
    """``name``'s container was seen waiting with ``reason`` at least ``times`` times."""

    def done(rec: StatusRecorder, ns: str) -> bool:
        seen = [
            change
            for change in rec.story("Pod", ns, name)
            if any(f"waiting:{reason}," in text for text in change.summary["containers"].values())
        ]
        return len(seen) >= times

    return done


def condition(kind: str, name: str, text: str) -> Callable[[StatusRecorder, str], bool]:
    """The ``kind`` object ``name`` has a condition summarized as ``text``."""

    def done(rec: StatusRecorder, ns: str) -> bool:
        story = rec.story(kind, ns, name)
        return bool(story) and text in story[-1].summary["conditions"]

    return done


@dataclass(frozen=True)
class Incident:
    name: str  # its namespace too
    title: str  # the issue table's row
    objects: tuple[Manifest, ...]
    played_out: Callable[[StatusRecorder, str], bool]
    wanted: int = 1
    resolved: int = 0
    notes: tuple[str, ...] = field(default=())
    # the incident (earlier in INCIDENTS) that must have played out before this one starts:
    # two pods past their limits in one pass of the eviction manager are evicted one after
    # the other, and the first may restart while the kubelet is busy with the second
    after: str = ""


INCIDENTS = (
    Incident(
        "crash-loop",
        "crash loop, exit 1, 3 restarts",
        (pod("crasher", pod_spec(container("crash"))),),
        restarts("crasher", 3),
    ),
    Incident(
        "oom-always",
        "OOM kill, restartPolicy Always",
        (pod("hog", pod_spec(container("oom", **_memory("24Mi")))),),
        restarts("hog", 2),
    ),
    Incident(
        "oom-never",
        "OOM kill, restartPolicy Never",
        (pod("hog-once", pod_spec(container("oom", **_memory("24Mi")), "Never")),),
        phase("hog-once", "Failed"),
    ),
    Incident(
        "image-pull",
        "image that cannot be pulled",
        (pod("puller", pod_spec(container("serve", image=MISSING_IMAGE))),),
        waiting("puller", "ErrImagePull", times=3),
    ),
    Incident(
        "job-fails",
        "Job fails (BackoffLimitExceeded)",
        (job("batch-fail", "crash"),),
        condition("Job", "batch-fail", "Failed=True (BackoffLimitExceeded)"),
    ),
    Incident(
        "job-completes",
        "Job completes (nothing wanted)",
        (job("batch-ok", "ok"),),
        condition("Job", "batch-ok", "Complete=True (CompletionsReached)"),
        wanted=0,
    ),
    Incident(
        "deploy-stuck",
        "Deployment stuck on a bad image",
        (deployment("web-stuck", container("serve", image=MISSING_IMAGE)),),
        condition("Deployment", "web-stuck", "Progressing=False (ProgressDeadlineExceeded)"),
    ),
    Incident(
        "deploy-healthy",
        "healthy Deployment created (nothing wanted)",
        (deployment("web", container("serve", **_probe("/"))),),
        condition("Deployment", "web", "Available=True (MinimumReplicasAvailable)"),
        wanted=0,
    ),
    Incident(
        "never-ready",
        "readiness probe that never passes",
        (pod("never-ready", pod_spec(container("serve", **_probe("/fail")))),),
        phase("never-ready", "Running"),
        # Both configs tell it after 10m NotReady (pods-not-ready), past this scenario's 5
        # minutes: here nothing may be told of it (a crash-loop rule must not take it);
        # tests/unit/rules/test_incidents.py plays the same Pod through the 10 minutes.
        wanted=0,
    ),
    Incident(
        "stuck-creating",
        "pod stuck in ContainerCreating (missing ConfigMap volume)",
        (
            pod(
                "no-volume",
                pod_spec(
                    container("serve", volumeMounts=[{"name": "cfg", "mountPath": "/cfg"}]),
                    volumes=[{"name": "cfg", "configMap": {"name": "missing"}}],
                ),
            ),
        ),
        waiting("no-volume", "ContainerCreating"),
    ),
    Incident(
        "config-error",
        "pod stuck in CreateContainerConfigError (missing ConfigMap key)",
        (
            pod(
                "no-config",
                pod_spec(
                    container(
                        "serve",
                        env=[
                            {
                                "name": "SETTING",
                                "valueFrom": {"configMapKeyRef": {"name": "missing", "key": "k"}},
                            }
                        ],
                    )
                ),
            ),
        ),
        waiting("no-config", "CreateContainerConfigError"),
    ),
    Incident(
        "eviction",
        "pod evicted (emptyDir past its sizeLimit)",
        (filler(),),
        phase("filler", "Failed"),
    ),
    Incident(
        "eviction-clean",
        "pod evicted, its program exiting 0 on SIGTERM",
        (filler("filler-clean", "fill-clean"),),
        ended("filler-clean"),
        after="eviction",
    ),
    Incident(
        NODE_LOST,
        "node lost, then back",
        (),
        lambda rec, ns: True,  # played by the scenario itself, last
        resolved=1,
    ),
)
