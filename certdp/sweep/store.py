"""The results file of a sweep: streamed, resumable, sorted at the end.

Rows are appended to a CSV *journal* as points finish (for ``--out x.csv``
the journal is the file itself; for ``--out x.parquet`` it is
``x.parquet.journal.csv``, turned into Parquet at the end).  Two sidecars
sit next to it:

* ``<out>.sweep.json`` records the grid: its definition (a range axis as
  first, step and count, never its values), a SHA-256 fingerprint of it and
  one of its *settings* (template, axis names, quantities:
  :meth:`~certdp.sweep.grid.Grid.settings_fingerprint`).  Re-running with the
  same ``--out`` resumes when the settings are the same: the axes may have
  gained values (the finished points are reused, a per-point cache keyed by
  the point and its settings) — a results file never mixes two settings (e.g.
  ε at two different δ under one column).
* ``<out>.sweep.rows`` holds one SHA-256 digest per row written (of the
  settings fingerprint and the row's cells, the point included:
  :meth:`ResultStore.digest`), appended and flushed *before* the row itself.

A resume trusts only rows certdp wrote: a row whose digest is not in
``<out>.sweep.rows`` (an edited value), a point that appears twice (a forged
duplicate) or a row of a point outside the grid makes the resume refuse
(InputError naming the line: exit 2), the file untouched.  The digests are
not keyed: they catch edits of the results file, not someone who edits the
sidecar too (a certificate, ``certdp audit --certificates``, is the
evidence that survives that).

A run killed mid-write leaves at most one partial last line (in the journal
and in the digests); it is dropped on resume.  When the sweep ends, the file
is rewritten (atomically) with the rows in grid order, so every backend
produces the same file apart from the ``seconds`` column.  Every value is a
string: enclosure ends are exact decimals rounded outward; converting them to
floats loses that guarantee.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from typing import Iterable

from certdp.errors import InputError
from certdp.meta import VERSION
from certdp.sweep.grid import Grid

Row = tuple[str, ...]  # a row's cells, in column order

#: Version of the sidecars' layout (2: grid definitions and row digests; 3: digests keyed by
#: the settings, so that a grown grid reuses its rows).
FORMAT = 3
_DIGEST = re.compile(r"[0-9a-f]{64}\Z")


def _parquet_module() -> object:
    try:
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise InputError("Parquet output needs pyarrow: python -m pip install pyarrow "
                         "(or the extra: python -m pip install 'certdp[dask]'), or use --out FILE.csv") from None
    return pq


def _atomic_write(path: str, write: object) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        write(tmp)  # type: ignore[operator]
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _write_text(path: str, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    _atomic_write(path, write)


def _complete_lines(path: str) -> str:
    """The text of ``path`` without a partial last line (a run killed mid-write)."""
    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    return text if text.endswith("\n") else text[: text.rfind("\n") + 1]


def _csv_text(columns: Iterable[str], rows: Iterable[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(columns))
    w.writerows(rows)
    return buf.getvalue()


class ResultStore:
    """Rows of one grid in one output file (see the module docstring).

    ``open()`` checks and loads the rows already finished (``rows``: grid index
    → cells) and starts the journal; ``append(cells)`` adds one row and flushes
    it; ``finish()`` writes the sorted file.  With ``retry_errors`` rows that
    carry an error are not counted as finished (they are computed again).
    """

    def __init__(self, path: str, grid: Grid, *, retry_errors: bool = False) -> None:
        ext = os.path.splitext(path)[1].lower()
        if ext not in (".csv", ".parquet"):
            raise InputError(f"--out {path!r}: the file name must end in .csv or .parquet")
        self.path = path
        self.grid = grid
        self.parquet = ext == ".parquet"
        if self.parquet:
            _parquet_module()
        self.journal = f"{path}.journal.csv" if self.parquet else path
        self.meta = f"{path}.sweep.json"
        self.digests = f"{path}.sweep.rows"
        self.retry_errors = retry_errors
        self.columns = grid.columns
        self.rows: dict[int, Row] = {}
        self._fingerprint = grid.fingerprint()
        self._settings = grid.settings_fingerprint()
        self._error = self.columns.index("error")
        self._fh: io.TextIOBase | None = None
        self._dh: io.TextIOBase | None = None

    def digest(self, cells: Iterable[str]) -> str:
        """SHA-256 of the settings' fingerprint and a row's cells (an unambiguous JSON list; the
        cells begin with the point's axis values)."""
        text = json.dumps([self._settings, *cells], ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def failed(self) -> int:
        """Finished rows that carry an error."""
        return sum(1 for r in self.rows.values() if r[self._error])

    # -- reading what a previous run left ------------------------------------
    def _read_csv(self, path: str) -> list[tuple[str, list[str]]]:
        reader = csv.reader(io.StringIO(_complete_lines(path)))
        header = next(reader, None)
        if header is None:
            return []
        if tuple(header) != self.columns:
            raise InputError(f"{path!r} has columns {','.join(header)}, not those of this grid; use another --out")
        return [(f"{path!r} line {reader.line_num}", r) for r in reader]

    def _read_parquet(self) -> list[tuple[str, list[str]]]:
        pq = _parquet_module()
        table = pq.read_table(self.path)  # type: ignore[attr-defined]
        if tuple(table.column_names) != self.columns:
            raise InputError(f"{self.path!r} has columns {','.join(table.column_names)}, not those of this grid")
        return [(f"{self.path!r} row {i + 1}", [str(r[c]) for c in self.columns])
                for i, r in enumerate(table.to_pylist())]

    def _read_digests(self) -> set[str]:
        if not os.path.exists(self.digests):
            return set()
        found = set()
        for n, line in enumerate(_complete_lines(self.digests).splitlines(), 1):
            if not _DIGEST.match(line):
                raise InputError(f"{self.digests!r} line {n} is not a row digest; the results cannot be trusted: "
                                 "use another --out, or remove the results and their sidecars to start again")
            found.add(line)
        return found

    def _check_meta(self, existing: bool) -> None:
        again = f"use another --out, or remove {self.path!r} and its sidecars to start again"
        if os.path.exists(self.meta):
            try:
                with open(self.meta, encoding="utf-8") as fh:
                    old = json.load(fh)
                layout, settings = old.get("format"), old.get("settings")
            except (OSError, ValueError, AttributeError):
                raise InputError(f"{self.meta!r} is unreadable; {again}") from None
            if layout != FORMAT:
                raise InputError(f"{self.meta!r} was written by another version of `certdp sweep` "
                                 f"(sidecar format {layout!r}, this one writes {FORMAT}); {again}")
            if settings != self._settings:
                raise InputError(f"{self.path!r} holds the results of a grid with other settings (template, axis names "
                                 f"or quantities; see {self.meta!r}); only axis values may change on resume; {again}")
        elif existing:
            raise InputError(f"{self.path!r} exists but {self.meta!r} does not: it was not written by "
                             "`certdp sweep` for this grid; use another --out")
        doc = {"certdp": VERSION, "format": FORMAT, "fingerprint": self._fingerprint, "settings": self._settings,
               "grid": self.grid.describe()}
        _write_text(self.meta, json.dumps(doc, indent=1) + "\n")

    def _label(self, point: tuple[str, ...]) -> str:
        return ", ".join(f"{a}={v}" for a, v in zip(self.grid.axis_names, point))

    def open(self) -> dict[int, Row]:
        """Check and load the finished rows (InputError on a row certdp did not
        write), rewrite the journal and the digests without partial lines, open
        both for appending.  Returns ``rows``."""
        existing = os.path.exists(self.path) or os.path.exists(self.journal)
        self._check_meta(existing)
        known = self._read_digests()
        if os.path.exists(self.journal):  # a Parquet run's journal holds every row of its Parquet file
            rows = self._read_csv(self.journal)
        elif self.parquet and os.path.exists(self.path):
            rows = self._read_parquet()
        else:
            rows = []
        width, axes = len(self.columns), len(self.grid.axes)
        seen: dict[int, str] = {}
        for where, cells in rows:
            if len(cells) != width:
                raise InputError(f"{where}: {len(cells)} cells, not the {width} columns of this grid; "
                                 "the results cannot be trusted (use another --out)")
            point = tuple(cells[:axes])
            index = self.grid.index_of(point)
            if index is None and self.digest(cells) in known:  # certdp's row, of a value since removed
                raise InputError(f"{where}: ({self._label(point)}) was computed but is no longer a point of the grid "
                                 "(an axis lost a value; axes may only gain values on resume): put the value back, "
                                 "or use another --out")
            if index is None:
                raise InputError(f"{where}: ({self._label(point)}) is not a point of this grid; "
                                 "remove the line, or use another --out")
            if index in seen:
                raise InputError(f"{where}: the point ({self._label(point)}) appears twice (first at {seen[index]}); "
                                 "remove the copies, or use another --out")
            if self.digest(cells) not in known:
                raise InputError(f"{where}: the row of ({self._label(point)}) is not a row certdp computed "
                                 f"(its digest is not in {self.digests!r}); remove the line to compute the point "
                                 "again, or use another --out")
            seen[index] = where
            if not (self.retry_errors and cells[self._error]):
                self.rows[index] = tuple(cells)
        # the journal first: digests of rows dropped from it may stay, never the reverse
        _write_text(self.journal, _csv_text(self.columns, self._sorted()))
        _write_text(self.digests, "".join(self.digest(r) + "\n" for r in self._sorted()))
        self._dh = open(self.digests, "a", encoding="utf-8", newline="")
        self._fh = open(self.journal, "a", encoding="utf-8", newline="")
        self._writer = csv.writer(self._fh, lineterminator="\n")
        return self.rows

    # -- writing -------------------------------------------------------------
    def append(self, index: int, cells: Row) -> None:
        """Record one finished point: its digest, then its row (each flushed at
        once: a killed run loses nothing finished, and no row goes without its digest)."""
        assert self._fh is not None and self._dh is not None, "open() first"
        self.rows[index] = cells
        self._dh.write(self.digest(cells) + "\n")
        self._dh.flush()
        self._writer.writerow(cells)
        self._fh.flush()

    def _sorted(self) -> list[Row]:
        return [self.rows[i] for i in sorted(self.rows)]

    def close(self) -> None:
        for fh in (self._fh, self._dh):
            if fh is not None:
                fh.close()
        self._fh = self._dh = None

    def finish(self) -> None:
        """Write the final file, rows in grid order (CSV, or Parquet with string columns)."""
        self.close()
        rows = self._sorted()
        if self.parquet:
            import pyarrow as pa  # noqa: PLC0415

            pq = _parquet_module()
            table = pa.table({c: pa.array([r[i] for r in rows], type=pa.string()) for i, c in enumerate(self.columns)},
                             metadata={"certdp.sweep": json.dumps(self.grid.describe())})
            _atomic_write(self.path, lambda tmp: pq.write_table(table, tmp))  # type: ignore[attr-defined]
            os.remove(self.journal)
            return
        _write_text(self.path, _csv_text(self.columns, rows))
