"""Progress and budgets of long work (issue 18): library loops send heartbeats
through certdp.errors.check_budget; the CLI shows them on stderr only when
asked (terminal or --progress), never on stdout, and --quiet silences them."""

from __future__ import annotations

import json

from certdp.analyses.gdpt import measure
from certdp.cli import main
from certdp.mechanisms.spec import parse_spec
from certdp.cli.display import RichReporter
from certdp.progress import reporting


def test_library_heartbeats_reach_an_installed_reporter():
    seen: list[tuple[str, int | None, int | None]] = []
    with reporting(lambda task, done, total: seen.append((task, done, total))):
        measure(parse_spec("laplace(scale=1/2)"), width="1e-4")
    assert seen and any("GDPT" in task for task, _, _ in seen)
    # outside the context nothing is reported
    n = len(seen)
    measure(parse_spec("laplace(scale=1/2)"), width="1e-4")
    assert len(seen) == n


def test_progress_goes_to_stderr_and_json_stays_clean(capsys):
    rc = main(["dpsgd", "--noise", "1", "--sample-rate", "1/100", "--steps", "1000", "--delta", "1e-5",
               "--json", "--progress"])
    out, err = capsys.readouterr()
    assert rc == 0
    assert set(json.loads(out)) >= {"eps"}  # stdout is exactly the JSON document
    assert "certdp: " in err and "PLD" in err  # plain lines on a non-terminal


def test_quiet_silences_progress(capsys):
    rc = main(["dpsgd", "--noise", "1", "--sample-rate", "1/100", "--steps", "1000", "--delta", "1e-5", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 0 and err == "" and "ε" in out


def test_reporter_waits_before_showing_anything():
    clock = iter([0.0, 0.1, 0.2]).__next__
    r = RichReporter(delay=0.5, clock=clock)
    r("task", 1, 10)
    r("task", 2, 10)
    assert r._console is None  # nothing shown within the first half second


def test_budget_stops_a_huge_composition_with_one_line(capsys):
    rc = main(["dpsgd", "--noise", "1", "--sample-rate", "0.1", "--steps", "1000000000", "--delta", "1e-5",
               "--budget", "0.5", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 1 and "needs more than the budget of 0.5 s" in err and err.count("\n") == 1


def test_grid_cap_for_a_tiny_noise(capsys):
    """A grid the user fixes too fine for σ = 0.0026 (loss range ~ 73,000) hits the
    documented cap with a hint; the automatic grid widens h and answers."""
    argv = ["dpsgd", "--noise", "191/72770", "--sample-rate", "191/72770", "--steps", "2", "--delta", "1e-5"]
    rc = main(argv + ["--grid", "1/1024"])
    err = capsys.readouterr().err
    assert rc == 1 and "more than the cap" in err and "--grid" in err
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0 and "h = 2" in out


def test_audit_slow_claim_is_inconclusive_and_the_rest_are_decided(tmp_path, capsys):
    """A claim that needs more than --claim-budget becomes INCONCLUSIVE with the
    reason; the audit goes on, prints every verdict and exits 1 (issue 18)."""
    f = tmp_path / "claims.toml"
    f.write_text('[[claim]]\nid = "slow"\nkind = "dp"\nmechanism = "dpsgd(noise=0.6, rate=1/1000, steps=100000)"\n'
                 'eps = "3"\ndelta = "1e-5"\n\n'
                 '[[claim]]\nid = "fast"\nkind = "dp"\nmechanism = "laplace(scale=1)"\neps = "1"\ndelta = "0"\n')
    rc = main(["audit", str(f), "--claim-budget", "1", "--quiet", "--json"])
    out = json.loads(capsys.readouterr().out)
    verdicts = {c["id"]: c for c in out["claims"]}
    assert rc == 1
    assert verdicts["slow"]["verdict"] == "INCONCLUSIVE" and "--claim-budget" in verdicts["slow"]["detail"]
    assert verdicts["fast"]["verdict"] == "CONFIRMED"
    assert main(["audit", str(f), "--claim-budget", "0"]) == 2


def test_a_terminal_gets_the_display_without_a_flag(monkeypatch):
    """Which display a command gets is decided by whether stderr is a terminal (no
    timing involved): a terminal gets the rich display after 0.5 s, a pipe nothing,
    --progress forces it from the first heartbeat, --quiet silences it."""
    import argparse
    import sys
    from contextlib import nullcontext

    from certdp.cli.common import _reporter

    ns = argparse.Namespace
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    shown = _reporter(ns(progress=False, quiet=False))
    assert isinstance(shown, RichReporter) and shown._delay == 0.5
    assert isinstance(_reporter(ns(progress=False, quiet=True)), nullcontext)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert isinstance(_reporter(ns(progress=False, quiet=False)), nullcontext)
    forced = _reporter(ns(progress=True, quiet=False))
    assert isinstance(forced, RichReporter) and forced._delay == 0.0


def test_a_terminal_sees_a_rich_progress_bar_and_stdout_stays_plain():
    """stderr on a pseudo-terminal (as a user's shell): the rich status line with
    the task's name appears; stdout (a pipe) holds only the answer.  --progress
    shows the display from the first heartbeat (without it, a run faster than the
    0.5 s delay shows nothing: the race test_a_terminal_gets_the_display_without_a_flag
    leaves out), so the first task, the upper PLD of one step, is always drawn."""
    import os
    import pty
    import select
    import subprocess
    import sys

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "certdp", "dpsgd", "--noise", "1", "--sample-rate", "1/100",
                             "--steps", "3000", "--delta", "1e-5", "--progress"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                chunk = b""
            if not chunk and proc.poll() is not None:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode()
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    assert b"PLD" in seen and b"\x1b[" in seen  # rich's live display (control sequences) of a PLD task
    assert "ε ∈" in out and "\x1b[" not in out


def test_a_certificate_out_of_budget_keeps_the_decided_verdict(monkeypatch):
    """Writing a certificate can cost more than deciding the claim: when the claim's
    budget runs out there, the verdict stands and the reason goes to no_certificate."""
    from certdp.audit.claims import parse_claim
    from certdp.audit.verdicts import audit_claim
    from certdp.certificates import writer
    from certdp.errors import BudgetExceeded

    def slow(*_a, **_k):
        raise BudgetExceeded("re-composing the PLD needs more than the budget of 1 s (raise it with --claim-budget SECONDS)")

    monkeypatch.setattr(writer, "upper_dp_certificate", slow)
    claim = parse_claim({"id": "c", "kind": "dp", "mechanism": "dpsgd(noise=2, rate=1/10, steps=20)",
                         "eps": "2", "delta": "1e-5"}, 0)
    v = audit_claim(claim, want_certificate=True)
    assert v.verdict == "CONFIRMED" and v.certificate is None and "--claim-budget" in v.no_certificate
