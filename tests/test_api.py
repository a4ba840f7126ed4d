"""The public API (certdp.api, re-exported lazily by the package): one
vocabulary, light import, answers checked against mpmath, docs/api.md current."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys
from fractions import Fraction

import pytest

import certdp
from refs import delta_mu_ref, mp_digits, mp_mu_gdp, mpf

ROOT = pathlib.Path(__file__).resolve().parents[1]
_mp = pytest.fixture(autouse=True)(mp_digits(40))


def test_every_api_name_resolves_and_is_documented():
    import certdp.verifier  # noqa: F401  (a subpackage named like an API function would shadow it once imported)

    for name in certdp.API:
        fn = getattr(certdp, name)
        assert callable(fn) and fn.__doc__, name
    with pytest.raises(AttributeError):
        certdp.no_such_thing  # noqa: B018


def test_import_is_light():
    code = "import sys, certdp; print(sorted(m for m in sys.modules if m == 'sympy' or m.startswith('certdp.analyses')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_answers_against_mpmath():
    assert certdp.delta("gaussian(sigma=2)", 1).enclosure.contains(delta_mu_ref(Fraction(1, 2), 1))
    assert certdp.delta_mu(1, 1).contains(delta_mu_ref(1, 1))
    enc = certdp.mu_gdp(1, "1e-5")
    truth = mp_mu_gdp(1, Fraction(1, 10**5), steps=140)
    assert mpf(enc.lo_exact) - mpf("1e-30") <= truth <= mpf(enc.hi_exact) + mpf("1e-30")
    g = certdp.gdp("compose(gaussian(sigma=2), k=4)")
    assert g.exact and g.mu.contains(1)  # √4 / 2 = 1 exactly
    eps = certdp.epsilon("gaussian(sigma=1)", certdp.delta("gaussian(sigma=1)", 1).enclosure.hi_exact)
    assert eps.enclosure.lo_exact <= 1 <= eps.enclosure.hi_exact + Fraction(1, 10**6)


def test_identify_takes_specs_and_profiles():
    assert certdp.identify("laplace(scale=1)").verdict == "gdp"
    assert certdp.identify("exp(-eps**2)/2").verdict == "gdp"


def test_api_reference_is_current():
    spec = importlib.util.spec_from_file_location("gen_api", ROOT / "docs" / "gen_api.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == mod.render(), \
        "docs/api.md is out of date: run python docs/gen_api.py"
