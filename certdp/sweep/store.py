"""The results file of a sweep: streamed, resumable, sorted at the end.

Rows are appended to a CSV *journal* as points finish (for ``--out x.csv``
the journal is the file itself; for ``--out x.parquet`` it is
``x.parquet.journal.csv``, turned into Parquet at the end).  Next to it,
``<out>.sweep.json`` records the grid (its canonical description and a
SHA-256 fingerprint): re-running with the same ``--out`` skips the points
already in the file only when the grid is the same — a results file never
mixes two grids (e.g. ε at two different δ under one column).

A run killed mid-write leaves at most one partial last line; it is dropped
on resume.  When the sweep ends, the file is rewritten (atomically) with the
rows in grid order, so every backend produces the same file apart from the
``seconds`` column.  Every value is a string: enclosure ends are exact
decimals rounded outward; converting them to floats loses that guarantee.
"""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Iterable

from certdp.errors import InputError
from certdp.meta import VERSION
from certdp.sweep.grid import Grid

Row = dict[str, str]
Key = tuple[str, ...]


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


def _csv_text(columns: Iterable[str], rows: Iterable[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = list(columns)
    w.writerow(cols)
    for r in rows:
        w.writerow([r[c] for c in cols])
    return buf.getvalue()


class ResultStore:
    """Rows of one grid in one output file (see the module docstring).

    ``open()`` returns the rows already finished (keyed by the point) and
    starts the journal; ``append(row)`` adds one row and flushes it;
    ``finish()`` writes the sorted file.  With ``retry_errors`` rows that
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
        self.retry_errors = retry_errors
        self.columns = grid.columns
        self.rows: dict[Key, Row] = {}
        self._fh: io.TextIOBase | None = None

    def key(self, row: Row) -> Key:
        return tuple(row[a] for a in self.grid.axis_names)

    # -- reading what a previous run left ------------------------------------
    def _read_csv(self, path: str) -> list[Row]:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
        if not text.endswith("\n"):  # a run killed mid-write: drop the partial line
            text = text[: text.rfind("\n") + 1]
        reader = csv.reader(io.StringIO(text))
        header = next(reader, None)
        if header is None:
            return []
        if tuple(header) != self.columns:
            raise InputError(f"{path!r} has columns {','.join(header)}, not those of this grid; use another --out")
        return [dict(zip(self.columns, r)) for r in reader if len(r) == len(self.columns)]

    def _read_parquet(self) -> list[Row]:
        pq = _parquet_module()
        table = pq.read_table(self.path)  # type: ignore[attr-defined]
        if tuple(table.column_names) != self.columns:
            raise InputError(f"{self.path!r} has columns {','.join(table.column_names)}, not those of this grid")
        return [{c: str(v) for c, v in r.items()} for r in table.to_pylist()]

    def _check_meta(self, existing: bool) -> None:
        fp = self.grid.fingerprint()
        if os.path.exists(self.meta):
            try:
                with open(self.meta, encoding="utf-8") as fh:
                    old = json.load(fh).get("fingerprint")
            except (OSError, ValueError, AttributeError):
                raise InputError(f"{self.meta!r} is unreadable; remove it and {self.path!r} to start again") from None
            if old != fp:
                raise InputError(f"{self.path!r} holds the results of a different grid (see {self.meta!r}); "
                                 "use another --out or remove both files")
        elif existing:
            raise InputError(f"{self.path!r} exists but {self.meta!r} does not: it was not written by "
                             "`certdp sweep` for this grid; use another --out")
        doc = {"certdp": VERSION, "fingerprint": fp, "grid": self.grid.describe()}
        _write_text(self.meta, json.dumps(doc, indent=1) + "\n")

    def open(self) -> dict[Key, Row]:
        """Load the finished rows, rewrite the journal without partial lines, open it for appending."""
        existing = os.path.exists(self.path) or os.path.exists(self.journal)
        self._check_meta(existing)
        rows: list[Row] = []
        if self.parquet and os.path.exists(self.path):
            rows += self._read_parquet()
        if os.path.exists(self.journal):
            rows += self._read_csv(self.journal)
        axis_values = [set(v) for _, v in self.grid.axes]
        for r in rows:
            k = self.key(r)
            if all(v in s for v, s in zip(k, axis_values)) and not (self.retry_errors and r["error"]):
                self.rows[k] = r
        _write_text(self.journal, _csv_text(self.columns, self._sorted()))
        self._fh = open(self.journal, "a", encoding="utf-8", newline="")
        self._writer = csv.writer(self._fh, lineterminator="\n")
        return dict(self.rows)

    # -- writing -------------------------------------------------------------
    def append(self, row: Row) -> None:
        """Record one finished point (flushed at once: a killed run loses nothing finished)."""
        assert self._fh is not None, "open() first"
        self.rows[self.key(row)] = row
        self._writer.writerow([row[c] for c in self.columns])
        self._fh.flush()

    def _sorted(self) -> list[Row]:
        index = [{v: i for i, v in enumerate(values)} for _, values in self.grid.axes]
        return sorted(self.rows.values(), key=lambda r: tuple(ix[v] for ix, v in zip(index, self.key(r))))

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def finish(self) -> None:
        """Write the final file, rows in grid order (CSV, or Parquet with string columns)."""
        self.close()
        rows = self._sorted()
        if self.parquet:
            import pyarrow as pa  # noqa: PLC0415

            pq = _parquet_module()
            table = pa.table({c: pa.array([r[c] for r in rows], type=pa.string()) for c in self.columns},
                             metadata={"certdp.sweep": json.dumps(self.grid.describe())})
            _atomic_write(self.path, lambda tmp: pq.write_table(table, tmp))  # type: ignore[attr-defined]
            os.remove(self.journal)
            return
        _write_text(self.path, _csv_text(self.columns, rows))
