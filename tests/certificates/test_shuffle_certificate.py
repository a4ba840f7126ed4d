"""Certificates of the shuffled-batches lower bound (kind ``not_dp_shuffled``):
the writer's document is VALID for the independent checker, matches the published
schema, and tampering with the claim, the mechanism or the evidence makes it
INVALID or malformed — never a stronger false claim that checks."""

from __future__ import annotations

import copy
import json
import pathlib
from fractions import Fraction

import pytest

from certdp.analyses.accountants.shuffle import shuffled_dpsgd
from certdp.certificates.shuffle_writer import shuffled_certificate
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate
from required import required

SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())


@pytest.fixture(scope="module")
def doc():
    # σ = 1, 100 batches of 100, one epoch: shuffled ε >= 4.06 proved (Poisson: 0.718)
    return shuffled_certificate(shuffled_dpsgd(1, batch_size=100, dataset_size=10000, epochs=1, delta="1e-5"))


def test_valid_and_schema(doc):
    assert doc["claim"]["kind"] == "not_dp_shuffled" and float(doc["claim"]["eps"]) > 4.05
    assert check(doc).valid
    jsonschema = required("jsonschema")
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


@pytest.mark.parametrize("where,key,value", [
    ("claim", "eps", "4.4"),            # above the no-amplification bound 4.3772: false
    ("claim", "delta", "0.01"),         # δ_lower(4.06) is about 1e-5: not proved
    ("mechanism", "noise", "1.5"),      # more noise: the pair is weaker
    ("evidence", "pair", "others-zero"),      # the weaker pair at this σ
    ("evidence", "direction", "reverse"),
    ("evidence", "step", "1/2"),              # a coarse partition loses the bound
])
def test_tampered_is_invalid(doc, where, key, value):
    from certdp.verifier.check_iv import check as check_iv

    bad = copy.deepcopy(doc)
    bad[where][key] = value
    assert not check(bad).valid
    assert not check_iv(bad)[0]  # nor under the mpmath kernel


def test_more_batches_is_invalid(doc):
    bad = copy.deepcopy(doc)
    bad["mechanism"].update(dataset_size="100000", steps="1000")  # one epoch of 1,000 batches: more hiding
    assert not check(bad).valid


@pytest.mark.parametrize("where,key,value", [
    ("evidence", "pair", "others-plus-ten"),   # not in the checker's own table of pairs
    ("evidence", "points", 10**9),
    ("mechanism", "batch_size", "3"),          # does not divide N
    ("mechanism", "steps", "99"),              # no full epoch
    ("mechanism", "name", "dpsgd"),
    ("claim", "delta", "-1"),
])
def test_malformed_is_refused(doc, where, key, value):
    bad = copy.deepcopy(doc)
    bad[where][key] = value
    with pytest.raises(MalformedCertificate):
        check(bad)


def test_delta_answer_certificate():
    res = shuffled_dpsgd(1, batch_size=100, dataset_size=10000, epochs=1, eps=2)
    d = shuffled_certificate(res)
    assert d["claim"]["eps"] == "2" and check(d).valid
    assert float(d["claim"]["delta"]) <= float(res.lower.delta.lo_exact)


def test_a_grid_too_fine_for_the_epochs_is_refused_not_run(doc):
    bad = copy.deepcopy(doc)
    bad["mechanism"]["steps"] = str(100 * 10_000)  # 10,000 epochs on the finest grid
    bad["evidence"]["h_bits"] = 16
    with pytest.raises(MalformedCertificate, match="too long"):
        check(bad)


def test_the_mpmath_kernel_rederives_it(doc, tmp_path):
    """check_shuffle_iv: the same lower bound in intervals; a larger ε is refuted by neither kernel."""
    from certdp.verifier.checker import verify

    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    assert verify(str(path), kernel="mpmath").valid and verify(str(path)).valid
    bad = copy.deepcopy(doc)
    bad["claim"]["eps"] = str(Fraction(doc["claim"]["eps"]) + 1)
    path.write_text(json.dumps(bad))
    assert not verify(str(path), kernel="mpmath").valid and not verify(str(path)).valid


def test_precision_is_capped(doc):
    bad = copy.deepcopy(doc)
    bad["precision"] = 4096
    with pytest.raises(MalformedCertificate, match="precision"):
        check(bad)
