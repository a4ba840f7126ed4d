"""Claims files: TOML documents listing published privacy claims.

Each ``[[claim]]`` table has ``id`` (unique), optional ``source`` (free text),
``mechanism`` (spec grammar; optional only for ``quantity = "mu_gdp"``),
``kind`` and the kind's fields:

=========  ===================================================================
kind       fields
=========  ===================================================================
dp         eps, delta — the mechanism satisfies (ε, δ)-DP
not_dp     eps, delta — it does not
gdp        mu, optional residual — μ-GDP (except residual η)
prdp       eps, delta — (ε, δ)-probabilistic DP (Guingona et al. 2023 Def 2.2)
not_prdp   eps, delta
value      quantity, at (table of the other parameters), reported (the
           decimal numeral as printed: digits, optional sign, point and
           exponent; a fraction such as "1/2" is refused), optional rounding (nearest | up | down |
           truncate; default nearest).  Quantities: eps (at delta), delta
           (at eps), mu, mu_gdp (at eps, delta; no mechanism), switch_eps /
           switch_delta (the switch point of a trade-off mechanism's refined
           profile, Liu et al. 2022 App. B; at = {}), refined_sigma / refined_eps0 /
           refined_delta0 (Liu et al. 2022 App. C noise refinement of ``formula``
           σ = f(eps, delta) for the target at = {eps, delta}; no mechanism).
           ``at`` values may be closed expressions such as "log(2)", "exp(-2)"
=========  ===================================================================

``quantity = "mu_gdp"`` is the μ of the Gaussian mechanism that is exactly
(ε, δ)-DP (Gomez et al. 2025 Table 3); it needs ``at = {eps, delta}`` and no mechanism.
Optional on every kind: ``citation`` (a table of strings: authors, title, venue, year,
where, url) and ``accountant`` (free text: the method the source used), for corpora of
published claims such as the built-in 'literature'.

A claim about a mechanism certdp cannot express yet (tree aggregation, shuffling, ...)
gives no ``mechanism`` but ``event`` (a table: ``type``, a name such as
"dpftrl_tree", and the published parameters as strings or integers; decimal numerals
are read as exact numbers) and ``needs`` (the missing capability, free text).  Such a
claim is parsed and kept, and its verdict is INCONCLUSIVE naming what is missing; a
``mechanism`` that does not parse still refuses the file.

One event type is audited without a spec: ``type = "dpsgd_shuffled_fixed_batch"`` with
``noise_multiplier``, ``batch``, ``n`` and ``epochs`` (optional ``steps_per_epoch`` = n / batch,
``relation``) and no ``needs`` — DP-SGD on shuffled fixed-size batches, parsed into a
:class:`ShuffledRun` and audited with the certified shuffled lower bound and the
no-amplification upper bound (:mod:`certdp.audit.shuffled`); kinds ``dp``, ``not_dp`` and
``value`` of ``eps``.  The batch must divide the dataset (otherwise keep ``needs``).
Numbers are exact decimal strings (or TOML integers).  A malformed file raises
:class:`InputError` naming the claim id and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

from certdp.errors import InputError
from certdp.files import parse_toml, read_text
from certdp.analyses.dispatch import check_residual
from certdp.numerics.exact import exact, printed_numeral

KINDS = ("dp", "not_dp", "gdp", "prdp", "not_prdp", "value")
QUANTITIES = ("eps", "delta", "mu", "mu_gdp", "switch_eps", "switch_delta",
              "refined_sigma", "refined_eps0", "refined_delta0")
#: Quantities that take no mechanism (they are about a formula or a conversion).
MECHANISM_FREE = ("mu_gdp", "refined_sigma", "refined_eps0", "refined_delta0")
ROUNDINGS = ("nearest", "up", "down", "truncate")
_FIELDS = {
    "dp": {"eps", "delta"},
    "not_dp": {"eps", "delta"},
    "prdp": {"eps", "delta"},
    "not_prdp": {"eps", "delta"},
    "gdp": {"mu", "residual"},
    "value": {"quantity", "at", "reported", "rounding", "formula"},
}
_COMMON = {"id", "source", "mechanism", "kind", "note", "citation", "accountant", "event", "needs"}
#: Keys of the optional ``citation`` table (all strings): who published the claim and where in the work.
CITATION_KEYS = ("authors", "title", "venue", "year", "where", "url")
_REQUIRED = {"dp": {"eps", "delta"}, "not_dp": {"eps", "delta"}, "prdp": {"eps", "delta"},
             "not_prdp": {"eps", "delta"}, "gdp": {"mu"}, "value": {"quantity", "at", "reported"}}
_AT_NEEDS = {"eps": {"delta"}, "delta": {"eps"}, "mu": set(), "mu_gdp": {"eps", "delta"},
             "switch_eps": set(), "switch_delta": set(), "refined_sigma": {"eps", "delta"},
             "refined_eps0": {"eps", "delta"}, "refined_delta0": {"eps", "delta"}}


@dataclass(frozen=True)
class Claim:
    """One published claim, with exact numbers."""

    id: str
    kind: str
    mechanism: str | None
    source: str = ""
    eps: Fraction | None = None
    delta: Fraction | None = None
    mu: Fraction | None = None
    residual: Fraction | None = None
    quantity: str | None = None
    at: Mapping[str, Fraction] = field(default_factory=dict)
    reported: str | None = None
    rounding: str = "nearest"
    note: str = ""
    formula: str | None = None
    #: optional bibliographic record (keys from CITATION_KEYS), for corpora of published claims
    citation: Mapping[str, str] = field(default_factory=dict)
    #: optional: the accountant the source used for its number (free text)
    accountant: str = ""
    #: optional structured description of the mechanism as published (``type`` plus parameters;
    #: numerals as exact Fractions), for mechanisms the spec grammar cannot name yet
    event: Mapping[str, Any] = field(default_factory=dict)
    #: the capability certdp lacks to audit this claim (set: the claim has no mechanism and stays INCONCLUSIVE)
    needs: str = ""
    #: a shuffled-batches DP-SGD run audited without a spec (an ``event`` of type SHUFFLED_EVENT, no ``needs``)
    shuffled: ShuffledRun | None = None


#: The event type audited without a spec: DP-SGD with shuffled fixed-size batches.
SHUFFLED_EVENT = "dpsgd_shuffled_fixed_batch"
_SHUFFLED_KEYS = {"type", "noise_multiplier", "batch", "n", "epochs", "steps_per_epoch", "relation"}


@dataclass(frozen=True)
class ShuffledRun:
    """DP-SGD on shuffled fixed-size batches as published: each of ``epochs`` epochs is one
    pass over a fresh uniform permutation of ``n`` records cut into n / batch batches."""

    noise: Fraction
    batch: int
    n: int
    epochs: int
    relation: str = "unstated"


def _shuffled_run(event: Mapping[str, Any], cid: str) -> ShuffledRun:
    """The typed run of a ``dpsgd_shuffled_fixed_batch`` event (InputError naming the field)."""
    unknown = set(event) - _SHUFFLED_KEYS
    if unknown:
        raise InputError(f"claim {cid!r}, field 'event': unknown key(s) {', '.join(sorted(unknown))} for "
                         f"type {SHUFFLED_EVENT!r} (known: {', '.join(sorted(_SHUFFLED_KEYS - {'type'}))})")
    for k in ("noise_multiplier", "batch", "n", "epochs"):
        if not isinstance(event.get(k), Fraction):
            raise InputError(f"claim {cid!r}, field 'event.{k}': a number is required for type {SHUFFLED_EVENT!r}")
    noise = event["noise_multiplier"]
    if noise <= 0:
        raise InputError(f"claim {cid!r}, field 'event.noise_multiplier': must be > 0")
    ints = {}
    for k in ("batch", "n", "epochs"):
        v = event[k]
        if v.denominator != 1 or v < 1:
            raise InputError(f"claim {cid!r}, field 'event.{k}': expected a positive integer, got {v}")
        ints[k] = int(v)
    b, n = ints["batch"], ints["n"]
    if b > n or n % b:
        raise InputError(f"claim {cid!r}: batch {b} does not divide the dataset size {n}; the shuffled lower "
                         "bound needs n / batch equal batches, so keep this claim pending with 'needs'")
    spe = event.get("steps_per_epoch")
    if spe is not None and spe != n // b:
        raise InputError(f"claim {cid!r}, field 'event.steps_per_epoch': {spe} is not n / batch = {n // b}")
    rel = event.get("relation", "unstated")
    return ShuffledRun(noise, b, n, ints["epochs"], rel if isinstance(rel, str) else str(rel))


def _number(value: Any, cid: str, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"claim {cid!r}, field {name!r}: expected a decimal string, got {value!r}")
    try:
        return exact(str(value) if isinstance(value, int) else value, name)
    except InputError as err:
        raise InputError(f"claim {cid!r}, field {name!r}: {err}") from None


def _constant(value: Any, cid: str, name: str) -> Any:
    """An exact decimal, or a closed expression ("exp(-2)") parsed safely (no eval)."""
    if isinstance(value, str):
        try:
            return exact(value, name)
        except InputError:
            from certdp.expr.constants import as_fraction, exact_real  # noqa: PLC0415

            try:  # a finite real constant, or refused here (parse once, at the boundary)
                v = exact_real(value, name)
            except InputError as err:
                raise InputError(f"claim {cid!r}, field {name!r}: {err}") from None
            q = as_fraction(v)
            return v if q is None else q
    return _number(value, cid, name)


def _sign(v: Any, cid: str, name: str) -> int:
    """The certified sign of an exact number or closed-form constant (InputError when undecided)."""
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    from certdp.expr.constants import sign  # noqa: PLC0415

    try:
        return sign(v, f"at.{name}")
    except InputError as err:
        raise InputError(f"claim {cid!r}, field 'at.{name}': {err}") from None


def _event(value: Any, cid: str) -> dict[str, Any]:
    """The ``event`` table: a ``type`` name and parameters (numerals become exact Fractions)."""
    if not isinstance(value, Mapping):
        raise InputError(f"claim {cid!r}, field 'event': expected a table like {{ type = \"dpftrl_tree\", noise = \"7\" }}")
    kind = value.get("type")
    if not isinstance(kind, str) or not kind.strip():
        raise InputError(f"claim {cid!r}, field 'event.type': a non-empty string naming the published mechanism is required")
    out: dict[str, Any] = {"type": kind.strip()}
    for k, v in value.items():
        if k == "type":
            continue
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise InputError(f"claim {cid!r}, field 'event.{k}': expected a string or an integer, got {v!r}")
        if isinstance(v, int):
            out[k] = Fraction(v)
            continue
        try:
            out[k] = exact(v, f"event.{k}")
        except InputError:
            out[k] = v  # a word ("poisson", "add_remove"), kept as text
    return out


def parse_claim(table: Mapping[str, Any], index: int) -> Claim:
    cid = table.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise InputError(f"claim #{index + 1}: field 'id' (a non-empty string) is required")
    kind = table.get("kind")
    if kind not in KINDS:
        raise InputError(f"claim {cid!r}, field 'kind': expected one of {', '.join(KINDS)}, got {kind!r}")
    unknown = set(table) - _COMMON - _FIELDS[kind]
    if unknown:
        raise InputError(f"claim {cid!r}: unknown field(s) {', '.join(sorted(unknown))} for kind {kind!r}")
    missing = _REQUIRED[kind] - set(table)
    if missing:
        raise InputError(f"claim {cid!r}: missing field(s) {', '.join(sorted(missing))}")
    mech = table.get("mechanism")
    needs = table.get("needs")
    if needs is not None:
        if not isinstance(needs, str) or not needs.strip():
            raise InputError(f"claim {cid!r}, field 'needs': expected the missing capability as a non-empty string")
        if "event" not in table:
            raise InputError(f"claim {cid!r}: a claim with 'needs' describes its mechanism in 'event'")
        if mech is not None:
            raise InputError(f"claim {cid!r}: a claim with 'needs' has no 'mechanism' (give the spec and drop 'needs' "
                             "once certdp can audit it)")
    event = _event(table["event"], cid) if "event" in table else {}
    shuffled = None
    if event.get("type") == SHUFFLED_EVENT and needs is None:
        if mech is not None:
            raise InputError(f"claim {cid!r}: a {SHUFFLED_EVENT!r} event is the mechanism; drop 'mechanism'")
        if not (kind in ("dp", "not_dp") or (kind == "value" and table.get("quantity") == "eps")):
            raise InputError(f"claim {cid!r}: a {SHUFFLED_EVENT!r} event is audited for kinds dp, not_dp and "
                             "value of eps only")
        shuffled = _shuffled_run(event, cid)
    if mech is not None and not isinstance(mech, str):
        raise InputError(f"claim {cid!r}, field 'mechanism': expected a spec string")
    if mech is not None:
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        try:
            parse_spec(mech)  # a spec that does not parse makes the file malformed (exit 2)
        except InputError as err:
            raise InputError(f"claim {cid!r}, field 'mechanism': {err}") from None
    for text_field in ("source", "note", "accountant"):
        if text_field in table and not isinstance(table[text_field], str):
            raise InputError(f"claim {cid!r}, field {text_field!r}: expected a string")
    citation = table.get("citation", {})
    if not isinstance(citation, Mapping):
        raise InputError(f"claim {cid!r}, field 'citation': expected a table like {{ authors = \"...\", year = \"2016\" }}")
    bad_keys = set(citation) - set(CITATION_KEYS)
    if bad_keys:
        raise InputError(f"claim {cid!r}, field 'citation': unknown key(s) {', '.join(sorted(bad_keys))} "
                         f"(known: {', '.join(CITATION_KEYS)})")
    for k, v in citation.items():
        if not isinstance(v, str) or not v.strip():
            raise InputError(f"claim {cid!r}, field 'citation.{k}': expected a non-empty string")
    values: dict[str, Any] = {}
    for name in ("eps", "delta", "mu", "residual"):
        if name in table:
            values[name] = _number(table[name], cid, name)
    if kind == "value":
        q = table["quantity"]
        if q not in QUANTITIES:
            raise InputError(f"claim {cid!r}, field 'quantity': expected one of {', '.join(QUANTITIES)}, got {q!r}")
        at = table["at"]
        if not isinstance(at, Mapping):
            raise InputError(f"claim {cid!r}, field 'at': expected a table like {{ delta = \"1e-5\" }}")
        bad = set(at) - {"eps", "delta"}
        if bad or set(at) != _AT_NEEDS[q]:
            raise InputError(f"claim {cid!r}, field 'at': quantity {q!r} needs exactly {sorted(_AT_NEEDS[q])}, got {sorted(at)}")
        values["at"] = {k: _constant(v, cid, f"at.{k}") for k, v in at.items()}  # closed forms too (docs/claims.md)
        if q.startswith("refined_"):
            formula = table.get("formula")
            if not isinstance(formula, str):
                raise InputError(f"claim {cid!r}, field 'formula': quantity {q!r} needs the σ = f(eps, delta) formula as a string")
            values["formula"] = formula
        else:
            if "formula" in table:
                raise InputError(f"claim {cid!r}: field 'formula' is only for the refined_* quantities")
        rep = table["reported"]
        if not isinstance(rep, str):
            raise InputError(f"claim {cid!r}, field 'reported': expected the printed decimal as a string")
        try:  # the one rule for a printed value, shared with the certificate checker
            printed_numeral(rep.strip())
        except InputError as err:
            raise InputError(f"claim {cid!r}, field 'reported': {err}") from None
        values["reported"] = rep.strip()
        values["quantity"] = q
        r = table.get("rounding", "nearest")
        if r not in ROUNDINGS:
            raise InputError(f"claim {cid!r}, field 'rounding': expected one of {', '.join(ROUNDINGS)}, got {r!r}")
        values["rounding"] = r
        if q in MECHANISM_FREE:
            if mech is not None:
                raise InputError(f"claim {cid!r}: quantity {q!r} takes no mechanism")
        elif mech is None and needs is None and shuffled is None:
            raise InputError(f"claim {cid!r}: field 'mechanism' is required (or 'event' and 'needs')")
    elif mech is None and needs is None and shuffled is None:
        raise InputError(f"claim {cid!r}: field 'mechanism' is required (or 'event' and 'needs')")
    if "delta" in values and not 0 <= values["delta"] < 1:
        raise InputError(f"claim {cid!r}, field 'delta': must lie in [0, 1)")
    if "eps" in values and values["eps"] < 0:
        raise InputError(f"claim {cid!r}, field 'eps': must be >= 0")
    if "mu" in values and values["mu"] <= 0:
        raise InputError(f"claim {cid!r}, field 'mu': must be positive")
    if "residual" in values:
        try:
            check_residual(values["residual"])
        except InputError as err:
            raise InputError(f"claim {cid!r}, field 'residual': {err}") from None
    for k, v in values.get("at", {}).items():
        if k == "eps" and _sign(v, cid, k) < 0:
            raise InputError(f"claim {cid!r}, field 'at.eps': must be >= 0")
        if k == "delta" and (_sign(v, cid, k) < 0 or _sign(1 - v, cid, k) <= 0):
            raise InputError(f"claim {cid!r}, field 'at.delta': must lie in [0, 1)")
    return Claim(id=cid, kind=kind, mechanism=mech, source=table.get("source", ""),
                 note=table.get("note", ""), citation=dict(citation), accountant=table.get("accountant", ""),
                 event=event, needs=(needs or "").strip(), shuffled=shuffled, **values)


def parse_claims(text: str) -> list[Claim]:
    """Parse a claims document (TOML text)."""
    doc = parse_toml(text, "claims file")
    unknown = set(doc) - {"claim"}
    if unknown:
        raise InputError(f"claims file: unknown top-level key(s) {', '.join(sorted(unknown))}")
    tables = doc.get("claim")
    if not isinstance(tables, list) or not tables:
        raise InputError("claims file: no [[claim]] tables")
    for i, t in enumerate(tables):
        if not isinstance(t, dict):
            raise InputError(f"claims file: claim {i + 1} is not a [[claim]] table (got {type(t).__name__})")
    claims = [parse_claim(t, i) for i, t in enumerate(tables)]
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise InputError(f"claim {c.id!r}: duplicate id")
        seen.add(c.id)
    return claims


def load_claims(path: str) -> list[Claim]:
    return parse_claims(read_text(path, "claims file"))
