"""Who we are to the API server: the ``Authorization`` header of each request.

A client certificate needs no header (it is in the TLS context, see
``credentials``); these cover the rest of what a kubeconfig or a Pod can
hold: a fixed token, a token file that the kubelet rotates (re-read once a
minute, as client-go does), basic auth, and exec credential plugins
(``client.authentication.k8s.io`` ExecCredential: the token is cached until
shortly before its ``expirationTimestamp``, and dropped when the API server
answers 401 so the next request runs the plugin again).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

TOKEN_FILE_REREAD_SECONDS = 60.0
EXEC_TIMEOUT_SECONDS = 30.0
EXEC_EXPIRY_MARGIN_SECONDS = 10.0
EXEC_CACHE_WITHOUT_EXPIRY_SECONDS = 15 * 60.0


class AuthError(Exception):
    """Credentials could not be produced (an exec plugin failed, a token file is unreadable)."""


class Auth(Protocol):
    def headers(self) -> dict[str, str]:
        """Headers to add to a request (may run a plugin or read a file)."""
        ...

    def invalidate(self) -> None:
        """The API server answered 401: forget cached credentials."""
        ...


class NoAuth:
    def headers(self) -> dict[str, str]:
        return {}

    def invalidate(self) -> None:
        return None


class _FixedHeader:
    """Credentials written in the kubeconfig: nothing to renew after a 401."""

    def __init__(self, authorization: str) -> None:
        self._header = {"Authorization": authorization}

    def headers(self) -> dict[str, str]:
        return self._header

    def invalidate(self) -> None:
        return None


class BearerToken(_FixedHeader):
    def __init__(self, token: str) -> None:
        super().__init__(f"Bearer {token}")


class BasicAuth(_FixedHeader):
    def __init__(self, username: str, password: str) -> None:
        super().__init__("Basic " + base64.b64encode(f"{username}:{password}".encode()).decode())


class TokenFile:
    """A token in a file that changes under us (projected service account tokens)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._token = ""
        self._read_at: float | None = None

    def headers(self) -> dict[str, str]:
        with self._lock:
            now = self._clock()
            if self._read_at is None or now - self._read_at >= TOKEN_FILE_REREAD_SECONDS:
                self._token = self._read()
                self._read_at = now
            return {"Authorization": f"Bearer {self._token}"}

    def invalidate(self) -> None:
        with self._lock:
            self._read_at = None

    def _read(self) -> str:
        try:
            token = self._path.read_text(encoding="utf-8").strip()
        except OSError as err:
            if self._token:  # keep the last good token: the file may be mid-rotation
                return self._token
            raise AuthError(f"cannot read the token file {self._path}: {err}") from err
        if not token:
            raise AuthError(f"the token file {self._path} is empty")
        return token


class ExecPlugin:
    """Runs ``command`` as kubectl does and uses the token it prints."""

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        env: Mapping[str, str],
        api_version: str,
        *,
        install_hint: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._argv = [command, *args]
        self._env = dict(env)
        self._api_version = api_version
        self._install_hint = install_hint
        self._clock = clock
        self._lock = threading.Lock()
        self._token = ""
        self._valid_until = 0.0

    def headers(self) -> dict[str, str]:
        with self._lock:
            if not self._token or self._clock() >= self._valid_until:
                self._token, self._valid_until = self._run()
            return {"Authorization": f"Bearer {self._token}"}

    def invalidate(self) -> None:
        with self._lock:
            self._token = ""

    def _run(self) -> tuple[str, float]:
        name = self._argv[0]
        info = {"apiVersion": self._api_version, "kind": "ExecCredential"}
        info["spec"] = {"interactive": False}  # type: ignore[assignment]
        env = {**os.environ, **self._env, "KUBERNETES_EXEC_INFO": json.dumps(info)}
        try:
            done = subprocess.run(
                self._argv,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=EXEC_TIMEOUT_SECONDS,
                check=False,
            )
        except FileNotFoundError:
            hint = f" ({self._install_hint})" if self._install_hint else ""
            raise AuthError(f"exec credential plugin {name!r} not found{hint}") from None
        except (OSError, subprocess.TimeoutExpired) as err:
            raise AuthError(f"exec credential plugin {name!r} failed: {err}") from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise AuthError(
                f"exec credential plugin {name!r} exited with {done.returncode}: {said[0]}"
            )
        return self._parse(done.stdout)

    def _parse(self, output: bytes) -> tuple[str, float]:
        name = self._argv[0]
        try:
            status = json.loads(output)["status"]
            token = status["token"]
        except (ValueError, KeyError, TypeError):
            raise AuthError(
                f"exec credential plugin {name!r} did not print an ExecCredential with "
                "status.token (client certificates from plugins are not supported)"
            ) from None
        if not isinstance(token, str) or not token:
            raise AuthError(f"exec credential plugin {name!r} printed an empty token")
        return token, self._expiry(status.get("expirationTimestamp"))

    def _expiry(self, stamp: object) -> float:
        now = self._clock()
        if not isinstance(stamp, str):
            return now + EXEC_CACHE_WITHOUT_EXPIRY_SECONDS
        try:
            expires = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return now + EXEC_CACHE_WITHOUT_EXPIRY_SECONDS
        return expires - EXEC_EXPIRY_MARGIN_SECONDS
