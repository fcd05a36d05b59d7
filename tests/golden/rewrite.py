"""``python -m tests.golden.rewrite``: write every receiver's golden renders again.

Then ``git diff tests/golden`` shows what a person would now read differently;
read each changed file whole before committing it.
"""

from __future__ import annotations

from tests.golden.receivers import path_of, receivers, render
from tests.golden.scenarios import SCENARIOS


def main() -> None:
    changed = 0
    for receiver in receivers():
        for scenario in SCENARIOS:
            path = path_of(receiver, scenario)
            body = render(receiver, scenario)
            if not path.exists() or path.read_text(encoding="utf-8") != body:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(body, encoding="utf-8")
                changed += 1
                print(f"rewrote {path.relative_to(path.parents[3])}")
    print(f"{changed} golden files rewritten")


if __name__ == "__main__":
    main()
