"""--digits N on every command: one formatter (Enclosure.__str__), at most N
significant digits, rounded outward; JSON keeps full precision."""

import json
import re
from fractions import Fraction

from certdp.cli import _leaf_parsers, build_parser, main
from certdp.numerics.enclosure import Enclosure, display_limit


def test_every_command_accepts_digits():
    for leaf in _leaf_parsers(build_parser()):
        assert "--digits" in leaf._option_string_actions, leaf.prog


def test_display_limit_rounds_outward():
    third = Enclosure.from_ball(Enclosure.exact(Fraction(1, 3)).ball)
    with display_limit(3):
        assert str(third) == "[0.333, 0.334]"
    assert len(str(third)) > len("[0.333, 0.334]")
    with display_limit(2):
        assert str(Enclosure.exact(Fraction(1, 8))) == "[0.12, 0.13]"  # an exact point, outward too


def _ends(text):
    lo, hi = re.search(r"\[([-0-9.e]+), ([-0-9.e]+)\]", text).groups()
    return lo, hi


def _significant(s):
    return len(s.split("e")[0].lstrip("-").replace(".", "").lstrip("0"))


def test_account_digits_contains_the_json_enclosure(capsys):
    args = ["account", "--mechanism", "pure_dp(eps=1/5)", "--times", "50", "--delta", "1e-4"]
    assert main(args + ["--digits", "4"]) == 0
    out = capsys.readouterr().out
    lo_s, hi_s = _ends(out.splitlines()[-1])
    assert _significant(lo_s) <= 4 and _significant(hi_s) <= 4, (lo_s, hi_s)
    lo, hi = Fraction(lo_s), Fraction(hi_s)
    assert main(args + ["--json"]) == 0
    full = json.loads(capsys.readouterr().out)["eps"]
    assert lo <= Fraction(full["lo"]) and Fraction(full["hi"]) <= hi
    assert hi - lo <= Fraction(1, 100)  # 4 digits of 5.564 really are printed


def test_bad_digits_is_a_clear_error(capsys):
    assert main(["account", "--mechanism", "laplace(scale=1)", "--eps", "1", "--digits", "0"]) == 2
    assert "digits must be an integer in [1, 100]" in capsys.readouterr().err


def test_accuracy_digits_are_printed_and_bounded(capsys):
    """profile/gdp --digits N sets the accuracy and prints N+1 digits (the display was
    cut at 30, and --digits 1000 silently gave 17); N outside [1, 100] is refused."""
    import mpmath

    from certdp.cli import main

    assert main(["profile", "laplace(scale=1)", "--eps", "1/2", "--digits", "60"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    lo, hi = line.split("[")[1].rstrip("]").split(", ")
    assert len(lo) >= 60
    with mpmath.workdps(80):
        truth = 1 - mpmath.exp(mpmath.mpf(-1) / 4)  # δ(ε) = 1 − e^{(ε−1)/2} at ε = 1/2
        assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi) and mpmath.mpf(hi) - mpmath.mpf(lo) < mpmath.mpf(10) ** -58
    assert main(["gdp", "delta", "--mu", "1", "--eps", "1", "--digits", "1000"]) == 2
    assert "--digits must be an integer in [1, 100]" in capsys.readouterr().err
