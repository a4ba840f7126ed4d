"""certdp plot tradeoff: the certified band of f against f_μ, rendered to a file."""

from __future__ import annotations

import pytest

from certdp.cli import main
from required import required


@pytest.mark.parametrize("spec", ["compose(pure_dp(eps=1/5), k=20)", "gaussian(sigma=2)",
                                  'compose(profile("Max(1 - exp(eps/2 - 1), 0)"), k=2)'])
def test_plot_tradeoff_renders_a_png(spec, tmp_path, capsys, monkeypatch):
    required("matplotlib")
    import matplotlib.axes

    bands = []
    real = matplotlib.axes.Axes.fill_between

    def spy(self, x, lo, hi, *a, **k):  # record every band drawn
        bands.append((list(x), list(lo), list(hi), k.get("label", "")))
        return real(self, x, lo, hi, *a, **k)

    monkeypatch.setattr(matplotlib.axes.Axes, "fill_between", spy)
    out = tmp_path / "f.png"
    assert main(["plot", "tradeoff", spec, "-o", str(out), "--points", "10"]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    mine = [b for b in bands if b[3].startswith("f of")]
    assert len(mine) == 1
    xs, lo, hi, _ = mine[0]
    assert all(-1e-12 <= a <= b <= 1 + 1e-12 for a, b in zip(lo, hi))
    assert all(b <= 1 - x + 1e-12 for x, b in zip(xs, hi))  # f(α) <= 1 − α
    assert lo[0] == pytest.approx(1.0) and hi[-1] == pytest.approx(0.0, abs=1e-12)


def test_plot_tradeoff_reference_mu(tmp_path):
    required("matplotlib")
    assert main(["plot", "tradeoff", "laplace(scale=1)", "-o", str(tmp_path / "f.svg"), "--points", "5",
                 "--mu", "1/2,1"]) == 0
    assert (tmp_path / "f.svg").read_text().startswith("<?xml")
    assert main(["plot", "tradeoff", "laplace(scale=1)", "-o", str(tmp_path / "f.txt")]) == 2

def test_long_labels_are_wrapped():
    # a compose_all spec as one legend line squeezed the axes to a sliver
    from certdp.cli.plot import _wrap  # noqa: PLC0415

    text = "f of compose_all(compose(subsample(gaussian(sigma=1, sensitivity=1), rate=0.1), k=10), laplace(scale=1))"
    lines = _wrap(text).split("\n")
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines) and "".join(lines).replace(" ", "") == text.replace(" ", "")
