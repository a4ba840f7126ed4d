"""Certificates for the ADP-but-not-PrDP counterexamples of Guingona et al. 2023.

Kind ``adp_not_prdp``: "the finite mechanism in ``mechanism`` is
``(eps, delta)``-ADP and is not ``(eps_hat, delta_hat)``-PrDP".  The shared
envelope (see :mod:`certdp.certificates`)::

    {"format": "certdp-certificate", "version": 1,
     "claim": {"kind": "adp_not_prdp", "eps": "1/2", "delta": "1/100",
               "eps_hat": "1", "delta_hat": "1/100"
                 | {"penalty": "<g(x), safe-parser syntax>", "x": "<δ' exact>"}},
     "mechanism": {"type": "diagonal", "n": 433, "p": "5/437", "q": "1/437"}
                | {"type": "table", "rows": [["1/2", "1/2"], ...], "neighbours": [[0, 1], ...]},
     "evidence": {"prdp_witness": {"pair": [0, 1], "outputs": [0]},
                  "construction": "...", "reported": {... informational margins ...}},
     "precision": 128, "producer": "certdp 0.1.0"}

The independent checker is :mod:`certdp.verifier.check_prdp`; it
re-derives every inequality from the table and ignores ``reported``.
"""

from __future__ import annotations

import json
from pathlib import Path

import sympy

from certdp.errors import InputError
from certdp.analyses.prdp.constructions import Counterexample
from certdp.analyses.prdp.exactreal import format_exact, is_rational

KIND = "adp_not_prdp"


def counterexample_certificate(cx: Counterexample, *, precision: int = 128) -> dict:
    """The certificate document of a certified counterexample."""
    from certdp.meta import VERSION as __version__  # noqa: PLC0415

    if not cx.valid:
        raise InputError("refusing to write a certificate for a construction that did not certify")
    if cx.penalty is None:
        if not is_rational(cx.delta_hat):
            raise InputError("delta_hat must be rational or given by a penalty expression")
        dh: object = format_exact(cx.delta_hat)
    else:
        dh = {"penalty": sympy.sstr(cx.penalty), "x": format_exact(cx.delta)}
    w = cx.prdp.witness
    return {
        "format": "certdp-certificate",
        "version": 1,
        "claim": {
            "kind": KIND,
            "eps": format_exact(cx.eps),
            "delta": format_exact(cx.delta),
            "eps_hat": format_exact(cx.eps_hat),
            "delta_hat": dh,
        },
        "mechanism": cx.mechanism.to_json(),
        "evidence": {
            "prdp_witness": {"pair": list(w.pair), "outputs": list(w.outputs)},
            "construction": cx.theorem,
            "reported": cx.to_json(),
        },
        "precision": int(precision),
        "producer": f"certdp {__version__}",
    }


def write_certificate(cx: Counterexample, path: str | Path, *, precision: int = 128) -> dict:
    """Write the certificate of ``cx`` to ``path`` (JSON) and return it."""
    doc = counterexample_certificate(cx, precision=precision)
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")
    return doc
