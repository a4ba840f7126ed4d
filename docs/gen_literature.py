"""Write docs/audits/literature.md: the audit of the built-in 'literature' corpus.

Run ``python docs/gen_literature.py`` after changing certdp/data/claims/literature.toml
(or the accountant).  tests/audit/test_literature.py fails fast while the report's
corpus hash is stale, and its slow test regenerates the whole report and compares.

Every number in the report comes from the audit (certified enclosures); the only
hand-written parts are the explanations and the list of claims certdp cannot audit yet.
"""

from __future__ import annotations

import hashlib
import pathlib
import sys
from fractions import Fraction

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "certdp" / "data" / "claims" / "literature.toml"
TARGET = ROOT / "docs" / "audits" / "literature.md"


def corpus_hash() -> str:
    """SHA-256 (first 16 hex digits) of the corpus file the report was generated from."""
    return hashlib.sha256(CORPUS.read_bytes()).hexdigest()[:16]


def _pct(lo: Fraction, hi: Fraction | None) -> str:
    """A relative-error range in percent, rounded outward to 0.1 % (hi None: unbounded above,
    the truth's enclosure reaches 0); beyond +1000 % as the ratio claimed/truth, rounded outward."""
    from math import ceil, floor

    if hi is None and lo < 0:
        return "-"  # the truth's enclosure reaches 0 and the claim lies inside it: no bound either way
    if hi is None or hi > 10:
        def ratio(x: Fraction, up: bool) -> str:
            r = 1 + x  # claimed / truth, >= 1 here
            e = len(str(int(r))) - 1
            m = (ceil if up else floor)(r * 100 / 10**e) / 100
            return f"{m:.2f}e{e}"
        return f"× ≥ {ratio(lo, False)}" if hi is None else f"× {ratio(lo, False)} … {ratio(hi, True)}"
    a, b = floor(lo * 1000) / 10, ceil(hi * 1000) / 10
    fmt = lambda x: f"{x:+.1f}"  # noqa: E731
    return f"{fmt(a)} %" if fmt(a) == fmt(b) else f"{fmt(a)} … {fmt(b)} %"


def _brief(text: str, limit: int = 70) -> str:
    """The first clause of a free-text field, cut at a word boundary (table cells stay short)."""
    text = text.split(";")[0].strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"


def _rel(claimed: Fraction, lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction | None]:
    """(claimed − truth)/truth over truth ∈ [lo, hi]: decreasing in the truth (None: unbounded, lo = 0)."""
    return (claimed - hi) / hi, (None if lo <= 0 else (claimed - lo) / lo)


def _short(c) -> str:
    cit = c.citation
    authors = cit.get("authors", "")
    first = authors.split(",")[0].split(" (")[0]
    many = "," in authors.split(" (")[0]
    who = (first.split()[-1] + (" et al." if authors.count(",") > 1 else (" & " + authors.split(",")[1].split()[-1] if many else ""))
           if not any(w in first.lower() for w in ("authors", "team")) else first)  # a collective author as written
    return f"{who} {cit.get('year', '')}".strip()


def audit_rows():
    """[(claim, verdict, eps_enclosure_or_None)] for the corpus, in file order."""
    from certdp.analyses import dispatch
    from certdp.audit import audit_claim, load_claims
    from certdp.mechanisms.spec import parse_spec

    rows = []
    for c in load_claims(str(CORPUS)):
        v = audit_claim(c, want_certificate=True)
        eps = None
        if c.kind == "dp" and v.verdict in ("CONFIRMED", "REFUTED") and c.shuffled is not None:
            from certdp.audit.shuffled import shuffled_eps  # noqa: PLC0415

            eps = shuffled_eps(c)  # [certified lower bound, no-amplification upper bound] at the claimed δ
        elif c.kind == "dp" and v.verdict in ("CONFIRMED", "REFUTED"):
            eps = dispatch.eps_of(parse_spec(c.mechanism), c.delta).enclosure  # certified ε at the claimed δ
        elif c.kind == "value" and c.quantity == "eps":
            eps = v.enclosure
        rows.append((c, v, eps))
    return rows


