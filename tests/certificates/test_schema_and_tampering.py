"""The published JSON Schema (docs/certificate.schema.json) describes every
certificate certdp writes, and a tamper campaign (issue 15): mutants of real
certificates are either refused as malformed or checked, and no mutant whose
claim is false is ever VALID (truth from mpmath closed forms)."""

from __future__ import annotations

import copy
import json
import os
import pathlib
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.analyses.gdpt import measure
from certdp.analyses.prdp.constructions import theorem_3_2
from certdp.certificates.checker import check
from certdp.certificates.prdp_writer import write_certificate
from certdp.certificates.schema import MalformedCertificate
from certdp.certificates.writer import (
    dp_certificate,
    exact_gdp_certificate,
    measurement_certificate,
    not_gdp_document,
    upper_dp_certificate,
    value_certificate,
)
from certdp.errors import CertdpError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu, mu_from_eps_delta

jsonschema = pytest.importorskip("jsonschema")
#: junk mutants per run (TAMPER_EXAMPLES=1500 for a longer campaign)
TAMPER_EXAMPLES = int(os.environ.get("TAMPER_EXAMPLES", "150"))
SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict[str, dict]:
    prdp_path = tmp_path_factory.mktemp("c") / "prdp.json"
    write_certificate(theorem_3_2("1/2", "1/100", "1"), prdp_path)
    gauss = parse_spec("gaussian(sigma=2)")
    return {
        "gdp": measurement_certificate(measure(parse_spec("laplace(scale=1/2)"), width="1e-3")),
        "gdp_head": measurement_certificate(measure(parse_spec('profile("exp(-eps**2)/2")'), width="1e-3")),
        "not_gdp": not_gdp_document("laplace(scale=1/2, sensitivity=1)", Fraction(1), Fraction(1)),
        "gdp_exact": exact_gdp_certificate("gaussian(sigma=2, sensitivity=1)", "0.5", "0.5"),
        "dp": dp_certificate("dp", gauss.spec(), "1", "0.13", delta_mu("1/2", "1")),
        "not_dp": dp_certificate("not_dp", gauss.spec(), "1", "0.0001", delta_mu("1/2", "1")),
        "dp_pld": upper_dp_certificate(parse_spec("dpsgd(noise=2, rate=1/10, steps=20)"), delta="1e-5",
                                       eps_hi=Enclosure.exact(Fraction(11, 10))),
        "dp_profile": upper_dp_certificate(parse_spec("compose(laplace(scale=5), k=50)"), delta="1e-4",
                                           eps_hi=Enclosure.exact(Fraction("5.37942"))),
        "value": value_certificate("mu_gdp", None, {"eps": "1", "delta": "1e-5"}, mu_from_eps_delta("1", "1e-5")),
        "adp_not_prdp": json.loads(prdp_path.read_text()),
    }


def test_every_kind_validates_against_the_schema_and_the_checker(documents):
    for name, doc in documents.items():
        errors = [e.message for e in VALIDATOR.iter_errors(doc)]
        assert not errors, (name, errors[:3])
        assert check(doc).valid, name


@pytest.mark.parametrize("mutate", [
    lambda d: d.__setitem__("version", 2),
    lambda d: d["claim"].__setitem__("eps", 1.0),       # a JSON float
    lambda d: d["claim"].__setitem__("extra", "1"),
    lambda d: d.__setitem__("precision", "128"),
    lambda d: d.pop("producer"),
])
def test_schema_rejects_malformed_documents(documents, mutate):
    doc = copy.deepcopy(documents["dp"])
    mutate(doc)
    assert list(VALIDATOR.iter_errors(doc))
    with pytest.raises(MalformedCertificate):
        check(doc)


# ---------------------------------------------------------------------------
# tampering: false claims are never VALID
# ---------------------------------------------------------------------------

def _mp(text: str) -> mpmath.mpf:
    q = Fraction(text)
    return mpmath.mpf(q.numerator) / q.denominator


