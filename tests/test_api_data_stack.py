"""certdp in the Python data stack (issue 38 item 3): every API result's to_json()
goes through json.dumps; numpy scalars of every kind are exact numbers; lists and
arrays of targets are answered from one accountant run; Enclosure speaks the format
mini-language, rounded outward; width is a float rounded up."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import certdp
from certdp.errors import InputError
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import printed_numeral
from refs import delta_mu_ref, mp_digits, mpf

_mp = pytest.fixture(autouse=True)(mp_digits(40))

#: One call of every public API function whose value is a result (an answer, an enclosure,
#: a check); the accountants (rdp, phi, pld) and mechanism() return objects to ask further.
RESULTS = {
    "delta": lambda: certdp.delta("gaussian(sigma=1)", 1),
    "epsilon": lambda: certdp.epsilon("compose(laplace(scale=1), k=3)", "1e-5"),
    "gdp": lambda: certdp.gdp("laplace(scale=1)"),
    "gdpt": lambda: certdp.gdpt("laplace(scale=1)", 1),
    "tradeoff": lambda: certdp.tradeoff("laplace(scale=1)", "0.1"),
    "identify": lambda: certdp.identify("laplace(scale=1)"),
    "dpsgd": lambda: certdp.dpsgd("1.1", "0.01", 100, delta="1e-5", mu=True),
    "dpsgd_shuffle": lambda: certdp.dpsgd("1", epochs=1, batch_size=100, dataset_size=2000, delta="1e-5",
                                          sampling="shuffle"),
    "calibrate": lambda: certdp.calibrate("gaussian(sigma=x)", "x", eps=1, delta="1e-5"),
    "rdp_epsilon": lambda: certdp.rdp_epsilon("gaussian(sigma=1)", "1e-5", 10),
    "rdp_delta": lambda: certdp.rdp_delta("gaussian(sigma=1)", 2, 10),
    "zcdp": lambda: certdp.zcdp("gaussian(sigma=1)", 10),
    "delta_mu": lambda: certdp.delta_mu(1, 1),
    "mu_gdp": lambda: certdp.mu_gdp(1, "1e-5"),
    "eps_gdp": lambda: certdp.eps_gdp(1, "1e-5"),
    "tradeoff_mu": lambda: certdp.tradeoff_mu(1, "0.1"),
    "adp_to_prdp": lambda: certdp.adp_to_prdp(1, "1e-5", 2),
    "mu_pure_dp": lambda: certdp.mu_pure_dp(1),
    "switch_point": lambda: certdp.switch_point("sgd(sigma=1, A=1, B=1)"),
    "is_adp": lambda: certdp.is_adp([[1, 0], [0, 1]], 1, "0.1"),
    "is_prdp": lambda: certdp.is_prdp([[1, 0], [0, 1]], 1, "0.1"),
    "counterexample": lambda: certdp.counterexample(1, "0.1", 2),
}
#: Functions that return an object to ask further (their answers are results above).
OBJECTS = {"mechanism", "rdp", "phi", "pld"}


def _plain(obj: object) -> bool:
    if isinstance(obj, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in obj.items())
    if isinstance(obj, list):
        return all(_plain(v) for v in obj)
    return obj is None or isinstance(obj, (str, int, float, bool))


def test_every_result_round_trips_through_json(tmp_path):
    certificate = tmp_path / "c.json"
    results = {name: make() for name, make in RESULTS.items()}
    from certdp.cli import main

    assert main(["dpsgd", "--noise", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5",
                 "--certificate", str(certificate), "--quiet"]) == 0
    results["verify"] = certdp.verify(str(certificate))
    assert (set(results) - {"dpsgd_shuffle"}) | OBJECTS == set(certdp.API), \
        "a new API function: add it to RESULTS or OBJECTS"
    for name, res in results.items():
        data = res.to_json()
        assert _plain(data), name
        assert json.loads(json.dumps(data)) == data, name
    # the enclosures survive the trip exactly as outward decimal strings
    back = json.loads(json.dumps(results["dpsgd"].to_json()))
    assert Enclosure.from_json(back["eps"]).contains_enclosure(results["dpsgd"].eps)
    assert json.loads(json.dumps(results["delta"].to_json()))["kind"] == "exact"


NUMPY_REALS = [np.int64(1), np.int32(1), np.uint8(1), np.float64(1.0), np.float32(1.0), np.float16(1.0),
               np.longdouble(1), np.array(1.0)]


@pytest.mark.parametrize("one", NUMPY_REALS, ids=lambda v: type(v).__name__)
def test_numpy_scalars_are_exact_numbers(one):
    assert certdp.delta_mu(one, one) == certdp.delta_mu(1, 1)
    assert certdp.delta("gaussian(sigma=1)", one).enclosure == certdp.delta("gaussian(sigma=1)", 1).enclosure
    assert certdp.mu_pure_dp(one) == certdp.mu_pure_dp(1)
    assert certdp.tradeoff_mu(one, Fraction(1, 10)) == certdp.tradeoff_mu(1, Fraction(1, 10))


def test_numpy_floats_are_their_exact_binary_value():
    # float32(0.1) is 13421773/2^27, not 1/10 and not float64(0.1)
    want = certdp.delta_mu(1, Fraction(13421773, 2**27))
    assert certdp.delta_mu(1, np.float32(0.1)) == want != certdp.delta_mu(1, Fraction(1, 10))
    ld = np.longdouble(1) / np.longdouble(3)  # more bits than a float64 where the platform has them
    assert certdp.delta_mu(1, ld) == certdp.delta_mu(1, Fraction(*(int(t) for t in ld.as_integer_ratio())))


def test_numpy_counts_steps_and_batch_sizes():
    base = certdp.dpsgd("2", "0.01", 50, delta="1e-5", two_sided=False)
    got = certdp.dpsgd(np.int64(2), "0.01", np.int64(50), delta="1e-5", two_sided=False)
    assert got.eps == base.eps and got.steps == 50 and type(got.steps) is int
    by_batch = certdp.dpsgd("2", epochs=np.int32(1), batch_size=np.int64(500), dataset_size=np.int64(50000),
                            delta="1e-5", two_sided=False)
    assert by_batch.steps == 100 and by_batch.rate == Fraction(1, 100)
    assert certdp.zcdp("gaussian(sigma=1)", np.int64(10)) == certdp.zcdp("gaussian(sigma=1)", 10)
    acc = certdp.pld("subsample(gaussian(sigma=1), rate=1/100)", np.int32(10))
    assert acc.delta(np.float32(1)) == acc.delta(1)
    assert certdp.rdp("gaussian(sigma=1)", np.uint16(3)).zcdp() == certdp.rdp("gaussian(sigma=1)", 3).zcdp()


@pytest.mark.parametrize("bad", [np.bool_(True), np.float64("nan"), np.float32("inf"), np.complex128(1)],
                         ids=repr)
def test_numpy_non_numbers_are_refused(bad):
    with pytest.raises(InputError):
        certdp.delta_mu(1, bad)
    with pytest.raises(InputError):
        certdp.rdp("gaussian(sigma=1)", bad)


def test_lists_and_arrays_of_targets_from_one_run():
    mech = "compose(laplace(scale=1), k=3)"
    eps = [0, Fraction(1, 2), "1", np.float64(2.0)]
    encs = certdp.delta(mech, eps)
    assert isinstance(encs, list) and len(encs) == 4 and all(isinstance(e, Enclosure) for e in encs)
    for e, x in zip(encs, eps):
        single = certdp.delta(mech, x).enclosure
        assert e.lo <= single.hi and single.lo <= e.hi  # both contain the truth: they overlap
    arr = certdp.delta("gaussian(sigma=2)", np.array([0.5, 1.0, 2.0]))
    assert isinstance(arr, np.ndarray) and arr.dtype == object and arr.shape == (3,)
    for e, x in zip(arr, (0.5, 1.0, 2.0)):
        assert e.contains(delta_mu_ref(Fraction(1, 2), Fraction(x)))
    deltas = certdp.epsilon(mech, ("1e-3", "1e-5"))
    assert deltas[0].hi < deltas[1].lo  # a smaller δ needs a larger ε
    with pytest.raises(InputError):
        certdp.delta(mech, np.zeros((2, 2)))


def test_dpsgd_list_of_deltas_matches_single_answers():
    many = certdp.dpsgd("1.1", "0.01", 100, delta=["1e-5", np.float64(1e-6)])
    for e, d in zip(many, ("1e-5", Fraction(*np.float64(1e-6).as_integer_ratio()))):
        single = certdp.dpsgd("1.1", "0.01", 100, delta=d).eps
        assert e.lo <= single.hi and single.lo <= e.hi
        assert e.hi_exact - e.lo_exact <= Fraction(1, 1000)  # narrow on the default grid too
    assert many[0].hi < many[1].lo
    deltas = certdp.dpsgd("1.1", epochs=2, batch_size=256, dataset_size=60000, eps=np.array([1.0, 2.0]))
    assert isinstance(deltas, np.ndarray) and deltas[1].hi < deltas[0].lo


@pytest.mark.parametrize("x", [Fraction(1, 3), Fraction(-2, 7), Fraction(123456789, 1000), Fraction(1, 10**7),
                               Fraction(987654321, 7), Fraction(0)])
@pytest.mark.parametrize("spec", [".6f", ".0f", ".3e", ".1E", ".4g", ".12g", ".2%", "+.3f", ",.2f", "_.1f", "#.4g"])
def test_format_mini_language_rounds_outward(x, spec):
    enc = Enclosure.exact(x)
    text = format(enc, spec)
    assert text.startswith("[") and text.endswith("]")
    ends = text[1:-1].split(", ")
    lo_s, hi_s = (ends * 2)[:2]
    for end, bound in ((lo_s, enc.lo_exact), (hi_s, enc.hi_exact)):
        numeral = end.replace(",", "").replace("_", "").removesuffix("%").removeprefix("+")
        value, unit = printed_numeral(numeral)
        if end.endswith("%"):
            value, unit = value / 100, unit / 100
        if end is lo_s:
            assert bound - unit < value <= bound, (spec, end)  # rounded down, by less than a last place
        else:
            assert bound <= value < bound + unit, (spec, end)  # rounded up
    digits = spec.lstrip("+,_#").split(".")[1][:-1] if spec[-1].isalpha() or spec[-1] == "%" else None
    if spec.endswith(("f", "%")):  # as many places as asked, like Python's own presentation
        assert all(len(e.rstrip("%").split(".")[1]) == int(digits) for e in ends if "." in e) or digits == "0"
    if spec.lower().endswith("e"):  # two exponent digits and p mantissa places, as floats print
        assert all(len(e.lower().split("e")[0].split(".")[1]) == int(digits) and len(e.split("e" if "e" in e else "E")[1]) == 3
                   for e in ends)


def test_format_examples_and_width():
    third = Enclosure.exact(Fraction(1, 3))
    assert f"{third:.6f}" == "[0.333333, 0.333334]"
    assert f"{third:.3e}" == "[3.333e-01, 3.334e-01]"
    assert f"{third:.4g}" == "[0.3333, 0.3334]"
    assert f"{third:>26.3f}" == "            [0.333, 0.334]"
    assert f"{Enclosure.exact(Fraction(1, 2)):.3f}" == "[0.500]"  # one end: an exact point
    assert f"{Enclosure.exact(123456789):,.1f}" == "[123,456,789.0]"
    tiny = certdp.delta_mu(1, 40)
    lo_s, hi_s = f"{tiny:.3e}"[1:-1].split(", ")  # far below the floats: still 4 digits each
    assert mpf(lo_s) <= delta_mu_ref(1, 40) <= mpf(hi_s) and mpf(hi_s) / mpf(lo_s) < 1.001
    assert f"{tiny:.3f}" == "[0.000, 0.001]"
    mu = certdp.mu_gdp(1, "1e-5")
    w = mu.width
    assert isinstance(w, float) and 0 < w and Fraction(w) >= mu.hi_exact - mu.lo_exact
    assert Fraction(math.nextafter(w, 0)) < mu.hi_exact - mu.lo_exact  # the smallest such float
    assert Enclosure.exact(Fraction(1, 2)).width == 0.0
    wide = Enclosure.hull(Enclosure.exact(0), Enclosure.exact(10**400))
    assert wide.width == math.inf  # beyond the floats: inf is the float rounded up


def test_typed_package():
    import pathlib

    assert (pathlib.Path(certdp.__file__).parent / "py.typed").is_file()
    from certdp import api

    import ast
    import inspect
    import typing

    # the names the annotations use: the module's globals plus its TYPE_CHECKING imports
    namespace = dict(vars(api))
    tree = ast.parse(inspect.getsource(api))
    (guarded,) = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    exec(compile(ast.Module(body=guarded.body, type_ignores=[]), "api", "exec"), namespace)  # noqa: S102
    for name in certdp.API:
        fn = getattr(api, name)
        hints = fn.__annotations__  # strings (postponed evaluation)
        assert "return" in hints, name
        for arg, hint in hints.items():
            assert "Any" not in str(hint) and "object" not in str(hint), (name, arg, hint)
        resolved = typing.get_type_hints(fn, globalns=namespace)  # every annotation names a real type
        assert set(resolved) == set(hints), name


def test_numpy_tables_of_finite_mechanisms():
    """A 2-d array (or rows that are arrays) is read entry by entry, exactly."""
    rr = [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    for eps, delta in ((Fraction(1), Fraction(1, 10)), (Fraction(0), Fraction(1, 2)), (Fraction(0), Fraction(1, 4))):
        d32 = np.float32(delta)  # 1/10 as a float32 is 13421773/2^27: its exact value is what is asked
        want = certdp.is_adp(rr, eps, Fraction(*(int(t) for t in d32.as_integer_ratio())))
        got = certdp.is_adp(np.array([[0.75, 0.25], [0.25, 0.75]]), np.float64(eps), d32)
        assert got.holds == want.holds and got.margin == want.margin
    assert certdp.is_adp([np.array([0.5, 0.5]), np.array([0.5, 0.5])], 0, 0).holds
    assert not certdp.is_adp(np.array([[1, 0], [0, 1]]), np.int64(1), "0.1").holds  # exact 0/1 entries
    with pytest.raises(InputError):
        certdp.is_adp(np.array([[np.nan, 1.0], [0.5, 0.5]]), 1, "0.1")
