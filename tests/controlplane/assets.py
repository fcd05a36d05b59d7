"""Build and locate the control-plane binaries (stdlib only: runs before any venv).

Resolution order for each binary follows the envtest convention:
``TEST_ASSET_<NAME>`` (for example ``TEST_ASSET_KUBE_APISERVER``), then
``$KUBEBUILDER_ASSETS/<name>``, then our own cache
``~/.cache/kube-notifier/assets/<k8s-version>/<name>``. Only what none of
them provides is built.

Why a wrapper module: ``go install k8s.io/kubernetes/cmd/...@vX`` is refused
because k8s.io/kubernetes's go.mod replaces its staging modules with local
paths. A throwaway module that requires k8s.io/kubernetes and replaces each
``k8s.io/<staging>`` with the published ``v0.N.M`` builds the commands. The
same holds for etcd's server module.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

K8S_VERSION = "1.35.4"
ETCD_VERSION = "3.6.16"
KWOK_VERSION = "0.7.0"
HELM_VERSION = "3.21.4"
ALERTMANAGER_VERSION = "0.35.0"  # the receivers' hub (tests/integration/test_alertmanager.py)
ACTIONLINT_VERSION = "1.7.12"  # checks .github/workflows in `make lint`

HELM_K8S_MINOR = "36"  # the client-go minor helm v3.21.4 is built on (its go.mod: v0.36.2)

K8S_COMMANDS = (
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubectl",
    "kubelet",  # the real node's (tests/controlplane/node.py)
)
ALL_ASSETS = (*K8S_COMMANDS, "etcd", "kwok", "helm", "alertmanager", "actionlint")
STAGES_DIR = "kwok-stages"
# Cached under a name that says how it was built, so a cache holding an older build
# (helm without its version stamped: `helm template` then assumed Kubernetes 1.20)
# is rebuilt rather than reused.
CACHED_AS = {"helm": f"helm-{HELM_VERSION}-stamped"}


@dataclass(frozen=True)
class GoModule:
    path: str
    version: str


def cache_dir() -> Path:
    base = os.environ.get("KUBE_NOTIFIER_ASSETS_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "kube-notifier" / "assets"
    return root / K8S_VERSION


def env_name(name: str) -> str:
    return "TEST_ASSET_" + name.upper().replace("-", "_")


def find(name: str) -> Path | None:
    """Where ``name`` is, by the envtest convention, or None."""
    candidates: list[Path] = []
    if override := os.environ.get(env_name(name)):
        candidates.append(Path(override))
    if kb := os.environ.get("KUBEBUILDER_ASSETS"):
        candidates.append(Path(kb) / name)
    candidates.append(cache_dir() / CACHED_AS.get(name, name))
    for path in candidates:
        if path.exists():
            return path
    return None


def require(name: str) -> Path:
    path = find(name)
    if path is None:
        raise FileNotFoundError(
            f"control-plane asset {name!r} not found; run `make assets` "
            f"(or set {env_name(name)} / KUBEBUILDER_ASSETS)"
        )
    return path


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    print("+", " ".join(cmd), flush=True)
    merged = {**os.environ, "CGO_ENABLED": "0", **(env or {})}
    done = subprocess.run(cmd, cwd=cwd, env=merged, check=True, capture_output=True, text=True)
    return done.stdout


def _module_gomod(mod: GoModule, work: Path) -> str:
    out = _run(["go", "mod", "download", "-json", f"{mod.path}@{mod.version}"], work)
    return Path(json.loads(out)["GoMod"]).read_text()


def _local_replaces(gomod: str) -> list[str]:
    """Module paths that ``gomod`` replaces with a local directory."""
    pattern = re.compile(r"^\s*(?:replace\s+)?(\S+)\s+=>\s+(\.\.?/\S*)", re.M)
    # etcd fences off some paths with "=> ./FORBIDDEN_DEPENDENCY": not a module to pin.
    return [path for path, target in pattern.findall(gomod) if "FORBIDDEN" not in target]


def _wrapper(work: Path, main: GoModule, replaces: dict[str, str]) -> None:
    lines = [
        "module kube-notifier-assets",
        "",
        "go 1.25",
        "",
        f"require {main.path} {main.version}",
        "",
    ]
    lines += [f"replace {path} => {path} {version}" for path, version in sorted(replaces.items())]
    (work / "go.mod").write_text("\n".join(lines) + "\n")


def _k8s_ldflags() -> str:
    major, minor, _ = K8S_VERSION.split(".")
    values = {
        "gitVersion": f"v{K8S_VERSION}",
        "gitMajor": major,
        "gitMinor": minor,
        "gitTreeState": "clean",
        "buildDate": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    pkgs = ("k8s.io/client-go/pkg/version", "k8s.io/component-base/version")
    return " ".join(f"-X {pkg}.{k}={v}" for pkg in pkgs for k, v in values.items())


def build_kubernetes(names: list[str], out: Path, work: Path) -> None:
    main = GoModule("k8s.io/kubernetes", f"v{K8S_VERSION}")
    _run(["go", "mod", "init", "kube-notifier-assets"], work)
    staging = _local_replaces(_module_gomod(main, work))
    minor = K8S_VERSION.split(".", 1)[1]
    _wrapper(work, main, {path: f"v0.{minor}" for path in staging})
    pkgs = [f"k8s.io/kubernetes/cmd/{name}" for name in names]
    _run(["go", "get", *(f"{pkg}@{main.version}" for pkg in pkgs)], work)
    flags = ["-trimpath", "-tags", "selinux,notest", "-ldflags", _k8s_ldflags()]
    _run(["go", "build", *flags, "-o", str(out) + "/", *pkgs], work)


def build_etcd(out: Path, work: Path) -> None:
    main = GoModule("go.etcd.io/etcd/server/v3", f"v{ETCD_VERSION}")
    _run(["go", "mod", "init", "kube-notifier-assets"], work)
    local = _local_replaces(_module_gomod(main, work))
    _wrapper(work, main, {path: f"v{ETCD_VERSION}" for path in local})
    _run(["go", "get", f"{main.path}@{main.version}"], work)
    _run(["go", "build", "-trimpath", "-o", str(out / "etcd"), main.path], work)


def build_plain(pkg: str, name: str, out: Path, work: Path, ldflags: str = "") -> None:
    env = {"GOBIN": str(out)}
    _run(
        ["go", "install", "-trimpath", *(["-ldflags", ldflags] if ldflags else []), pkg], work, env
    )
    built = out / pkg.rsplit("/", maxsplit=1)[-1].split("@", maxsplit=1)[0]
    if built.name != name:
        built.rename(out / name)


def build_helm(out: Path, work: Path) -> None:
    """helm with its version stamped as its release build does: `helm version` says v3.21.4
    and `helm template` assumes the Kubernetes its client-go speaks, not 1.20."""
    stamps = {
        "helm.sh/helm/v3/internal/version.version": f"v{HELM_VERSION}",
        "helm.sh/helm/v3/internal/version.gitTreeState": "clean",
        "helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor": "1",
        "helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor": HELM_K8S_MINOR,
    }
    ldflags = " ".join(f"-X {name}={value}" for name, value in stamps.items())
    pkg = f"helm.sh/helm/v3/cmd/helm@v{HELM_VERSION}"
    build_plain(pkg, CACHED_AS["helm"], out, work, ldflags)


def build_alertmanager(out: Path, work: Path) -> None:
    """Prometheus Alertmanager, for the alertmanager receiver's tests (a real one, two peers).

    Built from a copy of its module: ``ui/web.go`` embeds ``ui/app/dist``, which its
    release build makes with npm and the module does not hold, so ``go install`` fails.
    The API needs no UI: a placeholder page stands in for it.
    """
    mod = f"github.com/prometheus/alertmanager@v{ALERTMANAGER_VERSION}"
    src = Path(json.loads(_run(["go", "mod", "download", "-json", mod], work))["Dir"])
    tree = work / "alertmanager"
    shutil.copytree(src, tree)
    for directory in (tree, *(path for path in tree.rglob("*") if path.is_dir())):
        directory.chmod(0o755)  # the module cache's are read-only: writable, and removable
    for ui in ("elm", "mantine"):
        page = tree / "ui" / "app" / "dist" / ui / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<p>UI left out of this test build</p>\n")
    prefix = "github.com/prometheus/common/version"
    stamps = {"Version": ALERTMANAGER_VERSION, "Branch": "HEAD", "Revision": "go-module-proxy"}
    ldflags = " ".join(f"-X {prefix}.{name}={value}" for name, value in stamps.items())
    target = str(out / "alertmanager")
    _run(
        ["go", "build", "-trimpath", "-ldflags", ldflags, "-o", target, "./cmd/alertmanager"], tree
    )


def copy_kwok_stages(out: Path, work: Path) -> None:
    mod = f"sigs.k8s.io/kwok@v{KWOK_VERSION}"
    src = Path(json.loads(_run(["go", "mod", "download", "-json", mod], work))["Dir"])
    dest = out / STAGES_DIR
    dest.mkdir(exist_ok=True)
    root = src / "kustomize" / "stage"
    for stage in root.rglob("*.yaml"):
        rel = stage.relative_to(root)
        if stage.name != "kustomization.yaml" and "testdata" not in rel.parts:
            shutil.copyfile(stage, dest / "-".join(rel.parts))


def missing() -> list[str]:
    names = [name for name in ALL_ASSETS if find(name) is None]
    if not (cache_dir() / STAGES_DIR).is_dir():
        names.append(STAGES_DIR)
    return names


def build(names: list[str]) -> None:
    out = cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    steps: dict[str, Callable[[Path], None]] = {
        "k8s": lambda w: build_kubernetes([n for n in K8S_COMMANDS if n in names], out, w),
        "etcd": lambda w: build_etcd(out, w),
        "kwok": lambda w: build_plain(f"sigs.k8s.io/kwok/cmd/kwok@v{KWOK_VERSION}", "kwok", out, w),
        "helm": lambda w: build_helm(out, w),
        "alertmanager": lambda w: build_alertmanager(out, w),
        "actionlint": lambda w: build_plain(
            f"github.com/rhysd/actionlint/cmd/actionlint@v{ACTIONLINT_VERSION}",
            "actionlint",
            out,
            w,
            f"-X github.com/rhysd/actionlint.version=v{ACTIONLINT_VERSION}",
        ),
        STAGES_DIR: lambda w: copy_kwok_stages(out, w),
    }
    wanted = {"k8s" if n in K8S_COMMANDS else n for n in names}
    for step, action in steps.items():
        if step in wanted:
            started = time.monotonic()
            with tempfile.TemporaryDirectory(prefix=f"kn-{step}-") as work:
                action(Path(work))
            print(f"built {step} in {time.monotonic() - started:.0f}s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "where", "check", "path"])
    parser.add_argument("names", nargs="*", help="only these assets (default: all)")
    args = parser.parse_args(argv)
    if args.command == "where":
        print(cache_dir())
        return 0
    if args.command == "path":  # where each named asset is found, as the tests find it
        for name in args.names:
            print(require(name))
        return 0
    todo = [name for name in missing() if not args.names or name in args.names]
    if args.command == "check":
        print("missing: " + ", ".join(todo) if todo else "all assets present")
        return 1 if todo else 0
    if todo and not shutil.which("go"):
        print("error: Go is needed to build the control-plane assets", file=sys.stderr)
        return 2
    if todo:
        try:
            build(todo)
        except subprocess.CalledProcessError as err:
            print(
                f"error: {' '.join(err.cmd)} failed:\n{err.stdout}\n{err.stderr}", file=sys.stderr
            )
            return 1
    for name in ALL_ASSETS:
        print(f"{name}: {find(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
