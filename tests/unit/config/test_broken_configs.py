"""The broken-config corpus: each file fails with exactly the located errors it expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from notifier.config import ConfigError, read_config_text

CORPUS = Path(__file__).parents[2] / "data" / "configs" / "broken"
CASES = sorted(CORPUS.glob("*.yaml"))
ENVIRON = {"KN_SET": "https://hooks.example/x"}


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_broken_config_is_rejected_with_its_errors(path: Path) -> None:
    expected = path.with_suffix(".expected").read_text().splitlines()
    with pytest.raises(ConfigError) as caught:
        read_config_text(path.read_text(), path.name, environ=ENVIRON)
    report = str(caught.value)
    for fragment in expected:
        assert fragment in report
    assert len(caught.value.issues) == len(expected)
    assert all(issue.line is not None for issue in caught.value.issues)
