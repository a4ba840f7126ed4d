"""Without the `interop` extra: certdp.interop imports, converts duck-typed events
(recognised by class name, as dp_accounting's), and says clearly what is missing.
Runs in a subprocess in which ``import dp_accounting`` fails, so it runs (and
must pass) whether or not the extra is installed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys
    sys.modules["dp_accounting"] = None  # `import dp_accounting` raises ImportError
    from dataclasses import dataclass
    from fractions import Fraction
    from certdp.errors import InputError
    from certdp.interop import opacus
    from certdp.interop.dp_accounting import CertifiedAccountant, UnsupportedEventError, event_to_spec, event_to_specs

    @dataclass
    class GaussianDpEvent:
        noise_multiplier: float

    @dataclass
    class PoissonSampledDpEvent:
        sampling_probability: float
        event: object

    @dataclass
    class SelfComposedDpEvent:
        event: object
        count: int

    @dataclass
    class TreeAggregationDpEvent:
        noise_multiplier: float

    ev = SelfComposedDpEvent(PoissonSampledDpEvent(0.25, GaussianDpEvent(1.5)), 10)
    assert event_to_spec(ev) == "compose(subsample(gaussian(sigma=3/2), rate=1/4), k=10)", event_to_spec(ev)
    assert issubclass(UnsupportedEventError, InputError)
    try:
        event_to_specs(TreeAggregationDpEvent(1.0))
    except UnsupportedEventError as err:
        assert "TreeAggregationDpEvent is not supported" in str(err)
    else:
        raise AssertionError("unsupported event accepted")
    try:
        CertifiedAccountant()
    except InputError as err:
        assert "pip install 'certdp[interop]'" in str(err), err
    else:
        raise AssertionError("CertifiedAccountant without dp_accounting")
    assert "torch" not in sys.modules and sys.modules["dp_accounting"] is None
    print("ok")
""")


def test_interop_without_dp_accounting():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
