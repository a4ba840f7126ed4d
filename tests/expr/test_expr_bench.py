"""Throughput of compiled ball closures (opt-in: ``pytest -m slow -s tests/test_expr_bench.py``).

Prints calls/second for the Laplace and Gaussian (μ = 1) profiles at points
and on cells; asserts only a generous floor so it cannot flake under load.
"""

from __future__ import annotations

import time

import pytest
from flint import arb

from certdp.expr import EPS, compile_ball, evaluate_ball, parse_expression, validate_profile
from certdp.numerics.ball import working_precision

PROFILES = {
    "laplace": ("Max(1 - exp(eps/2 - 1), 0)", None),
    "gaussian(mu=1)": ("Phi(-eps/mu + mu/2) - exp(eps)*Phi(-eps/mu - mu/2)", {"mu": 1}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("prec", [53, 128])
def test_compiled_throughput(name, prec):
    text, params = PROFILES[name]
    expr = parse_expression(text, parameters=params)
    f = compile_ball(expr, [EPS])
    with working_precision(prec):
        xs = [arb(k) / 997 for k in range(1, 20001)]
        cells = [x.union(x + arb(1) / 64) for x in xs]
        for label, inputs in (("points", xs), ("cells", cells)):
            t0 = time.perf_counter()
            for x in inputs:
                f(x)
            rate = len(inputs) / (time.perf_counter() - t0)
            print(f"\n{name} prec={prec} {label}: {rate:,.0f} calls/s")
            assert rate > 1000
        t0 = time.perf_counter()
        for x in xs[:5000]:
            evaluate_ball(expr, {EPS: x})
        print(f"{name} prec={prec} evaluate_ball: {5000 / (time.perf_counter() - t0):,.0f} calls/s")


@pytest.mark.slow
def test_validate_profile_timing():
    for name, (text, params) in PROFILES.items():
        t0 = time.perf_counter()
        check = validate_profile(parse_expression(text, parameters=params))
        print(f"\nvalidate_profile({name}): ok={check.ok} in {time.perf_counter() - t0:.2f} s")
        assert check.proved
