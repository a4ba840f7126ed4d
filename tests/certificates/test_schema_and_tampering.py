"""The published JSON Schema (docs/certificate.schema.json) describes every
certificate certdp writes, and a tamper campaign (issue 15): mutants of real
certificates are either refused as malformed or checked, and no mutant whose
claim is false is ever VALID (truth from mpmath closed forms)."""

from __future__ import annotations

import copy
import json
import pathlib
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.gdpt import measure
from certdp.analyses.prdp.constructions import theorem_3_2
from certdp.verifier.checker import check
from certdp.certificates.prdp_writer import write_certificate
from certdp.verifier.schema import MalformedCertificate
from certdp.certificates.writer import (
    dp_certificate,
    exact_gdp_certificate,
    measurement_certificate,
    not_gdp_document,
    upper_dp_certificate,
)
from certdp.certificates.value_writer import value_certificate
from certdp.errors import CertdpError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu, mu_from_eps_delta
from required import required

jsonschema = required("jsonschema")
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


JUNK = ["1e100000", "1e-400", "-1", "0", "", "abc", "9" * 5000, "1/0", None, 1.5, [], {}, True]

#: Claim fields whose change in one direction only weakens the claim: +1 when a
#: larger value is a weaker claim (an upper bound: μ in "μ-GDP", δ in "(ε, δ)-DP"),
#: -1 when a smaller one is (a lower bound, or the μ of "not μ-GDP").  A junk value
#: on the weak side of the true original leaves a true claim; anything else that
#: comes back VALID is a checker accepting a claim nobody proved.
WEAKER = {
    "gdp": {"mu": +1, "mu_lower": -1},
    "gdp_head": {"mu": +1, "eps_max": -1, "residual": +1},
    "not_gdp": {"mu": -1},
    "dp_pld": {"eps": +1, "delta": +1},
    "dp_profile": {"eps": +1, "delta": +1},
}


def _diagonal_truth(doc: dict) -> bool:
    """Guingona et al. 2023 Lemma 3.1's diagonal mechanism (output a w.p. p, each other
    output w.p. q < p): (ε, δ)-ADP iff (p − e^ε q)⁺ + (q − e^ε p)⁺ <= δ (the hockey stick
    of the worst pair), and not (ε̂, δ̂)-PrDP iff P(loss > ε̂) = p·[log(p/q) > ε̂]
    + q·[log(q/p) > ε̂] + (n − 2)q·[0 > ε̂] exceeds δ̂."""
    c, m = doc["claim"], doc["mechanism"]
    n, p, q = int(m["n"]), _mp(m["p"]), _mp(m["q"])
    eps, delta, eh, dh = (_mp(c[k]) for k in ("eps", "delta", "eps_hat", "delta_hat"))
    if not (n >= 2 and 0 <= q < p and p + (n - 1) * q == 1):
        raise ValueError("not a diagonal mechanism")
    adp = max(p - mpmath.exp(eps) * q, 0) + max(q - mpmath.exp(eps) * p, 0) <= delta
    loss = mpmath.log(p / q) if q > 0 else mpmath.inf
    tail = p * (loss > eh) + q * (-loss > eh) + (n - 2) * q * (0 > eh)
    return bool(adp and tail > dh)


def _still_true(name: str, original: dict, doc: dict, path: list) -> bool:
    """Is the mutated document's claim provably true?  (Only asked when the
    checker said VALID.)  The originals are true (test_no_false_claim_is_valid
    and the writers' own tests); a mutant is true when its claim and mechanism
    are unchanged, when an independent mpmath truth says so, or when the one
    changed claim field moved to the weak side."""
    if doc["claim"] == original["claim"] and doc["mechanism"] == original["mechanism"]:
        return True  # junk in the evidence, precision or producer: the same, true, claim
    try:
        with mpmath.workdps(40):
            if name == "adp_not_prdp":
                return _diagonal_truth(doc)
            if name in ("dp", "value"):
                return bool(_truth(doc))
            if path[0] != "claim" or path[-1] not in WEAKER.get(name, {}):
                return False
            new, old = Fraction(doc["claim"][path[-1]]), Fraction(original["claim"][path[-1]])
            return (new - old) * WEAKER[name][path[-1]] >= 0
    except (ValueError, TypeError, ZeroDivisionError, KeyError, IndexError, ArithmeticError):
        return False  # junk that no truth can read: VALID would vouch for nothing


def _leaves(node, path=()) -> list[list]:
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaves(v, path + (k,))]
    if isinstance(node, list) and node:
        return _leaves(node[0], path + (0,))
    return [list(path)]


@pytest.mark.parametrize("name", ["gdp", "gdp_head", "not_gdp", "dp_pld", "dp_profile", "adp_not_prdp", "dp", "value"])
def test_junk_in_any_field_is_refused_or_checked_never_a_crash(documents, name):
    """Every junk value in every leaf of the document (about 1,400 mutants in
    all, a few seconds): the checker refuses it cleanly or checks it, and a
    VALID verdict is kept only for a claim that is still true."""
    original = documents[name]
    valid_true = 0
    for path in _leaves(original):
        for junk in JUNK:
            doc = copy.deepcopy(original)
            target = doc
            for p in path[:-1]:
                target = target[p]
            target[path[-1]] = junk
            try:
                valid = check(doc).valid
            except CertdpError:
                continue  # MalformedCertificate or another clean refusal
            if valid:
                assert _still_true(name, original, doc, path), (name, path, junk, doc["claim"])
                valid_true += 1
    assert valid_true > 0  # the originals' own fields (producer, ...) leave true claims VALID
