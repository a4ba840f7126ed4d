"""The checker's discrete Gaussian (certdp.verifier.mechs.DiscreteGaussian) and its
compositions (evidence pld_profile) against an independent truth: the loss law of
N_Z(0, σ²) against N_Z(Δ, σ²) summed over the integers in mpmath (|x| <= 40σ + Δ + 20:
the terms beyond are below 1e-300) and its k-fold convolution on the loss lattice."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.verifier.checker import check
from refs import mpf


def one_step(sigma: Fraction, d: int) -> dict[int, mpmath.mpf]:
    """P-masses by lattice index j of the loss (Δ² − 2Δx)/(2σ²) = j·Δ/σ² + Δ²/(2σ²), j = −x."""
    s = mpf(sigma)
    n = int(40 * float(sigma)) + d + 20
    w = {x: mpmath.exp(-mpf(x) ** 2 / (2 * s * s)) for x in range(-n, n + 1)}
    z = mpmath.fsum(w.values())
    return {-x: w[x] / z for x in range(-n, n + 1)}


@functools.lru_cache(maxsize=None)
def composed(sigma: Fraction, d: int, k: int) -> tuple[tuple[int, mpmath.mpf], ...]:
    """The k-fold law by lattice index (atoms below 1e-60 dropped: δ moves by less)."""
    with mpmath.workdps(40):
        step = one_step(sigma, d)
        law = {0: mpf(1)}
        for _ in range(k):
            new: dict[int, mpmath.mpf] = {}
            for a, pa in law.items():
                if pa < mpf(10) ** -60:
                    continue
                for b, pb in step.items():
                    new[a + b] = new.get(a + b, 0) + pa * pb
            law = new
        return tuple(law.items())


def delta_truth(sigma: Fraction, d: int, k: int, eps: Fraction) -> mpmath.mpf:
    """δ(ε) = Σ_ℓ>ε P(ℓ)(1 − e^{ε−ℓ}) of the k-fold composition (Q = e^{−ℓ}P on each atom)."""
    with mpmath.workdps(40):
        law = dict(composed(sigma, d, k))
        s2 = mpf(sigma) ** 2
        loss = lambda j: j * d / s2 + k * mpf(d) ** 2 / (2 * s2)  # noqa: E731
        e = mpf(eps)
        return mpmath.fsum(p * (1 - mpmath.exp(e - loss(j))) for j, p in law.items() if loss(j) > e)


def _doc(spec: str, kind: str, eps: Fraction, delta: Fraction) -> dict:
    return {"format": "certdp-certificate", "version": 1, "mechanism": spec, "precision": 128,
            "producer": "test", "evidence": {}, "claim": {"kind": kind, "eps": str(eps), "delta": str(delta)}}


@pytest.mark.parametrize("sigma, d, eps", [(Fraction(1), 1, Fraction(1, 2)), (Fraction(3, 2), 2, Fraction(0)),
                                           (Fraction(2), 3, Fraction(1)), (Fraction(10), 1, Fraction(1, 20)),
                                           (Fraction(1, 3), 1, Fraction(2)), (Fraction(1, 2), 1, Fraction(2))])
def test_closed_form_brackets_the_sum_over_the_integers(sigma, d, eps):
    t = delta_truth(sigma, d, 1, eps)
    assert t > 0
    spec = f"discrete_gaussian(sigma={sigma}, sensitivity={d})"
    with mpmath.workdps(40):
        above, below = (Fraction(mpmath.nstr(t * (1 + mpf(r)), 35)) for r in ("1e-20", "-1e-20"))
    assert check(_doc(spec, "dp", eps, above)).valid
    assert not check(_doc(spec, "dp", eps, below)).valid
    assert check(_doc(spec, "not_dp", eps, below)).valid
    assert not check(_doc(spec, "not_dp", eps, above)).valid


@pytest.mark.parametrize("spec, sigma, d, k", [("compose(discrete_gaussian(sigma=2), k=3)", Fraction(2), 1, 3),
                                               ("compose(discrete_gaussian(sigma=1/2, sensitivity=2), k=3)",
                                                Fraction(1, 2), 2, 3)])
def test_composition_certificate_is_true_and_a_false_one_fails(tmp_path, spec, sigma, d, k):
    f = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "certdp", "profile", spec, "--delta", "1e-5", "--certificate", str(f)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    doc = json.loads(f.read_text())
    assert "pld_profile" in doc["evidence"] and check(doc).valid
    eps = Fraction(doc["claim"]["eps"])
    assert delta_truth(sigma, d, k, eps) <= mpf("1e-5")  # the certified claim is true
    # a claim 1 % below the truth's ε: δ there exceeds 1e-5, so it must not verify
    with mpmath.workdps(40):
        star = mpmath.findroot(lambda e: delta_truth(sigma, d, k, Fraction(mpmath.nstr(e, 30))) - mpf("1e-5"),
                               (mpf(0), mpf(eps) + 1), solver="bisect", tol=mpf(10) ** -12)
    assert eps >= Fraction(mpmath.nstr(star, 20)) - Fraction(1, 10**10)
    false = json.loads(f.read_text())
    false["claim"]["eps"] = mpmath.nstr(star * mpf("0.99"), 15)
    assert not check(false).valid


@pytest.mark.parametrize("spec", ["discrete_laplace(scale=1)"])
def test_measure_certificates_of_discrete_mechanisms_verify(tmp_path, spec):
    # discrete_laplace(scale=1) is exactly 1-DP: δ(1) = 0 must be exact in the checker
    # (a ball around 0 failed the claimed residual 1.9e-115 before)
    f = tmp_path / "m.json"
    out = subprocess.run([sys.executable, "-m", "certdp", "measure", spec, "--certificate", str(f)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert check(json.loads(f.read_text())).valid


@pytest.mark.parametrize("spec, valid", [("discrete_gaussian(sigma=1e-300)", False), ("discrete_gaussian(sigma=5000)", True),
                                         ("discrete_laplace(scale=1e-300)", False), ("discrete_laplace(scale=1e300)", True)])
def test_extreme_discrete_parameters_get_a_verdict(spec, valid):
    assert check(_doc(spec, "dp", Fraction(1), Fraction(1, 10**5))).valid is valid


@pytest.mark.parametrize("spec", ["discrete_gaussian(sigma=5001)", "discrete_gaussian(sigma=1, sensitivity=0)",
                                  "discrete_laplace(scale=1, sensitivity=1001)", "discrete_laplace(scale=0)"])
def test_out_of_range_discrete_parameters_are_malformed(spec):
    from certdp.verifier.schema import MalformedCertificate  # noqa: PLC0415

    with pytest.raises(MalformedCertificate):
        check(_doc(spec, "dp", Fraction(1), Fraction(1, 10**5)))
