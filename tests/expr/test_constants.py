"""Exact closed-form inputs everywhere (issue 18): the same safe closed forms
are accepted wherever a non-rational exact number is read."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from certdp.analyses.noise_refinement import refine_noise
from certdp.analyses.prdp.conversion import adp_to_prdp, min_eps_hat
from certdp.cli import main
from certdp.errors import InputError
from certdp.expr.constants import exact_real
from certdp.expr.symbols import symbol_for


@pytest.mark.parametrize("text,value", [("1/3", sympy.Rational(1, 3)), ("0.25", sympy.Rational(1, 4)),
                                        ("log(2)", sympy.log(2)), ("exp(-2)", sympy.exp(-2)),
                                        ("e/(1+e)", sympy.E / (1 + sympy.E))])
def test_exact_real_parses_closed_forms(text, value):
    assert sympy.simplify(exact_real(text) - value) == 0


@pytest.mark.parametrize("text", ["log(0)", "1/0", "eps", "__import__('os')", "log(-1)", "oo", "x+1"])
def test_exact_real_refuses_what_is_not_a_finite_constant(text):
    with pytest.raises(InputError):
        exact_real(text)


def test_theorem_3_2_example_b_numbers_on_the_command_line(capsys):
    """Guingona et al. 2023 Thm 3.2 example B: ε = log 2, ε̂ = log 3: δ̂ = δ/(1 − 2/3) = 3δ."""
    assert main(["prdp", "convert", "--eps", "log(2)", "--delta", "1e-5", "--eps-hat", "log(3)", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"lo"' in out
    enc = adp_to_prdp("log(2)", "1e-5", "log(3)")
    assert enc.lower_float() <= 3e-5 <= enc.upper_float() and enc.upper_float() - enc.lower_float() < 1e-18
    with mpmath.workdps(40):
        truth = mpmath.log(2) - mpmath.log(1 - mpmath.mpf("1e-5") / mpmath.exp(-2))
        e = min_eps_hat("log(2)", "1e-5", "exp(-2)")
        assert e.lower_float() <= truth <= e.upper_float()
    with pytest.raises(InputError, match="eps_hat must be > eps"):
        adp_to_prdp("log(3)", "1e-5", "log(2)")


def test_refine_noise_accepts_a_closed_form_string():
    delta, eps = symbol_for("delta"), symbol_for("eps")
    a = refine_noise(-sympy.log(delta) / eps, "0.2", "exp(-2)")
    b = refine_noise(-sympy.log(delta) / eps, "0.2", sympy.exp(-2))
    assert str(a.sigma) == str(b.sigma)
