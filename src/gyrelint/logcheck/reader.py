"""Turn log files into records: one per line (or CSV row), each with its numeric key/values.

Formats, decided per line so a console log mixing styles still reads: gyrelint probe lines,
JSON objects (nested keys flattened with ``/``), Python dict reprs (``{'loss': 0.1, ...}``,
possibly after a prefix), and ``key: value`` / ``key=value`` / ``key:value`` pairs (verl's
``step:3 - actor/pg_loss:...`` lines). CSV files (TensorBoard scalar exports ``Wall time,Step,Value``,
long ``step,tag,value`` tables or wide ``step,<tag>,<tag>...`` tables) are read per row.
"""

from __future__ import annotations

import ast
import csv
import gzip
import io
import json
import math
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PROBE_RE = re.compile(
    r"gyrelint-probe (?P<name>[a-z_]+)=(?P<plus>\+?)(?P<n>-?\d+)(?: total=(?P<total>-?\d+))? pid=(?P<pid>\d+)"
    r"(?: t=(?P<t>[\d.]+))?"
)
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)"
KV_RE = re.compile(
    r"(?:(?P<q>['\"])(?P<qk>[^'\"\n]{1,160})(?P=q)|(?P<k>[A-Za-z_][\w./@\-]*))"
    r"\s*[:=]\s*(?P<v>" + _NUM + r")(?![\w.])"
)
# numbers printed through repr: np.float64(0.5) (numpy >= 2), tensor(3) / tensor(0.5, device='cuda:0')
WRAPPED_NUM_RE = re.compile(r"\b(?:(?:np|numpy)\.(?:float|int|uint)\d{0,2}|tensor)\(\s*(" + _NUM + r")\s*(?:,[^()]*)?\)")
TABLE_KEY_RE = re.compile(r"[A-Za-z_][\w./@\-]*")
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GLOBAL_STEP_RE = re.compile(r"(?i)\bglobal[ _]step\s*[:=]?\s*(\d+)\b")
BINARY_SNIFF = 8192


class LogInputError(Exception):
    """A log that cannot be read (missing, binary, empty, truncated): exit code 2."""


@dataclass(slots=True)
class Record:
    """One line (or CSV row) of one log with the numbers it carries."""

    file: str
    line: int
    text: str
    values: dict[str, float] = field(default_factory=dict)
    stream: str = ""
    probe: tuple[str, bool, float] | None = None  # (counter, is_delta, amount) for probe lines
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # key -> other spellings to match
    t: float | None = None  # wall-clock time, when the line carries one (probe lines)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _flatten(obj: object, prefix: str, out: dict[str, float]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}/{k}" if prefix else str(k), out)
    elif isinstance(obj, bool):
        return
    elif isinstance(obj, (int, float)):
        out[prefix] = float(obj)


