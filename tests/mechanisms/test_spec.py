"""The mechanism spec grammar: parsing, canonical form, round trips, rejection."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.errors import InputError
from certdp.mechanisms import (
    CATALOG,
    ApproxDP,
    ClipReify,
    Compose,
    Gaussian,
    GaussianDP,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsample,
    format_spec,
    parse_spec,
)
from certdp.mechanisms.spec import format_number, tokenize
from certdp.mechanisms.catalog import entry
from certdp.numerics.exact import parse_decimal


# ---------------------------------------------------------------------------
# examples from the issue and canonical output
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected,canonical",
    [
        ("laplace(scale=1/2)", Laplace(scale=Fraction(1, 2)), "laplace(scale=0.5, sensitivity=1)"),
        ("gaussian(sigma=2)", Gaussian(sigma=2), "gaussian(sigma=2, sensitivity=1)"),
        (
            "subsample(laplace(scale=1/2), rate=1/10)",
            Subsample(Laplace(scale=Fraction(1, 2)), rate=Fraction(1, 10)),
            "subsample(laplace(scale=0.5, sensitivity=1), rate=0.1)",
        ),
        (
            "compose(gaussian(sigma=5), k=100)",
            Compose(Gaussian(sigma=5), k=100),
            "compose(gaussian(sigma=5, sensitivity=1), k=100)",
        ),
        ("approx_dp(eps=1, delta=1e-5)", ApproxDP(eps=1, delta=Fraction(1, 10**5)), "approx_dp(eps=1, delta=1e-5)"),
        ("pure_dp(eps = 0.1 ,)", PureDP(eps=Fraction(1, 10)), "pure_dp(eps=0.1)"),
        ("randomized_response(1/3)", RandomizedResponse(p=Fraction(1, 3)), "randomized_response(p=1/3)"),
        ("gaussian_dp(mu=2.5e-3/7)", GaussianDP(mu=Fraction(25, 70000)), "gaussian_dp(mu=1/2800)"),
        (
            "clip_reify(gaussian_dp(mu=1), eps_h=10, lo=-1, hi=+1)",
            ClipReify(GaussianDP(mu=1), eps_h=10, lo=-1, hi=1),
            "clip_reify(gaussian_dp(mu=1), eps_h=10, lo=-1, hi=1)",
        ),
        (
            "compose(compose(gaussian_dp(mu=1), k=2), k=3)",
            Compose(GaussianDP(mu=1), k=6),
            "compose(gaussian_dp(mu=1), k=6)",
        ),
        ("laplace(\n  scale=.25,\tsensitivity=2\n)", Laplace(scale=Fraction(1, 4), sensitivity=2), "laplace(scale=0.25, sensitivity=2)"),
        ("laplace(2, 3)", Laplace(scale=2, sensitivity=3), "laplace(scale=2, sensitivity=3)"),
    ],
)
def test_examples_parse_and_format(text, expected, canonical):
    mech = parse_spec(text)
    assert mech == expected
    assert format_spec(mech) == canonical == mech.spec() == repr(mech)
    assert parse_spec(canonical) == mech


def test_tradeoff_entries_round_trip():
    for text in ("sgd(A=2, B=1, sigma=2)", "icea(m=20, n=4)"):
        mech = parse_spec(text)
        assert mech.spec() == text
        assert parse_spec(mech.spec()) == mech
    t = parse_spec('tradeoff("2/eps*sqrt(log(1/delta))", sigma=2)')
    assert parse_spec(t.spec()).spec() == t.spec()


# ---------------------------------------------------------------------------
# exact numbers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q,text",
    [
        (Fraction(1, 2), "0.5"),
        (Fraction(1, 10), "0.1"),
        (Fraction(1, 10**5), "1e-5"),
        (Fraction(-3, 4), "-0.75"),
        (Fraction(1, 3), "1/3"),
        (Fraction(7), "7"),
        (Fraction(123456, 1000), "123.456"),
        (Fraction(1, 2**70), f"1/{2**70}"),  # decimal would need 70 digits
    ],
)
def test_format_number(q, text):
    assert format_number(q) == text
    assert parse_decimal(text) == q


@given(st.fractions(max_denominator=10**12) | st.builds(lambda m, e: Fraction(m) / 10**e, st.integers(-10**9, 10**9), st.integers(0, 60)))
def test_format_number_round_trips_exactly(q):
    assert parse_decimal(format_number(q)) == q


# ---------------------------------------------------------------------------
# round-trip fuzz over random mechanism trees
# ---------------------------------------------------------------------------

positive = st.fractions(min_value=0, max_value=1000, max_denominator=10**6).filter(lambda q: q > 0)
prob = st.fractions(min_value=0, max_value=1, max_denominator=10**6).filter(lambda q: 0 < q < 1)
decimals = st.builds(lambda m, e: Fraction(m, 10**e), st.integers(1, 10**6), st.integers(0, 12))

leaf = st.one_of(
    st.builds(Laplace, scale=positive | decimals, sensitivity=positive),
    st.builds(Gaussian, sigma=positive | decimals, sensitivity=positive),
    st.builds(GaussianDP, mu=positive),
    st.builds(RandomizedResponse, p=prob),
    st.builds(PureDP, eps=st.fractions(min_value=0, max_value=50, max_denominator=1000)),
    st.builds(ApproxDP, eps=st.fractions(min_value=0, max_value=50, max_denominator=1000), delta=prob),
)


def _extend(children):
    gauss = st.builds(GaussianDP, mu=positive)
    return st.one_of(
        st.builds(Subsample, children, rate=prob | st.just(Fraction(1))),
        st.builds(Compose, gauss | st.builds(Compose, gauss, k=st.integers(1, 50)), k=st.integers(1, 10**6)),
        st.builds(
            lambda m, e, lo, w: ClipReify(m, eps_h=e, lo=lo, hi=lo + w),
            children,
            positive,
            st.fractions(min_value=-100, max_value=100, max_denominator=1000),
            positive,
        ),
    )


mechanisms = st.recursive(leaf, _extend, max_leaves=4)


@settings(max_examples=150)
@given(mechanisms)
def test_round_trip_object_spec_object(mech):
    text = format_spec(mech)
    back = parse_spec(text)
    assert back == mech
    assert format_spec(back) == text


# ---------------------------------------------------------------------------
# rejection of junk: always InputError, naming the problem
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,word",
    [
        ("", "expected a mechanism name"),
        ("laplace", "expected '('"),
        ("laplace(scale=1", "expected ',' or ')'"),
        ("laplace(scale=1))", "unexpected ')'"),
        ("lapalce(scale=1)", "unknown mechanism 'lapalce'"),
        ("laplace(scael=1)", "unknown parameter 'scael'"),
        ("laplace(scale=1, scale=2)", "given twice"),
        ("laplace(scale=1, 2, 3)", "positional argument"),
        ("laplace(1, 2, 3)", "at most 2"),
        ("laplace(sensitivity=1)", "missing parameter 'scale'"),
        ("laplace(scale=)", "expected a number"),
        ("laplace(scale=abc)", "got name 'abc'"),
        ("laplace(scale=1/0)", "division by zero"),
        ("laplace(scale=0)", "scale must be > 0"),
        ("laplace(scale=-1)", "scale must be > 0"),
        ("laplace(scale=\"1\")", "must be a number"),
        ("laplace(scale=1.2.3)", "expected ',' or ')'"),
        ("laplace(scale=1e999999)", "exponent"),
        ("gaussian(sigma=2) gaussian(sigma=3)", "after the mechanism spec"),
        ("subsample(3, rate=0.1)", "must be a mechanism"),
        ("subsample(laplace(scale=1), rate=2)", "rate"),
        ("compose(laplace(scale=1), k=0)", "k must be"),
        ("compose(gaussian(sigma=1), k=1/2)", "must be an integer"),
        ("__import__('os').system('true')", "unexpected character"),
        ("laplace(scale=1); import os", "unexpected character ';'"),
        ("laplace.__class__(scale=1)", "unexpected character '.'"),
        ("lambda: 1", "unexpected character ':'"),
        ("laplace(scale=1**2)", "expected"),
        ('profile("unterminated)', "string"),
        ("(" * 10, "expected a mechanism name"),
    ],
)
def test_junk_is_rejected_with_a_named_token(text, word):
    with pytest.raises(InputError, match=_re(word)):
        parse_spec(text)


def _re(word):
    import re

    return re.escape(word)


def test_depth_and_length_limits():
    deep = "subsample(" * 40 + "laplace(scale=1)" + ", rate=1/2)" * 40
    with pytest.raises(InputError, match="nested deeper"):
        parse_spec(deep)
    with pytest.raises(InputError, match="too long"):
        parse_spec("laplace(scale=" + "1" * 200_000 + ")")


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("laplcegusinm_()=,/.-+ 0123456789e\"'x;:[]{}\\")), max_size=60))
def test_random_text_gives_mechanism_or_input_error(text):
    try:
        mech = parse_spec(text)
    except InputError:
        return
    assert isinstance(mech, Mechanism)


@settings(max_examples=200)
@given(mechanisms, st.integers(0, 200), st.sampled_from(list("(),=/-+.e\"x 9")))
def test_mutated_specs_never_crash(mech, pos, ch):
    text = format_spec(mech)
    pos = pos % (len(text) + 1)
    mutated = text[:pos] + ch + text[pos:]
    try:
        back = parse_spec(mutated)
    except InputError:
        return
    assert isinstance(back, Mechanism)


def test_tokenizer_positions():
    toks = tokenize('laplace( scale = 1/2 )')
    assert [(t.kind, t.text, t.pos) for t in toks][:4] == [
        ("name", "laplace", 0),
        ("punct", "(", 7),
        ("name", "scale", 9),
        ("punct", "=", 15),
    ]


def test_catalog_names_match_classes():
    assert list(CATALOG)[:12] == [
        "laplace", "gaussian", "gaussian_dp", "randomized_response", "pure_dp",
        "approx_dp", "subsample", "subset", "compose", "compose_all", "clip_reify", "profile",
    ]
    for name in CATALOG:  # (entry() loads the lazy ones: CATALOG holds their names until then)
        assert entry(name).name == name
