"""certdp plot ... --json: the certified band that was drawn, checked against closed forms."""

import json
from fractions import Fraction

import mpmath

from certdp.cli import main
from required import required

required("matplotlib")


def test_profile_band_contains_the_laplace_profile(tmp_path, capsys):
    out = tmp_path / "p.png"
    assert main(["plot", "profile", "laplace(scale=2)", "-o", str(out), "--points", "8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert out.stat().st_size > 1000 and doc["plot"] == "profile" and len(doc["band"]) == 9
    for row in doc["band"]:
        e = Fraction(row["eps"])
        truth = max(1 - mpmath.exp(mpmath.mpf(e.numerator) / e.denominator / 2 - mpmath.mpf(1) / 4), 0)
        lo, hi = (mpmath.mpf(row["enclosure"][k]) for k in ("lo", "hi"))
        assert lo <= truth <= hi and hi - lo < 1e-15


def test_tradeoff_band_contains_randomized_response(tmp_path, capsys):
    assert main(["plot", "tradeoff", "randomized_response(p=3/4)", "-o", str(tmp_path / "t.png"),
                 "--points", "4", "--mu", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for row in doc["band"]:
        a = Fraction(row["alpha"])
        truth = max(Fraction(0), 1 - 3 * a, (1 - a) / 3)  # f of RR(3/4): eps0 = log 3, delta = 0
        lo, hi = Fraction(row["enclosure"]["lo"]), Fraction(row["enclosure"]["hi"])
        assert lo <= truth <= hi, (a, lo, truth, hi)


def _pure_dp_composition_delta(eps0: int, k: int, eps: mpmath.mpf) -> mpmath.mpf:
    """δ(ε) of k-fold ε0-DP from its dominating pair (Kairouz et al. 2015): P_j =
    p^j (1-p)^(k-j), Q_j = p^(k-j) (1-p)^j, p = e^ε0/(1+e^ε0)."""
    p = mpmath.e ** eps0 / (1 + mpmath.e ** eps0)
    return sum(mpmath.binomial(k, j) * max(p**j * (1 - p) ** (k - j) - mpmath.e ** eps * p ** (k - j) * (1 - p) ** j, 0)
               for j in range(k + 1))


def _mu_gdp(eps: mpmath.mpf, delta: mpmath.mpf) -> mpmath.mpf:
    def d(mu):
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e ** eps * mpmath.ncdf(-eps / mu - mu / 2) - delta
    return mpmath.findroot(d, (mpmath.mpf("0.01"), mpmath.mpf(20)), solver="bisect")


def test_gdpt_band_of_an_accountant_spec_contains_the_truth(tmp_path, capsys):
    """GDPT of compose(pure_dp(eps=1), k=2) — answered by an accountant, which the
    GDPT plot refused before — against μ_GDP(ε, δ(ε)) from the exact binomial profile."""
    assert main(["plot", "gdpt", "compose(pure_dp(eps=1), k=2)", "-o", str(tmp_path / "g.png"),
                 "--points", "4", "--eps-max", "3/2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["band"]) == 5
    with mpmath.workdps(40):
        for row in doc["band"]:
            e = Fraction(row["eps"])
            eps = mpmath.mpf(e.numerator) / e.denominator
            truth = _mu_gdp(eps, _pure_dp_composition_delta(1, 2, eps))
            lo, hi = (mpmath.mpf(row["enclosure"][k]) for k in ("lo", "hi"))
            assert lo <= truth <= hi and hi - lo < 1e-6, (e, lo, truth, hi)


#: The first bytes of each format the help promises.
_MAGIC = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml", "eps": b"%!PS", "ps": b"%!PS"}


def test_every_format_the_help_lists_is_written(tmp_path, capsys):
    """`plot -o` help lists what really works (issue 38 item 6: it said png and pdf only)."""
    from certdp.cli import build_parser

    plot = build_parser()._subparsers._group_actions[0].choices["plot"]
    (output,) = [a for a in plot._actions if "--output" in a.option_strings]
    listed = {f.strip(" .") for f in output.help.split(":")[1].split(",")}
    assert listed == set(_MAGIC)
    for fmt in sorted(listed):
        out = tmp_path / f"p.{fmt}"
        assert main(["plot", "profile", "laplace(scale=2)", "-o", str(out), "--points", "2", "--quiet"]) == 0
        assert out.read_bytes().startswith(_MAGIC[fmt]), fmt
    assert main(["plot", "profile", "laplace(scale=2)", "-o", str(tmp_path / "p.jpg"), "--points", "2"]) == 2
    capsys.readouterr()