def classify(c, v, eps):
    """(claimed number as text, certified truth as text, relative error text, class) for one row.

    class: 'optimistic' (the claim promises more privacy than certified), 'loose' (a valid
    guarantee more than its printed rounding above the truth), 'tight' (the truth is inside what
    the printed digits stand for), or '-' (undecided / not a privacy bound)."""
    from certdp.numerics.exact import printed_interval, printed_numeral

    if c.kind == "value" and c.quantity == "mu_gdp":
        claimed, _ = printed_numeral(c.reported)
        enc = v.enclosure
        lo, hi = _rel(claimed, enc.lo_exact, enc.hi_exact)
        cls = "tight" if v.verdict == "CONFIRMED" else ("optimistic" if v.valid_guarantee is False else "loose")
        return c.reported, f"μ ∈ {enc}", _pct(lo, hi), cls, (lo, hi)
    if c.needs:
        shown = c.reported if c.kind == "value" else f"({_num(c.eps)}, {_num(c.delta)})-DP"
        return shown, "-", "-", "-", None
    if c.kind == "value" and c.quantity == "delta":
        claimed, _ = printed_numeral(c.reported)
        p_lo, p_hi = printed_interval(c.reported, c.rounding)
        enc = v.enclosure
        if enc is None:
            return c.reported, "-", "-", "-", None
        lo, hi = _rel(claimed, enc.lo_exact, enc.hi_exact)
        if enc.hi_exact < p_lo:
            cls = "loose"
        elif enc.lo_exact > p_hi:
            cls = "optimistic"
        else:
            cls = "tight" if v.verdict == "CONFIRMED" else "-"
        return c.reported, f"δ ∈ {enc} at ε = {_num(c.at['eps'])}", _pct(lo, hi), cls, (lo, hi)
    if c.kind == "value":
        claimed, _ = printed_numeral(c.reported)
        shown = c.reported
        p_lo, p_hi = printed_interval(c.reported, c.rounding)
    else:
        claimed = c.eps
        shown = f"({_num(c.eps)}, {_num(c.delta)})-DP"
        p_lo = p_hi = claimed
    if eps is None:
        return shown, "-", "-", "-", None
    lo, hi = _rel(claimed, eps.lo_exact, eps.hi_exact)
    if eps.hi_exact < p_lo:
        cls = "loose"
    elif eps.lo_exact > p_hi:
        cls = "optimistic"
    elif c.kind == "value" and v.verdict == "CONFIRMED":
        cls = "tight"
    else:
        cls = "-"
    at = f" at δ = {_num(c.at['delta'] if c.kind == 'value' else c.delta)}"
    return shown, f"ε ∈ {eps}{at}", _pct(lo, hi), cls, (lo, hi)


def _num(q) -> str:
    from certdp.mechanisms.spec import format_number

    return format_number(q)


NOT_YET = """\
### Published claims not transcribed yet

These families of published claims are not in the corpus: their numbers could not be
transcribed precisely from the source in this round (no number is listed here until it is).

| claim family | source | what is missing |
|---|---|---|
| zCDP budgets of the later 2020 Census releases | US Census Bureau, DHC, Detailed DHC-A/B and S-DHC production code releases (GitHub uscensusbureau) | a stated total ρ with its (ε, δ): those releases give per-query allocations only (the redistricting data's certificates state both and are in the corpus) |
| DP-FTRL on StackOverflow / EMNIST | Kairouz et al. 2021 (ICML) | the (ε, δ) of each run (the released code prints none); tree aggregation (the `needs` of the Gboard claims above) |
| further Gboard models | Xu et al. 2023 (ACL industry track), Google Research blog 2024 (ε from 0.994 to 13.69 at δ = 1e-10) | per-model ρ and DP-FTRL parameters (the three MF-DP-FTRL models whose ρ and ε the google-research/federated README and colab state are in the corpus) |
| the ε = 2 line of Abadi et al. 2016's code, 'implemented' reading | `abadi2016-code-mnist-lot10-eps2-*` | left out for cost: about 100 s of PLD accounting for that one claim (the 'accounted' reading of the same line is audited) |
| further DP-SGD papers | Papernot et al. 2021 (AAAI, tempered sigmoids), Yu et al. 2022 (ICLR), Li et al. 2022 (ICLR), Kurakin et al. 2022, Dörmann et al. 2021, Dong, Roth & Su 2022 (JRSS-B) | the noise multipliers (several calibrate σ to a target ε and never print it; Kurakin et al.'s README states only ε ~10 at δ 1e-6, and its accountant's noise multiplier, dp_sigma · √(GPUs · grad_acc_steps), depends on the GPU count and is irrational) |
"""


