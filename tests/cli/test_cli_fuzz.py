"""Every subcommand driven with generated arguments (issue 18): numbers from
1e-400 to 1e400, long digit strings and junk.  Each run ends with exit code 0,
1 or 2 — never an exception escaping ``main`` (a traceback) — within a time
budget."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certdp.cli import main
from certdp.errors import budget

JUNK = ["", "abc", "1/0", "nan", "inf", "-inf", "1e", "0x10", "--", "1..2", "(", "1e99999999999", "١", "\x00",
        "log(", "exp(10**1000)", "2**2**2**2**2"]


@st.composite
def numbers(draw) -> str:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from(JUNK))
    if kind == 1:
        return "9" * draw(st.integers(1, 6000))
    if kind == 2:
        return "0." + "0" * draw(st.integers(0, 5000)) + "1"
    if kind == 3:
        return f"{draw(st.integers(1, 9))}e{draw(st.integers(-400, 400))}"
    if kind == 4:
        return f"{draw(st.integers(-3, 10**6))}/{draw(st.integers(-3, 10**6))}"
    return draw(st.sampled_from(["0", "1", "0.5", "2", "-1", "1e-5", "1e-300", "1e300", "10"]))


counts = st.one_of(st.sampled_from(["1", "2", "10", "0", "-1", "1e3", "x", "99999999999999999999"]),
                   st.integers(-5, 10**12).map(str))


@st.composite
def specs(draw) -> str:
    n = draw(numbers())
    template = draw(st.sampled_from([
        "laplace(scale={n})", "gaussian(sigma={n})", "randomized_response(eps={n})", "pure_dp(eps={n})",
        "approx_dp(eps={n}, delta=1e-5)", "subsample(gaussian(sigma={n}), rate=1/10)",
        "subsample(laplace(scale=1), rate={n})", "compose(laplace(scale=1), k={n})",
        "dpsgd(noise={n}, rate=0.01, steps=10)", "gaussian_dp(mu={n})", "{n}", "laplace(scale={n}",
        "subsample(" * 10 + "gaussian(sigma=1)" + ", rate=1/2)" * 10,
    ]))
    return template.format(n=n)


#: Subcommand cases drawn (indices of ``argvs``' branches).
COMMANDS = list(range(21))

#: Where generated files (claims, certificates, tables, grids, plots) go.
_FILES = Path(tempfile.mkdtemp(prefix="certdp-fuzz-"))


@st.composite
def files(draw, suffix: str) -> str:
    """A file of generated content: TOML/JSON-looking text with generated
    numbers, junk bytes, deep nesting, or empty."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        data = draw(st.binary(max_size=200))
    elif kind == 1:
        data = ("[" * draw(st.integers(1, 10_000)) + "]" * draw(st.integers(0, 3))).encode()
    elif kind == 2:
        ident = draw(st.sampled_from(["a/b", "x" * 300, "n\\u0000", "ok"]))  # TOML escapes: a NUL in the id
        kind_name = draw(st.sampled_from(["dp", "not_dp", "gdp", "value", "junk"]))
        fields = (f'id = "{ident}"', f'kind = "{kind_name}"', f'mechanism = "{draw(specs())}"',
                  f'eps = "{draw(numbers())}"', f'delta = "{draw(numbers())}"', f'mu = "{draw(numbers())}"')
        data = ("[[claim]]\n" + "\n".join(fields) + "\n").encode()
    elif kind == 3:
        data = json.dumps({"format": "certdp-certificate", "version": 1,
                           "kind": draw(st.sampled_from(["gdp", "dp", "not_dp", "prdp", "pld", "junk"])),
                           "mechanism": draw(specs()), "mu": draw(numbers()), "eps": draw(numbers()),
                           "delta": draw(numbers()), "prec": draw(counts)}).encode()
    else:
        data = b""
    path = _FILES / f"f{draw(st.integers(0, 10**9))}{suffix}"
    path.write_bytes(data)
    return str(path)


