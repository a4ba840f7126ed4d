"""Running ``coqc`` on a translated certificate (``certdp verify FILE --kernel coq``).

The library ``proofs/coq/CertDP.v`` and ``Refine.v`` is compiled once per (source, coqc version)
into the user's cache directory; each certificate's script is compiled in a
fresh temporary directory with a timeout from ``--budget``.  VALID needs coqc to
accept the script *and* ``Print Assumptions certdp_claim`` to list no axiom
beyond Coq's classical reals (:data:`ALLOWED_AXIOMS`) and the library's
Gaussian integral — an ``Admitted`` lemma or a new axiom is never passed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Mapping

from certdp.verifier.errors import BudgetExceeded, InputError, remaining_budget
from certdp.verifier.coq.terms import Unsupported
from certdp.verifier.coq.translate import ClaimRefused, Script, translate

PACKAGES = "coq libcoq-interval libcoq-coquelicot"
MISSING = (f"the Coq kernel needs coqc with the Interval and Coquelicot libraries "
           f"(Debian/Ubuntu: apt-get install {PACKAGES})")
#: Axioms a VALID claim may rest on (exactly those the library's proofs use): Coq's
#: axiomatisation of the reals (classical Dedekind reals, functional extensionality),
#: excluded middle, and the Gaussian integral of the library.
ALLOWED_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_forall_dec", "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",  # excluded middle (Coquelicot uses it)
    "CertDP.CertDP.gaussian_integral", "CertDP.gaussian_integral",
    "gaussian_integral",  # Print Assumptions prints the library's axiom by its short name (see FORBIDDEN)
})
#: Prefixes of the specification axioms of Coq's primitive machine integers and floats
#: (implemented by Coq's kernel; the Interval library computes with them).
PRIMITIVE_PREFIXES = ("PrimInt63.", "Uint63.", "Sint63.", "PrimFloat.", "FloatAxioms.", "FloatOps.")
#: The library's files, compiled in this order (Refine.v: the noise refinement's cell argument).
LIBRARY = ("CertDP.v", "Refine.v", "Mono.v")
#: Default coqc time limit (seconds) when no --budget is active.
DEFAULT_TIMEOUT = 600.0
#: Vernacular a generated script never contains (so no axiom of the script can shadow the library's).
FORBIDDEN = ("Axiom", "Admitted", "Parameter", "Hypothesis", "Variable", "Conjecture", "admit")
NUMERIC_FAILURES = ("Numerical evaluation failed", "No applicable tactic", "Cannot find witness", "Tactic failure")


class CoqMissing(InputError):
    """coqc or its libraries are not installed (exit 2)."""


def library_source() -> Path:
    """``proofs/coq/`` beside the ``certdp`` package (repository or site-packages)."""
    here = Path(__file__).resolve().parents[3] / "proofs" / "coq"
    if not (here / "CertDP.v").is_file():
        raise CoqMissing(f"the Coq library proofs/coq/CertDP.v is not installed beside certdp ({here})")
    return here


def coqc() -> str:
    exe = shutil.which("coqc")
    if exe is None:
        raise CoqMissing(MISSING)
    return exe


def _timeout() -> float:
    left = remaining_budget()
    return DEFAULT_TIMEOUT if left is None else left[0]


def _run(args: list[str], cwd: str, what: str) -> subprocess.CompletedProcess:
    timeout = _timeout()
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        left = remaining_budget()
        option = left[1] if left is not None else "--budget"
        raise BudgetExceeded(f"{what} needs more than the budget of {timeout:.0f} s (raise it with {option} SECONDS)") from None


def library() -> Path:
    """The directory holding the compiled library (``-Q DIR CertDP``), built on first use."""
    exe = coqc()
    srcs = [library_source() / name for name in LIBRARY]
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    key = hashlib.sha256(b"".join(p.read_bytes() for p in srcs) + version.encode()).hexdigest()[:16]
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "certdp" / "coq"
    target = root / key
    if all((target / name).with_suffix(".vo").is_file() for name in LIBRARY):
        return target
    root.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    try:
        for src in srcs:
            shutil.copy(src, build / src.name)
        for src in srcs:
            res = _run([exe, "-q", "-Q", ".", "CertDP", src.name], str(build), "compiling the Coq library")
            if res.returncode != 0:
                break
        if res.returncode != 0:
            err = res.stderr + res.stdout
            if "Cannot find" in err or "Unable to locate library" in err:
                raise CoqMissing(MISSING)
            raise CoqMissing(f"the Coq library proofs/coq/{src.name} does not compile with this coqc: "
                             f"{_first_error(err)}")
        try:
            build.rename(target)
        except OSError:  # another process built it first
            pass
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)
    return target


def _first_error(text: str) -> str:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Error"):
            rest = [line[len("Error:"):].strip()] + [ln.strip() for ln in lines[i + 1:i + 4]]
            return " ".join(r for r in rest if r)[:300]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "coqc failed"


def _error_step(script: Script, text: str) -> str:
    m = re.search(r'line (\d+), characters [^\n]*:\s*\nError', text)
    err = _first_error(text[m.start():] if m else text)
    if m is not None:
        step = script.step_at(int(m.group(1)))
        if step is not None:
            return f"{step} (coqc: {err})"
    return f"coqc rejected the script: {err}"


def axioms(output: str) -> list[str]:
    """The axiom names listed by ``Print Assumptions`` (empty when closed)."""
    if "Closed under the global context" in output:
        return []
    out, inside = [], False
    for line in output.splitlines():
        if line.startswith("Axioms:"):
            inside = True
            continue
        if inside and line and not line[0].isspace():
            m = re.match(r"([\w.']+)", line)  # every unindented line names one axiom
            out.append(m.group(1) if m else line)
    return out


def check(doc: Mapping[str, Any], keep: str | None = None) -> tuple[bool, str | None]:
    """(valid, failing step) of a parsed certificate under coqc; ``keep``: write the
    script there.  Raises MalformedCertificate / Unsupported / CoqMissing (exit 2)."""
    try:
        script = translate(doc)
    except ClaimRefused as err:
        return False, str(err)
    exe = coqc()
    lib = library()
    for boost in (1.0, 2.0):  # a numerical failure is retried once at twice the bits
        if boost != 1.0:
            script = translate(doc, boost)
        if any(re.search(rf"\b{w}\b", script.text) for w in FORBIDDEN):  # pragma: no cover - a translation bug
            return False, "the generated script states an axiom or admits a goal"
        if keep is not None:
            Path(keep).write_text(script.text, encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="certdp-coq-") as tmp:
            (Path(tmp) / "certificate.v").write_text(script.text, encoding="utf-8")
            res = _run([exe, "-q", "-Q", str(lib), "CertDP", "certificate.v"], tmp, "coqc on the certificate")
        text = res.stdout + "\n" + res.stderr
        if res.returncode == 0:
            bad = [a for a in axioms(res.stdout)
                   if a not in ALLOWED_AXIOMS and not a.startswith(PRIMITIVE_PREFIXES)]
            if bad:
                return False, f"the proof rests on axioms outside the trusted list: {', '.join(bad)}"
            return True, None
        if not any(f in text for f in NUMERIC_FAILURES):
            break
    return False, _error_step(script, text)


__all__ = ["check", "CoqMissing", "Unsupported", "library", "axioms"]


def verify(path: str, coq_out: str | None = None) -> Any:
    """``certdp verify FILE --kernel coq``: load the certificate with the checker's own
    reader and check it under coqc (a :class:`certdp.verifier.checker.CheckResult`)."""
    from certdp.verifier.checker import CheckResult, claim_summary, load  # noqa: PLC0415
    from certdp.verifier.facts import assumptions_of  # noqa: PLC0415
    from certdp.verifier.schema import MalformedCertificate  # noqa: PLC0415

    doc = load(path)
    try:
        ok, step = check(doc, keep=coq_out)
    except (TypeError, KeyError, AttributeError, IndexError) as err:
        raise MalformedCertificate(f"malformed certificate: a field has the wrong type or shape "
                                   f"({type(err).__name__}: {err})") from None
    return CheckResult(bool(ok), claim_summary(doc), None if ok else step, assumptions_of(doc) if ok else ())