def _pending(rows) -> list[str]:
    """The claims kept in the corpus with `needs`: what each needs, with the mechanism as published."""
    pend = [(c, v) for c, v, _ in rows if c.needs]
    if not pend:
        return []
    from certdp.mechanisms.spec import format_number

    def param(x):
        return format_number(x) if isinstance(x, Fraction) else str(x)

    out = ["## Not yet auditable (in the corpus, INCONCLUSIVE)", "",
           f"{len(pend)} claims describe a mechanism certdp cannot name yet: each gives the mechanism as published "
           "(`event`) and the missing capability (`needs`); its verdict is INCONCLUSIVE naming that capability. "
           "Replacing `event`/`needs` by a spec, once certdp has the capability, audits the claim.", "",
           "| claim | claimed | mechanism as published | needs |", "|---|---|---|---|"]
    for c, v in pend:
        shown = c.reported if c.kind == "value" else f"({_num(c.eps)}, {_num(c.delta)})-DP"
        ev = c.event["type"] + "(" + ", ".join(f"{k}={param(x)}" for k, x in c.event.items() if k != "type") + ")"
        out.append(f"| `{c.id}` | {shown} | `{ev}` | {c.needs} |")
    return out + [""]


def render(rows=None) -> str:
    from certdp.numerics.exact import printed_numeral  # noqa: F401  (import check: fail early)

    rows = audit_rows() if rows is None else rows
    out = ["# The literature audit",
           "",
           f"Generated by `python docs/gen_literature.py` from `certdp/data/claims/literature.toml` "
           f"(corpus sha256 {corpus_hash()}); do not edit by hand. Reproduce the verdicts with "
           "`certdp audit --builtin literature` and write the certificates with "
           "`certdp audit --builtin literature --certificates DIR`; `certdp verify DIR/FILE` re-checks one.",
           "",
           "Each row is one published number or guarantee. *Claimed* is the number as printed (a value "
           "claim: the ε, or the δ at a fixed ε, an accountant printed; a guarantee: the (ε, δ) the authors "
           "state). *Certified* is certdp's enclosure of the true ε of the mechanism as the note in the corpus "
           "reads it (Poisson subsampling, add/remove neighbours, unless the note says otherwise: sampling without "
           "replacement under replace-one neighbours, or a stated ρ-zCDP guarantee, whose specs are upper bounds only), at the claimed δ (for a printed δ: the true "
           "δ at that ε). *Rel. error* is (claimed − truth)/truth over the enclosure, beyond +1000 % the ratio "
           "claimed/truth (×). *Class*: **optimistic** — the claim promises more privacy than the mechanism "
           "has (a broken promise); **loose** — a valid guarantee above the truth by more than its printed "
           "rounding; **tight** — the truth lies in what the printed digits stand for. A value claim is "
           "REFUTED when the truth is outside the printed digits, in either direction: read the class for "
           "which. The corpus records each step-count or sampling reading of an ambiguous setting as its own "
           "row (suffixes `-floor`/`-ceil`/`-loop`/`-calibrated`/`-executed`; `-shuffled`: the "
           "shuffled-batch reading of a Poisson-accounted claim, whose certified truth is the interval from certdp's "
           "shuffled lower bound (an explicit pair of datasets) to the no-amplification upper bound (√E/σ)-GDP: a "
           "claimed ε below the lower bound is REFUTED with a `not_dp_shuffled` certificate, one inside the interval "
           "stays INCONCLUSIVE; a shuffled reading whose batch does not divide the dataset is listed under "
           "*Not yet auditable*).",
           "",
           "| claim | source | claimed | accountant used | certified | verdict | rel. error | class | certificate |",
           "|---|---|---|---|---|---|---|---|---|"]
    counts: dict[str, int] = {}
    classes: dict[str, list] = {"optimistic": [], "loose": [], "tight": [], "-": []}
    certs = 0
    certified: dict[str, str] = {}
    for c, v, eps in rows:
        shown, truth, rel, cls, bounds = classify(c, v, eps)
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
        classes[cls].append((c, shown, truth, rel, bounds))
        certs += v.certificate is not None
        if v.certificate is not None:
            certified[c.id] = v.detail.split(";")[0]
        where = c.citation.get("where", "")
        src = _short(c) + (f", {_brief(where.split(':')[0], 60)}" if where else "")
        cert = "yes" if v.certificate is not None else ("no" if v.verdict in ("CONFIRMED", "REFUTED") else "-")
        out.append(f"| `{c.id}` | {src} | {shown} | {_brief(c.accountant, 60)} | {truth} | {v.verdict} | "
                   f"{rel} | {cls} | {cert} |")
    n = len(rows)
    sources = len({c.citation.get("title") for c, _, _ in rows})
    pending = sum(1 for c, _, _ in rows if c.needs)
    undecided = [(c, v) for c, v, _ in rows if v.verdict not in ("CONFIRMED", "REFUTED") and not c.needs]
    uncert = sorted({(v.no_certificate or "no reason given").split(" (")[0] for c, v, _ in rows
                     if v.verdict in ("CONFIRMED", "REFUTED") and v.certificate is None})
    out += ["", "## Summary", "",
            f"{n} claims from {sources} sources: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) + ".",
            f"By class: {len(classes['optimistic'])} optimistic, {len(classes['loose'])} loose, "
            f"{len(classes['tight'])} tight" + (f", {len(classes['-'])} unclassified" if classes['-'] else "") + ".",
            f"INCONCLUSIVE: {pending} claims on mechanisms certdp cannot name yet (*Not yet auditable* below)"
            + "".join(f"; `{c.id}`: {v.detail}" for c, v in undecided) + ".",
            f"{certs} of {sum(counts.get(k, 0) for k in ('CONFIRMED', 'REFUTED'))} decided claims have a certificate "
            "(`dp` guarantees, confirmed or refuted by a witness ε at which δ exceeds the claim, μ conversions, "
            "and value claims on closed forms and accountant answers)." + (
                " The others are value claims (a printed ε, or δ at a fixed ε) on accountant answers; the writer "
                "gives the reason: " + "; ".join(f"\"{r}\"" for r in uncert) + ". Their verdicts are certified in "
                "the audit but not yet independently re-checked." if uncert else ""),
            ""]
    def span(rows_):
        lo = min(b[0] for *_, b in rows_)
        his = [b[1] for *_, b in rows_]
        return _pct(lo, None if None in his else max(his))

    def on_eps(rows_):
        return [r for r in rows_ if not (r[0].kind == "value" and r[0].quantity == "delta")]

    def on_delta(rows_):
        return [r for r in rows_ if r[0].kind == "value" and r[0].quantity == "delta"]

    if classes["optimistic"]:
        from certdp.cli.audit import certificate_filename

        out += ["### Optimistic claims (the published number promises more privacy than certified)", "",
                f"{len(classes['optimistic'])} claims, understating ε by {span(classes['optimistic'])} "
                "(relative error; negative = the promise is broken). Where a certificate exists, "
                "`certdp audit --builtin literature --certificates DIR` writes it and the command shown "
                "re-checks it independently:", ""]
        for c, shown, truth, rel, _ in classes["optimistic"]:
            cert = certified.get(c.id)
            how = (f" Certificate: `certdp verify DIR/{certificate_filename(c.id)}` ({cert})." if cert
                   else " No certificate yet (a printed-ε value claim on an accountant answer).")
            out.append(f"- `{c.id}` ({_short(c)}, {c.citation.get('venue', '').split(';')[0]}"
                       f"{', ' + c.citation['where'] if 'where' in c.citation else ''}): claimed {shown}, "
                       f"certified {truth} ({rel}); accountant: {c.accountant}.{how}")
        out.append("")
    if classes["loose"]:
        loose = sorted(on_eps(classes["loose"]), key=lambda r: r[4][0])
        loose_d = sorted(on_delta(classes["loose"]), key=lambda r: r[4][0])
        out += ["### Loose claims (valid guarantees above the certified truth)", ""]
        if loose:
            out += [f"{len(loose)} claims on ε, overstating it by {span(loose)}. Smallest to largest:", ""]
            out += [f"- `{c.id}`: {shown} vs {truth} ({rel})" for c, shown, truth, rel, _ in loose]
            out.append("")
        if loose_d:
            lo_d = min(b[0] for *_, b in loose_d)
            hi_d = max((b[1] for *_, b in loose_d if b[1] is not None), default=None)
            out += [f"{len(loose_d)} claims on δ at a fixed ε, overstating it by a factor "
                    f"{_pct(lo_d, hi_d)[2:]} (claimed δ / certified δ):", ""]
            out += [f"- `{c.id}`: δ = {shown} vs {truth} ({rel})" for c, shown, truth, rel, _ in loose_d]
            out.append("")
    out += _pending(rows)
    out.append(NOT_YET)
    return "\n".join(out)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {TARGET}\n")
