# syntax=docker/dockerfile:1
#
# kube-notifier container image.
#
#   docker build -t REGISTRY/kube-notifier:0.1.0 \
#     --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#
# Two stages. The builder makes a wheel of this repository and installs it, with
# the pinned dependencies (constraints.txt), into a virtualenv. The runtime stage
# is the same slim Python with only that virtualenv copied in: no compiler, no
# sources, no pip, no package cache. It runs as UID/GID 65532 and writes nothing
# outside the two paths the Helm chart mounts: /var/lib/kube-notifier (the state
# database) and /tmp. ENTRYPOINT is `kube-notifier run`, so container args are
# flags (`--state ...`, `--listen ...`).
#
# No Docker engine runs in CI: tests/unit/test_dockerfile.py lints this file with
# hadolint and checks the properties above, and tests/integration/test_image_install.py
# runs the builder stage's RUN step as written, in a fresh virtualenv.

# Both stages must use the same image: the virtualenv links to its Python.
# Pin by digest for reproducible builds: --build-arg PYTHON_IMAGE=python:3.11-slim-bookworm@sha256:...
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VENV=/opt/kube-notifier
WORKDIR /src
COPY pyproject.toml constraints.txt README.md LICENSE ./
COPY notifier ./notifier
# Dependencies are installed from wheels only (--only-binary): nothing is compiled,
# so the builder needs no compiler either. The virtualenv gets no pip of its own
# (--without-pip; the builder's pip installs into it): the running service never
# installs anything.
RUN python -m pip wheel --no-deps --wheel-dir dist . \
 && python -m venv --without-pip "$VENV" \
 && python -m pip --python "$VENV/bin/python" install --only-binary=:all: \
      --constraint constraints.txt dist/kube_notifier-*.whl \
 && "$VENV/bin/kube-notifier" --version

FROM ${PYTHON_IMAGE}
ARG PYTHON_IMAGE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="kube-notifier" \
      org.opencontainers.image.description="Turns Kubernetes object changes into notifications people can act on." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="${PYTHON_IMAGE}"

# A named user for the fixed UID, so tools that look up the user find one; its home
# does not exist (nothing is written there). /var/lib/kube-notifier is owned by it
# for a plain `docker run`; in Kubernetes a volume is mounted there.
RUN groupadd --system --gid 65532 kube-notifier \
 && useradd --system --no-log-init --uid 65532 --gid 65532 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin kube-notifier \
 && install -d -o 65532 -g 65532 -m 0750 /var/lib/kube-notifier

COPY --from=builder /opt/kube-notifier /opt/kube-notifier

# The virtualenv holds compiled bytecode already: Python must not try to write any
# on a read-only root filesystem.
ENV PATH=/opt/kube-notifier/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    KUBE_NOTIFIER_CONFIG=/etc/kube-notifier/config.yaml \
    KUBE_NOTIFIER_STATE=/var/lib/kube-notifier/state.db

USER 65532:65532
WORKDIR /var/lib/kube-notifier
EXPOSE 8080
ENTRYPOINT ["kube-notifier", "run"]
