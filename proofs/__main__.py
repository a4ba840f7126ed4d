"""``python -m proofs``: run every proof module and print a table."""

from __future__ import annotations

import sys

from proofs import run_all


def main() -> int:
    results = run_all()
    width = max(len(r.name) for r in results)
    for r in results:
        print(f"{r.name:<{width}}  {r.verdict:<9}  {r.statement}")
        for s in r.steps:
            print(f"    [{'ok' if s.ok else 'FAIL'}] ({s.method}) {s.claim}")
        for c in r.corrections:
            print(f"    correction: {c}")
    return 0 if all(r.ok for r in results) else 1


sys.exit(main())
