"""Shared CLI plumbing: output in human or JSON form, and error handling.

Bad input (an :class:`~certdp.errors.InputError`) becomes one line on stderr
and exit code 2 — never a traceback.  A :class:`PrecisionError` (certified
evaluation could not decide) is exit code 1 with a message.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, Callable

from certdp.errors import BudgetExceeded, InputError, PrecisionError, budget
from certdp.numerics.enclosure import Enclosure

EXIT_OK = 0
EXIT_UNDECIDED = 1
EXIT_BAD_INPUT = 2


_ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj|ref|doc|math):`~?([^`]+)`")


def plain_text(text: str | None) -> str | None:
    """Text without Sphinx markup, for a terminal: ``:func:`~a.b.c``` → ``c``,
    ``:mod:`a.b``` → ``a.b``, ````x```` → ``x`` (argparse's ``%`` escapes untouched)."""
    if not text:
        return text
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).count("~") else m.group(1), text)
    return text.replace("``", "")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def to_jsonable(obj: Any) -> Any:
    """Recursively convert enclosures (to {"lo","hi"}) and containers."""
    if isinstance(obj, Enclosure):
        return obj.to_json()
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj


#: Options that steer the run, not the question: not echoed under "input".
_NOT_INPUTS = frozenset({"handler", "json", "progress", "quiet", "budget", "display_digits", "command", "certificate",
                         "certificates", "output", "out", "jobs", "dask"})


def echoed_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The inputs a command answered, as given on the command line (strings stay strings:
    ``1e-5`` is echoed as ``"1e-5"``, a closed form as its text); options left unset are omitted."""
    return {k: v for k, v in vars(args).items()
            if k not in _NOT_INPUTS and v is not None and v is not False and isinstance(v, (str, int, float, list))}


def emit(args: argparse.Namespace, human: str | Callable[[], str], data: Any) -> None:
    """Print ``data`` as JSON if ``--json`` was given, else the human text.  A JSON object
    gets the key ``"input"``: the inputs it answered (:func:`echoed_inputs`), one rule for
    every command."""
    if getattr(args, "json", False):
        if isinstance(data, dict) and "input" not in data:
            data = {"input": echoed_inputs(args), **data}
        print(json.dumps(to_jsonable(data)))
    else:
        print(human() if callable(human) else human)


def fail(message: str) -> int:
    print(f"certdp: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def parse_seconds(text: object, name: str = "--budget") -> float:
    """A time budget in seconds: an exact positive number (e.g. ``90``, ``1/2``, ``1e3``)."""
    from certdp.numerics.exact import exact  # noqa: PLC0415

    value = exact(text, name)
    if not 0 < value <= 10**9:
        raise InputError(f"{name} must be a number of seconds in (0, 1e9], got {text!r}")
    return float(value)


#: Time budget of every command unless it sets its own (seconds).
DEFAULT_BUDGET = "600"


def add_budget_flag(p: argparse.ArgumentParser, default: str) -> None:
    """``--budget SECONDS``: stop with "needs more than the budget" (exit 1).
    Every command has it (added centrally when a command does not add its own)."""
    if any(a.dest == "budget" for a in p._actions):
        return
    p.add_argument("--budget", default=default, metavar="SECONDS",
                   help=f"time budget in seconds (default {default}); exceeding it exits 1 with a message")


def add_progress_flags(p: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet``: force or silence the progress display on
    stderr (default: shown when stderr is a terminal).  stdout is never touched."""
    if any(a.dest in ("progress", "quiet") for a in p._actions):
        return
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    g.add_argument("--quiet", action="store_true", help="no progress display")


