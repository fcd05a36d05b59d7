"""Hot reload of the config file (a mounted ConfigMap): poll, validate, swap or keep.

Kubelet updates a mounted ConfigMap by swapping a symlink, so we compare
the file's content digest, not its mtime. An invalid change is logged with
every error and the last good rules keep running.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

from notifier.config.documents import MAX_BYTES
from notifier.reload.holder import ReloadResult, RulesHolder
from notifier.supervision import supervised

log = logging.getLogger("notifier.config")


def _digest(path: Path) -> str:
    """The file's content digest; for a file too large to be a config, its size and time."""
    try:
        stat = path.stat()
        if stat.st_size > MAX_BYTES:  # not read: the load says it is too large
            return f"size {stat.st_size} mtime {stat.st_mtime_ns}"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


class FileReloader:
    def __init__(self, holder: RulesHolder, path: Path, interval: float = 2.0) -> None:
        self._holder = holder
        self._path = path
        self._interval = interval
        self._seen = _digest(path)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=supervised("config-reload", self._loop), name="config-reload", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.check()
            except Exception:  # a bug: say it loudly, but keep watching the file
                log.exception("config %s: reload failed unexpectedly", self._path)

    def check(self) -> ReloadResult | None:
        digest = _digest(self._path)
        if digest == self._seen:
            return None
        self._seen = digest
        result = self._holder.reload_file(self._path)
        report(result, str(self._path))
        return result


def report(result: ReloadResult, source: str) -> None:
    if not result.ok:
        errors = "\n".join(f"  {issue}" for issue in result.issues)
        log.error("config %s rejected; the last good rules keep running:\n%s", source, errors)
    elif result.first:
        log.info("config %s loaded (sha256 %s)", source, result.digest[:12])
    elif result.changed:
        log.info("config %s reloaded (sha256 %s)", source, result.digest[:12])
    elif result.recovered:
        log.info("config %s is valid again; the rules in use did not change", source)
    if result.ok and result.restart_needed:
        log.warning(
            "config %s changed %s: that part applies at the next restart",
            source,
            ", ".join(result.restart_needed),
        )