def _to_float(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v


def _dict_values(text: str) -> dict[str, float] | None:
    """The numbers of a JSON object or Python dict repr found in ``text`` (after any prefix)."""
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end <= start:
        return None
    body = text[start:end + 1]
    obj: object = None
    try:
        obj = json.loads(body)
    except ValueError:
        try:
            obj = ast.literal_eval(body)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            obj = None
    if not isinstance(obj, dict):
        return None
    out: dict[str, float] = {}
    _flatten(obj, "", out)
    return out


def parse_line(text: str, file: str, line: int) -> Record | None:
    """The record of one text line (None for a blank one); line patterns may match it without numbers."""
    stripped = text.strip()
    if "\x1b" in stripped:  # colour codes of rich/colorlog consoles
        stripped = ANSI_RE.sub("", stripped).strip()
    if not stripped:
        return None
    if "(" in stripped and ("np." in stripped or "numpy." in stripped or "tensor(" in stripped):
        stripped = WRAPPED_NUM_RE.sub(r"\1", stripped)
    if "gyrelint-probe" in stripped:
        m = PROBE_RE.search(stripped)
        if m:
            name = m["name"]
            return Record(file, line, stripped, {name: float(m["n"])}, f"{file}#pid{m['pid']}",
                          (name, bool(m["plus"]), float(m["n"])), t=float(m["t"]) if m["t"] else None)
    values: dict[str, float] = {}
    if "{" in stripped:
        found = _dict_values(stripped)
        if found:
            values.update(found)
            stripped_rest = stripped[: stripped.find("{")]
        else:
            stripped_rest = stripped
    else:
        stripped_rest = stripped
    for m in KV_RE.finditer(stripped_rest if values else stripped):
        key = m["qk"] if m["qk"] is not None else m["k"]
        v = _to_float(m["v"])
        if v is not None and key not in values:
            values[key] = v
    if "\u2502" in stripped or (stripped.startswith("|") and stripped.count("|") >= 3):
        values.update(_table_cells(stripped))  # tabulate / markdown tables: | key | value | key | value |
    g = GLOBAL_STEP_RE.search(stripped_rest if values else stripped) if ("lobal" in stripped or "LOBAL" in stripped) else None
    if g and "global_step" not in values:
        values["global_step"] = float(g.group(1))
    return Record(file, line, stripped, values, file)


def _table_cells(line: str) -> dict[str, float]:
    cells = [c.strip() for c in re.split("[\u2502|]", line) if c.strip()]
    out: dict[str, float] = {}
    for k, v in zip(cells, cells[1:], strict=False):
        if TABLE_KEY_RE.fullmatch(k):
            f = _to_float(v)
            if f is not None:
                out[k] = f
    return out


def _truncated_tail(last: str, ends_with_newline: bool) -> bool:
    """Does the last line of a log look cut off mid-record?

    A writer that stopped mid-write leaves no newline; a JSON-lines record that does not close
    is cut whatever follows it. A text line that merely opens a brace (``config = {``) is not.
    """
    s = last.strip()
    if not s:
        return False
    if s.startswith("gyrelint-probe") and not PROBE_RE.search(s):
        return True
    if "{" in s and s.count("{") > s.count("}") and (not ends_with_newline or s.startswith("{")):
        return _dict_values(s) is None
    return False


def read_bytes(path: Path, display: str) -> bytes:
    """The file's bytes (gzip undone), or a LogInputError naming the file and what to do; ``-`` is stdin."""
    try:
        data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except FileNotFoundError:
        raise LogInputError(f"{display}: no such file; pass the path of a training log") from None
    except IsADirectoryError:
        raise LogInputError(f"{display}: is a directory; pass a log file (or a glob of them)") from None
    except OSError as exc:
        raise LogInputError(f"{display}: cannot read ({exc.strerror})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error):
            raise LogInputError(f"{display}: truncated or corrupt gzip file; pass a complete log") from None
    return data


def decode(data: bytes, display: str) -> str:
    """Text of a log; binary data (NUL bytes, mostly undecodable) is an input error."""
    if not data.strip():
        raise LogInputError(f"{display}: empty log; pass the log the run wrote (is the path right, did it flush?)")
    head = data[:BINARY_SNIFF]
    text = data.decode("utf-8", errors="replace")
    bad = text[:BINARY_SNIFF].count("\ufffd")
    if b"\x00" in head or bad > max(8, len(head) // 10):
        hint = "export the scalars to CSV (TensorBoard: 'Download CSV') and pass that" \
            if "tfevents" in display else "pass a text, JSON-lines or CSV log"
        raise LogInputError(f"{display}: binary file, not a text log; {hint}")
    return text


def _csv_header(first: str) -> list[str] | None:
    try:
        row = next(csv.reader([first]))
    except (csv.Error, StopIteration):
        return None
    cols = [c.strip().strip('"').lower().replace(" ", "_") for c in row]
    if len(cols) < 2 or "step" not in cols:
        return None
    return cols


def _slash_variants(tag: str) -> tuple[str, ...]:
    """TensorBoard's CSV download names turn ``/`` into ``_``: the spellings with the first k ``_`` restored."""
    if "/" in tag or "_" not in tag:
        return ()
    parts = tag.split("_")
    return tuple("/".join(parts[: k + 1]) + "_" + "_".join(parts[k + 1:]) if k + 1 < len(parts) else "/".join(parts)
                 for k in range(1, min(len(parts), 4)))


def _tag_from_filename(name: str) -> str:
    stem = name[:-4] if name.lower().endswith(".csv") else name
    if "-tag-" in stem:  # TensorBoard's download name: run-<run>-tag-<tag with / as _>.csv
        return stem.split("-tag-", 1)[1]
    return stem


def read_csv(text: str, display: str, name: str) -> list[Record]:
    lines = text.splitlines()
    cols = _csv_header(lines[0]) if lines else None
    if cols is None:
        raise LogInputError(f"{display}: CSV without a 'step' column; export scalars as wall_time,step,value "
                            "or step,tag,value")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:  # e.g. a stray carriage return inside a field (found by bench/fuzz.py)
        line = len(text[: text.find("\r")].splitlines()) + 1 if "\r" in text else 0
        raise LogInputError(f"{display}: malformed CSV ({exc}) near line {line}; re-export the scalars as CSV") from exc
    if not text.endswith(("\n", "\r")) and len(rows) > 1 and len(rows[-1]) < len(cols):
        raise LogInputError(f"{display}: truncated at line {len(rows)} (row has {len(rows[-1])} of "
                            f"{len(cols)} columns); pass a complete export")
    names = [c.strip().strip('"') for c in next(csv.reader([lines[0]]))]  # keys keep the header's spelling
    step_i = cols.index("step")
    tag_i = next((cols.index(c) for c in ("tag", "metric", "name", "key") if c in cols), None)
    value_i = cols.index("value") if "value" in cols else None
    skip = {step_i, tag_i, value_i, *(i for i, c in enumerate(cols) if c in ("wall_time", "walltime", "time",
                                                                         "timestamp", "run"))}
    default_tag = _tag_from_filename(name)
    aliases = {default_tag: _slash_variants(default_tag)} if value_i is not None and tag_i is None else {}
    records: list[Record] = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or len(row) <= step_i:
            continue
        step = _to_float(row[step_i].strip())
        if step is None:
            continue
        values = {"step": step}
        if value_i is not None and value_i < len(row):
            v = _to_float(row[value_i].strip())
            tag = row[tag_i].strip() if tag_i is not None and tag_i < len(row) else default_tag
            if v is not None and not math.isnan(v):
                values[tag] = v
        else:
            for i, cell in enumerate(row):
                if i in skip or i >= len(cols):
                    continue
                v = _to_float(cell.strip())
                if v is not None and not math.isnan(v):
                    values[names[i]] = v
        records.append(Record(display, n, ",".join(row), values, display, aliases=aliases))
    return records


def is_csv(name: str, text: str) -> bool:
    if name.lower().endswith(".csv"):
        return True
    first = text.split("\n", 1)[0]
    return "," in first and "{" not in first and _csv_header(first) is not None \
        and all(not any(ch.isdigit() for ch in c) for c in first.split(","))


def read_log(path: Path, display: str | None = None) -> list[Record]:
    """Every record of one complete log file; LogInputError if it cannot be read."""
    return list(iter_log(path, display))


def iter_log(path: Path, display: str | None = None) -> Iterator[Record]:
    """Records one by one (a long log never sits in memory as records); input errors come first."""
    display = display or str(path)
    text = decode(read_bytes(path, display), display)
    if is_csv(path.name, text):
        return iter(read_csv(text, display, path.name))
    lines = text.split("\n")
    last_i = max((i for i, s in enumerate(lines) if s.strip()), default=None)
    if last_i is None:  # only separators/whitespace, e.g. b"\x1d" (found by bench/fuzz.py)
        raise LogInputError(f"{display}: no text lines (only whitespace or control characters); pass a real log")
    if _truncated_tail(lines[last_i], ends_with_newline=last_i < len(lines) - 1):
        raise LogInputError(f"{display}: truncated at line {last_i + 1} (record cut off mid-line); "
                            "the writer stopped mid-write: pass a complete log, or use --follow on a live one")
    return iter_lines(lines, display, start=1)


def iter_lines(lines: list[str], display: str, start: int) -> Iterator[Record]:
    for i, raw in enumerate(lines, start=start):
        # tqdm progress bars rewrite a line with carriage returns: read each state.
        for seg in raw.split("\r") if "\r" in raw else (raw,):
            rec = parse_line(seg, display, i)
            if rec is not None:
                yield rec


def parse_lines(lines: list[str], display: str, start: int) -> list[Record]:
    return list(iter_lines(lines, display, start))
