"""Auditing published privacy claims (claims files → certified verdicts)."""

from certdp.audit.claims import Claim, load_claims, parse_claims
from certdp.audit.verdicts import Verdict, audit_claim, printed_interval

__all__ = ["Claim", "Verdict", "audit_claim", "load_claims", "parse_claims", "printed_interval", "builtin_path"]


def builtin_path(name: str) -> str:
    """Path of a bundled claims file (``certdp/data/claims/NAME.toml``)."""
    from importlib import resources

    from certdp.errors import InputError

    ref = resources.files("certdp") / "data" / "claims" / f"{name}.toml"
    if not ref.is_file():
        raise InputError(f"no built-in claims file {name!r}")
    return str(ref)
