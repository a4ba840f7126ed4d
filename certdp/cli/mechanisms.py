"""``certdp mechanisms``: the mechanism catalog and the spec grammar."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit

GRAMMAR = """\
Spec grammar: name(arg, ..., key=value, ...), nested specs allowed, e.g.
  laplace(scale=1/2)    subsample(gaussian(sigma=2), rate=0.01)
  compose(gaussian(sigma=5), k=100)    profile("Max(1 - exp(eps/2 - 1), 0)")
Numbers are exact: 3, -1, 1/2, 0.1, 1e-5. Positional arguments bind in the
listed order; strings only for profile("...")."""


def _text(listing: list[dict]) -> str:
    lines = [GRAMMAR, ""]
    for entry in listing:
        lines.append(f"{entry['name']}: {entry['description']}")
        for p in entry["params"]:
            default = f", default {p['default']}" if "default" in p else ""
            lines.append(f"    {p['name']} ({p['kind']}{default}): {p['doc']}")
    return "\n".join(lines)


def _handler(args: argparse.Namespace) -> int:
    from certdp.mechanisms import catalog_listing  # noqa: PLC0415

    listing = catalog_listing()
    emit(args, lambda: _text(listing), {"mechanisms": listing})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mechanisms", help="list the mechanism catalog and spec grammar", description=__doc__)
    add_json_flag(p)
    p.set_defaults(handler=_handler)
