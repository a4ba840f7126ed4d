"""Certificates: a JSON format for certified DP claims, a writer, and an
independent checker (:mod:`certdp.certificates.checker`) that re-derives every
inequality using only the trusted kernel.  Format: docs/certificates.md."""

from certdp.certificates.checker import CheckResult, check, load, verify
from certdp.certificates.schema import FORMAT, VERSION, MalformedCertificate

__all__ = ["CheckResult", "check", "load", "verify", "FORMAT", "VERSION", "MalformedCertificate"]