def _reporter(args: argparse.Namespace):  # noqa: ANN202 - a RichReporter or a null context
    from contextlib import nullcontext  # noqa: PLC0415

    if getattr(args, "quiet", False):
        return nullcontext(None)
    points = getattr(args, "progress_points", None)  # a command over many points (audit, sweep)
    if points == "":  # the command prints its own line per point (sweep)
        return nullcontext(None)
    if getattr(args, "progress", False) or sys.stderr.isatty():
        try:
            from certdp.cli.display import RichReporter  # noqa: PLC0415
            import rich  # noqa: F401, PLC0415
        except ImportError:  # rich missing: run without a display
            return nullcontext(None)
        return RichReporter(delay=0.0 if getattr(args, "progress", False) else 0.5, points=points)
    return nullcontext(None)


def add_digits_flag(p: argparse.ArgumentParser) -> None:
    """``--digits N`` on every command: print enclosures with at most N significant
    digits (outward-rounded).  Commands whose ``--digits`` already sets the accuracy
    (``gdp``, ``profile``) print what that accuracy shows: one meaning, N digits."""
    if "--digits" in p._option_string_actions:
        return
    p.add_argument("--digits", type=int, dest="display_digits", default=None, metavar="N",
                   help="print enclosures with at most N significant digits, rounded outward "
                        "(default: as many as their width shows; --json keeps full precision)")


def run_handler(args: argparse.Namespace) -> int:
    handler = getattr(args, "handler", None)
    if handler is None:  # pragma: no cover - argparse requires a subcommand
        return fail("no command given")
    try:
        for flag in ("certificate", "certificates", "output", "out"):
            if getattr(args, flag, None) == "":
                raise InputError(f"--{flag}: an empty file name")
        from certdp.progress import reporting  # noqa: PLC0415

        seconds = getattr(args, "budget", None)
        from certdp.numerics.enclosure import display_limit  # noqa: PLC0415

        limit = getattr(args, "display_digits", None)
        if limit is None and isinstance(getattr(args, "digits", None), int):  # gdp/profile: the accuracy
            if not 1 <= args.digits <= 100:
                raise InputError(f"--digits must be an integer in [1, 100], got {args.digits}")
            limit = min(args.digits + 1, 100)  # ... and what is printed
        with budget(None if seconds is None else parse_seconds(seconds)), _reporter(args) as shown, reporting(shown), \
                display_limit(limit):
            return int(handler(args))
    except InputError as err:
        return fail(str(err))
    except PrecisionError as err:
        print(f"certdp: undecided: {err}", file=sys.stderr)
        return EXIT_UNDECIDED
    except BudgetExceeded as err:
        print(f"certdp: {err}", file=sys.stderr)
        return EXIT_UNDECIDED
    except (OverflowError, ZeroDivisionError) as err:
        # a float helper met a number beyond its range (e.g. 1e400): never a
        # traceback, never an answer — say which range was exceeded
        return fail(f"a number is outside the range this computation supports ({type(err).__name__}: {err}); "
                    "try a less extreme value")
    except ValueError as err:
        if "integer string conversion" not in str(err):
            raise
        # a derived number (e.g. the square of a 4000-digit input) has more
        # digits than Python converts to text: say so, do not print a guess
        return fail("a number in this computation has more than 4300 digits and cannot be printed; "
                    "try less extreme inputs")
    except MemoryError:
        return fail("the computation needs more memory than is available (try a coarser grid or smaller inputs)")
    except BrokenPipeError:  # pragma: no cover - e.g. `certdp ... | head`
        return EXIT_OK
    except OSError as err:
        # file errors (missing directory, permission, bad file name): one line
        where = f" {err.filename!r}" if getattr(err, "filename", None) else ""
        return fail(f"cannot use the file{where}: {err.strerror or err}")
    except KeyboardInterrupt:  # pragma: no cover
        print("certdp: interrupted", file=sys.stderr)
        return 130


def parse_list(text: str, what: str) -> list[str]:
    """Split a comma-separated list of exact numbers (kept as strings)."""
    items = [t.strip() for t in text.split(",")]
    if not items or any(not t for t in items):
        raise InputError(f"{what}: expected a comma-separated list of numbers, got {text!r}")
    return items
