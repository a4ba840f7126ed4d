"""``certdp identify SPEC``: exact GDP identification with a proof trace.

Liu et al. 2022 Thm 4.3/4.4: a mechanism is GDP iff
L = limsup_{ε→∞} ε²/(−2 log δ(ε)) is finite, and then √L is the tail μ
(limsup of the GDP transform).  Prints the verdict (GDP / NOT GDP /
UNDECIDED), the exact L, a certified enclosure of √L and the proof trace.

SPEC is a catalog spec (``certdp mechanisms``) or, with ``--profile``, a
δ(ε) expression in ``eps`` parsed by the safe expression parser (never
evaluated as Python).  ``--param NAME=VALUE`` fixes a parameter of the
expression to an exact number; ``--positive NAME`` keeps NAME symbolic and
positive (e.g. ``--positive mu`` gives L = mu**2 for the Gaussian profile).

The expression is first checked to be a privacy profile (values in [0, 1],
non-increasing, δ(0) < 1): a certainly invalid one is refused (exit 2) with
the witness; hypotheses that could not be proved are printed as
"assuming (unproved): ..." (``"assumptions"`` in JSON).

Exit codes: 0 GDP (unconditionally), 1 not GDP, undecided, or GDP only under
unproved hypotheses, 2 bad input.
``--json``: {"verdict", "L" (sympy string; null when undecided), "tail_mu": {"lo","hi"}
| null, "trace": [{"step","rule"}]}.  A catalog ``profile("...")`` spec works too.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit
from certdp.errors import InputError


def _profile_from_text(text: str, params: list[str], positive: list[str]) -> "sympy.Expr":
    import sympy  # noqa: PLC0415 - keeps `certdp --version` fast

    from certdp.expr import parse_expression

    values: dict[str, str] = {}
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"--param expects NAME=VALUE, got {item!r}")
        values[name.strip()] = value.strip()
    names = [n.strip() for n in positive]
    for n in names:
        if not n.isidentifier() or n == "eps":
            raise InputError(f"--positive expects a parameter name other than eps, got {n!r}")
    expr = parse_expression(text, variables=("eps", *names), parameters=values or None)
    swap = {s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols if s.name in names}
    return expr.xreplace(swap)


def _handler(args: argparse.Namespace) -> int:
    from certdp.analyses.limits import identify

    if args.profile:
        target = _profile_from_text(args.spec, args.param, args.positive)
    else:
        if args.param or args.positive:
            raise InputError("--param/--positive apply only with --profile")
        from certdp.mechanisms import parse_spec

        target = parse_spec(args.spec)
    result = identify(target)
    emit(args, str(result), result.to_json())
    # a verdict resting on unproved hypotheses is not an unconditional yes
    return EXIT_OK if result.verdict == "gdp" and not result.assumptions else EXIT_UNDECIDED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "identify",
        help="exact GDP identification (L = limsup ε²/(−2 log δ)) with a proof trace",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", metavar="SPEC",
                   help='mechanism spec, e.g. "subsample(gaussian_dp(mu=1), rate=0.01)"; '
                        'with --profile a δ(ε) expression such as "Min(1/2, exp(-eps**2))"')
    p.add_argument("--profile", action="store_true", help="SPEC is a δ(ε) expression in eps")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="exact value of a parameter of the --profile expression (repeatable)")
    p.add_argument("--positive", action="append", default=[], metavar="NAME",
                   help="a symbolic positive parameter of the --profile expression (repeatable)")
    add_json_flag(p)
    p.set_defaults(handler=_handler)
