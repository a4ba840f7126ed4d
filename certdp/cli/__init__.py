"""The ``certdp`` command.

Each subcommand lives in its own module under :mod:`certdp.cli` and exposes
``register(subparsers)``, which adds its parser and sets ``handler`` (a
function ``args -> int`` exit code).  Exit codes: 0 success, 1 a negative
or undecided verdict (where the command has verdicts), 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from certdp.cli.common import (DEFAULT_BUDGET, add_budget_flag, add_digits_flag, add_progress_flags, plain_text,
                               run_handler)

#: Subcommand modules, in the order ``certdp --help`` lists them.
COMMAND_MODULES = [
    "certdp.cli.account",
    "certdp.cli.calibrate",
    "certdp.cli.gdp",
    "certdp.cli.demo",
    "certdp.cli.bench",
    "certdp.cli.profile",
    "certdp.cli.mechanisms",
    "certdp.cli.prdp",
    "certdp.cli.identify",
    "certdp.cli.audit",
    "certdp.cli.sweep",
    "certdp.cli.dpsgd",
    "certdp.cli.measure",
    "certdp.cli.tradeoff",
    "certdp.cli.verify",
    "certdp.cli.plot",
    "certdp.cli.proofs",
]


#: The subcommands' names (each module registers the command of its own name).
COMMAND_NAMES = {m.rsplit(".", 1)[1]: m for m in COMMAND_MODULES}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``certdp`` parser with every subcommand, or with ``command`` alone (what one
    invocation of that command parses: :func:`main` asks for it when the first argument
    names a command, so a run imports and builds one subcommand's parser instead of all
    17 — about 7 ms of argparse per invocation, a third of a small DP-SGD answer)."""
    from certdp.meta import VERSION as __version__

    parser = argparse.ArgumentParser(
        prog="certdp",
        description="Certified differential-privacy analysis: every number is an "
        "interval that provably contains the truth.",
    )
    parser.add_argument("--version", action="version", version=f"certdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES if command is None else [COMMAND_NAMES[command]]:
        importlib.import_module(name).register(sub)
    for leaf in _leaf_parsers(parser):
        add_progress_flags(leaf)
        add_budget_flag(leaf, DEFAULT_BUDGET)
        add_digits_flag(leaf)
    _plain_help(parser)
    return parser


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """--help is read in a terminal: the Sphinx markup of the docstrings the commands reuse
    as descriptions (````x````, ``:func:`x```) becomes plain text, here, once for every parser."""
    parser.description, parser.epilog = plain_text(parser.description), plain_text(parser.epilog)
    for action in parser._actions:
        action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain_text(choice.help)
            for sub in dict.fromkeys(action.choices.values()):
                _plain_help(sub)


def _leaf_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers that run a handler (subcommands without subcommands)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [parser]
    return [leaf for a in subs for p in dict.fromkeys(a.choices.values()) for leaf in _leaf_parsers(p)]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # a first argument naming a command: that command's parser alone (no top-level option
    # takes a value, so the command is the first argument; anything else gets every parser)
    parser = build_parser(argv[0] if argv and argv[0] in COMMAND_NAMES else None)
    args = parser.parse_args(argv)
    return run_handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
