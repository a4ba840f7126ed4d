"""certdp — certified differential-privacy analysis.

Every number certdp reports is an :class:`~certdp.numerics.Enclosure`: exact
bounds that provably contain the true value (computed in python-flint ball
arithmetic).  See DESIGN.md in the shared folder and the README.
"""

from certdp.errors import CertdpError, InputError, PrecisionError
from certdp.numerics import (
    Enclosure,
    Phi,
    Phi_inv,
    delta_mu,
    eps_from_mu_delta,
    log_Phi,
    mills_ratio,
    mu_from_eps_delta,
    mu_from_pure_dp,
    tradeoff_mu,
)

from certdp.meta import VERSION as __version__  # noqa: E402  (read from package metadata)


def verify(path: str):  # noqa: ANN201 - returns certdp.certificates.CheckResult
    """Check the certificate file at ``path`` with the independent checker
    (:func:`certdp.certificates.verify`; imported lazily to keep ``import certdp`` light)."""
    from certdp.certificates import verify as _verify  # noqa: PLC0415

    return _verify(path)

__all__ = [
    "__version__",
    "CertdpError",
    "InputError",
    "PrecisionError",
    "Enclosure",
    "Phi",
    "Phi_inv",
    "log_Phi",
    "mills_ratio",
    "delta_mu",
    "mu_from_eps_delta",
    "eps_from_mu_delta",
    "tradeoff_mu",
    "mu_from_pure_dp",
    "verify",
]
