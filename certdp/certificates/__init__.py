"""Certificates: a JSON format for certified DP claims, a writer, and an
independent checker (:mod:`certdp.verifier.checker`) that re-derives every
inequality using only the trusted kernel.  Format: docs/certificates.md."""

from certdp.verifier.checker import CheckResult, check, load, verify
from certdp.verifier.schema import FORMAT, VERSION, MalformedCertificate

__all__ = ["CheckResult", "check", "load", "verify", "FORMAT", "VERSION", "MalformedCertificate"]
