"""certdp.expr loads its sympy parts on first use: a rational ε or δ never imports sympy."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import mpmath


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_a_dpsgd_answer_at_a_rational_delta_does_not_import_sympy():
    out = _run("import sys\n"
               "from certdp.analyses.accountants.dpsgd import dpsgd\n"
               "r = dpsgd(2, '1/100', 10, delta='1e-5')\n"
               "print('sympy' in sys.modules, r.eps.hi_exact > 0)")
    assert out == "False True"


def test_a_closed_form_delta_still_works_and_brackets_its_value():
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415
    from certdp.expr.brackets import bracket  # noqa: PLC0415

    lo, hi = bracket("exp(-12)", "delta")
    with mpmath.workdps(80):
        truth = mpmath.exp(-12)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= truth <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo < Fraction(1, 10**50)
    r = dpsgd(2, "1/100", 10, delta="exp(-12)")
    rational = dpsgd(2, "1/100", 10, delta=lo)  # a smaller δ: a larger ε
    assert r.eps.hi_exact <= rational.eps.hi_exact


def test_the_package_names_keep_their_meaning_whatever_is_imported_first():
    out = _run("import certdp.expr.evaluate\n"
               "import certdp.expr as E\n"
               "from certdp.expr import evaluate, parse_expression\n"
               "print(callable(E.evaluate), type(E.evaluate).__name__, evaluate is E.evaluate,"
               " parse_expression('1/3'))")
    assert out == "True function True 1/3"