def _delta_gauss(mu, eps):
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _sigma_of(spec: str) -> mpmath.mpf:
    return _mp(spec.split("sigma=")[1].split(",")[0].split(")")[0])


def _truth(doc: dict) -> bool:
    """Is the (mutated) claim true?  Closed forms in mpmath at 40 digits."""
    c = doc["claim"]
    if c["kind"] in ("dp", "not_dp"):
        d = _delta_gauss(1 / _sigma_of(doc["mechanism"]), _mp(c["eps"]))
        return d <= _mp(c["delta"]) if c["kind"] == "dp" else d > _mp(c["delta"])
    if c["kind"] == "gdp_exact":
        mu = 1 / _sigma_of(doc["mechanism"])
        return mu <= _mp(c["mu"]) and ("mu_lower" not in c or _mp(c["mu_lower"]) <= mu)
    if c["kind"] == "value":
        e, dl = _mp(c["at"]["eps"]), _mp(c["at"]["delta"])
        mu = mpmath.findroot(lambda m: _delta_gauss(m, e) - dl, 0.27)
        return _mp(c["lo"]) <= mu <= _mp(c["hi"])
    raise AssertionError(c["kind"])


FACTORS = [Fraction(1, 2), Fraction(9, 10), Fraction(99, 100), Fraction(999999, 1000000), Fraction(1000001, 1000000),
           Fraction(101, 100), Fraction(11, 10), Fraction(2)]
FIELDS = {"dp": ["eps", "delta"], "not_dp": ["eps", "delta"], "gdp_exact": ["mu", "mu_lower"], "value": ["lo", "hi"]}


SIGMAS = ["2", "19/10", "21/10", "1", "4"]


def test_no_false_claim_is_valid(documents):
    """Every mutant of a claim field (× 8 factors) with and without a changed
    mechanism: the checker must never call a false claim VALID, and must accept
    some true ones (so the campaign can tell the two apart)."""
    counts = {"false": 0, "false_valid": 0, "true": 0, "true_valid": 0, "malformed": 0}
    for kind, fields in FIELDS.items():
        for field in fields:
            for factor in FACTORS:
                for sigma in [None] + (SIGMAS if kind != "value" else []):
                    doc = copy.deepcopy(documents[kind])
                    doc["claim"][field] = str(Fraction(doc["claim"][field]) * factor)
                    if sigma is not None:
                        doc["mechanism"] = f"gaussian(sigma={sigma}, sensitivity=1)"
                    with mpmath.workdps(40):
                        true = _truth(doc)
                    try:
                        valid = check(doc).valid
                    except MalformedCertificate:
                        counts["malformed"] += 1
                        continue
                    key = "true" if true else "false"
                    counts[key] += 1
                    counts[key + "_valid"] += valid
                    assert not (valid and not true), (doc["claim"], doc["mechanism"])
    print(counts)
    assert counts["false_valid"] == 0 and counts["false"] >= 80 and counts["true_valid"] >= 50, counts


@settings(max_examples=TAMPER_EXAMPLES, deadline=None)
@given(kind=st.sampled_from(["gdp", "gdp_head", "not_gdp", "dp_pld", "dp_profile", "adp_not_prdp", "dp", "value"]),
       junk=st.sampled_from(["1e100000", "1e-400", "-1", "0", "", "abc", "9" * 5000, "1/0", None, 1.5, [], {}, True]),
       where=st.integers(0, 50))
def test_junk_in_any_field_is_refused_or_checked_never_a_crash(documents, kind, junk, where):
    doc = copy.deepcopy(documents[kind])
    leaves = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list) and node:
            walk(node[0], path + [0])
        else:
            leaves.append(path)

    walk(doc, [])
    path = leaves[where % len(leaves)]
    target = doc
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = junk
    try:
        check(doc)
    except CertdpError:
        pass  # MalformedCertificate or another clean refusal
