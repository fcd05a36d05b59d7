"""Our modules compiled to bytecode before a bench starts the service, as the image ships them.

pip compiles a wheel's modules when it installs them; an editable checkout
under ``PYTHONDONTWRITEBYTECODE`` (set in some shells and CI images) would
instead compile our ~256 modules at every start of the service, about 0.13
CPU s that no installed service pays.
"""

from __future__ import annotations

import compileall
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "notifier"


def compile_bytecode(source: Path = SOURCE) -> None:
    """``source`` (our package, or another checkout's) compiled where Python looks for it."""
    compileall.compile_dir(source, quiet=1)