@st.composite
def argvs(draw) -> list[str]:
    n = numbers()
    which = draw(st.sampled_from(COMMANDS))
    if which == 0:
        return ["gdp", "delta", "--mu", draw(n), "--eps", draw(n)] + draw(st.sampled_from([[], ["--json"]]))
    if which == 1:
        return ["gdp", "mu", "--eps", draw(n), "--delta", draw(n)] + draw(st.sampled_from([[], ["--width", "1e-200"]]))
    if which == 2:
        return ["gdp", "eps", "--mu", draw(n), "--delta", draw(n)]
    if which == 3:
        return ["gdp", "table", "--eps", f"{draw(n)},1", "--delta", draw(n)]
    if which == 4:
        return ["profile", draw(specs()), draw(st.sampled_from(["--eps", "--delta"])), draw(n)]
    if which == 5:
        return ["account", "--mechanism", draw(specs()), "--times", draw(counts),
                draw(st.sampled_from(["--eps", "--delta"])), draw(n)]
    if which == 6:
        return ["dpsgd", "--noise", draw(n), "--sample-rate", draw(n), "--steps", draw(counts), "--delta", draw(n)]
    if which == 7:
        return ["prdp", "convert", "--eps", draw(n), "--delta", draw(n), "--eps-hat", draw(n)]
    if which == 8:
        return ["identify", draw(specs())]
    if which == 9:
        return ["measure", draw(specs()), "--width", draw(n)]
    if which == 10:
        return ["gdp", "from-pure-dp", "--eps", draw(n)]
    if which == 11:
        return ["tradeoff", draw(specs()), "--alpha", draw(n)]
    if which == 12:
        return ["plot", draw(st.sampled_from(["gdpt", "profile", "tradeoff"])), draw(specs()),
                "-o", str(_FILES / draw(st.sampled_from(["p.png", "p.svg", "p.txt", "", "no/such/dir/p.png"]))),
                "--eps-max", draw(n), "--points", draw(counts)] + draw(st.sampled_from([[], ["--json"], ["--log"]]))
    if which == 13:
        return ["calibrate", draw(specs()), "--param", draw(st.sampled_from(["sigma", "scale", "rate", "x"])),
                "--eps", draw(n), "--delta", draw(n)]
    if which == 14:
        return ["prdp", "counterexample", "--eps", draw(n), "--delta", draw(n), "--eps-hat", draw(n)]
    if which == 15:
        return ["prdp", "check", "--eps", draw(n), "--delta", draw(n), draw(files(".json"))]
    if which == 16:
        return ["verify", draw(files(".json"))] + draw(st.sampled_from([[], ["--kernel", "mpmath"]]))
    if which == 17:
        return ["audit", draw(files(".toml"))] + draw(st.sampled_from([[], ["--certificates", str(_FILES / "certs")]]))
    if which == 18:
        return ["sweep", draw(files(".toml")), "--out", str(_FILES / "sweep.jsonl")]
    if which == 19:
        return ["gdp", "table", "--eps", draw(n), "--delta", f"{draw(n)},{draw(n)}"]
    return [draw(st.sampled_from(["mechanisms", "proofs", "demo", "bench", "nonsense"])), draw(st.sampled_from(["", "--json", "x", "--budget", "--digits"])), draw(n)]


SECONDS = 20



_HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=_HEALTH)
@given(argv=argvs())
def test_every_subcommand_ends_cleanly(argv, capsys):
    """The default run is derandomized (the same 200 cases in every CI run);
    ``-m slow`` explores fresh random cases."""
    _drive(argv, capsys)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=_HEALTH)
@given(argv=argvs())
def test_every_subcommand_ends_cleanly_random(argv, capsys):
    _drive(argv, capsys, SECONDS)


def _drive(argv: list[str], capsys, limit: float | None = None) -> None:
    """Run the CLI under a budget of SECONDS/2: it ends cleanly (exit 0, 1 or 2, no
    traceback).  The wall-clock check (``limit``) only runs under -m slow: on a loaded
    machine a case may legitimately take longer than its budget says."""
    capsys.readouterr()  # the fixture is shared by the examples: start clean
    start = time.monotonic()
    with budget(SECONDS / 2):
        try:
            rc = main(argv)
        except SystemExit as stop:  # argparse's usage errors: exit 2 with its message
            rc = stop.code
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert rc in (0, 1, 2), (argv, rc)
    assert "Traceback" not in err
    assert limit is None or elapsed < limit, (argv, elapsed)
