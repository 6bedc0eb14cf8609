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
import itertools
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .source import DEFAULT_LIMITS, Limits, LogInputError, ReadStats, iter_text_lines, open_log

PROBE_RE = re.compile(  # bounded fields: a crafted "t=1.2.3" has no time, a 60 KiB pid is no probe line
    r"gyrelint-probe (?P<name>[a-z_]{1,40})=(?P<plus>\+?)(?P<n>-?\d{1,30})(?: total=(?P<total>-?\d{1,30}))?"
    r" pid=(?P<pid>\d{1,20})(?!\d)(?: t=(?P<t>\d{1,20}(?:\.\d{0,9})?)(?![\d.]))?"
)
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)"
# Every built-in regex runs in time linear in the line (lines are capped at 64 KiB): a key starts only
# where no key character precedes it (else each position of a long word would rescan the word), no two
# unbounded quantifiers can share the same characters (``\s*[:=]?\s*`` would be quadratic in spaces).
KV_RE = re.compile(
    r"(?:(?P<q>['\"])(?P<qk>[^'\"\n]{1,160})(?P=q)|(?<![\w./@\-])(?P<k>[A-Za-z_][\w./@\-]*))"
    r"\s*[:=]\s*(?P<v>" + _NUM + r")(?![\w.])"
)
# numbers printed through repr: np.float64(0.5) (numpy >= 2), tensor(3) / tensor(0.5, device='cuda:0')
WRAPPED_NUM_RE = re.compile(r"\b(?:(?:np|numpy)\.(?:float|int|uint)\d{0,2}|tensor)\(\s*(" + _NUM + r")\s*(?:,[^()]*)?\)")
TABLE_KEY_RE = re.compile(r"[A-Za-z_][\w./@\-]*")
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GLOBAL_STEP_RE = re.compile(r"(?i)\bglobal[ _]step\s*(?:[:=]\s*)?(\d+)\b")

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


MAX_DEPTH = 32  # nested dicts flattened into keys; deeper levels of a crafted line are ignored


def _flatten(obj: object, prefix: str, out: dict[str, float]) -> None:
    """Numbers of nested dicts as ``a/b/c`` keys (iterative, depth-capped: a log line may nest deeply)."""
    stack = [(obj, prefix, 0)]
    while stack:
        node, pre, depth = stack.pop()
        if isinstance(node, dict):
            if depth < MAX_DEPTH:
                stack.extend((v, f"{pre}/{k}" if pre else str(k), depth + 1) for k, v in reversed(node.items()))
        elif isinstance(node, bool):
            continue
        elif isinstance(node, (int, float)):
            try:
                out[pre] = float(node)
            except OverflowError:  # an integer too large for a float
                continue


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
    except RecursionError:  # nested deeper than the interpreter's stack: not a metrics line
        return None
    except ValueError:
        if body.count("{") == 1 and body[1:2] in ("'", '"'):
            # a flat Python dict repr (trainer logs): its quoted keys with numbers, without compiling it
            return {qk: float(v) for _, qk, _, v in KV_RE.findall(body) if qk}
        try:
            obj = ast.literal_eval(body)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
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
    for q, qk, k, v in KV_RE.findall(stripped_rest if values else stripped):
        key = qk if q else k
        if key not in values:
            values[key] = float(v)  # every _NUM spelling parses
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


class CsvTable:
    """The columns of a CSV export and how its rows become records (one record per row)."""

    def __init__(self, header: str, display: str, name: str) -> None:
        cols = _csv_header(header)
        if cols is None:
            raise LogInputError(f"{display}: CSV without a 'step' column; export scalars as wall_time,step,value "
                                "or step,tag,value")
        self.cols, self.display = cols, display
        self.names = [c.strip().strip('"') for c in next(csv.reader([header]))]  # keys keep the header's spelling
        self.step_i = cols.index("step")
        self.tag_i = next((cols.index(c) for c in ("tag", "metric", "name", "key") if c in cols), None)
        self.value_i = cols.index("value") if "value" in cols else None
        self.skip = {self.step_i, self.tag_i, self.value_i,
                     *(i for i, c in enumerate(cols) if c in ("wall_time", "walltime", "time", "timestamp", "run"))}
        self.default_tag = _tag_from_filename(name)
        self.aliases = {self.default_tag: _slash_variants(self.default_tag)} \
            if self.value_i is not None and self.tag_i is None else {}

    def record(self, row: list[str], line: int) -> Record | None:
        if not row or len(row) <= self.step_i:
            return None
        step = _to_float(row[self.step_i].strip())
        if step is None:
            return None
        values = {"step": step}
        if self.value_i is not None and self.value_i < len(row):
            v = _to_float(row[self.value_i].strip())
            tag = row[self.tag_i].strip() if self.tag_i is not None and self.tag_i < len(row) else self.default_tag
            if v is not None and not math.isnan(v):
                values[tag] = v
        else:
            for i, cell in enumerate(row):
                if i in self.skip or i >= len(self.cols):
                    continue
                v = _to_float(cell.strip())
                if v is not None and not math.isnan(v):
                    values[self.names[i]] = v
        return Record(self.display, line, ",".join(row), values, self.display, aliases=self.aliases)


def iter_csv(lines: Iterator[tuple[int, str, bool]], display: str, name: str) -> Iterator[Record]:
    """Records of a CSV export streamed line by line; a last row cut short is a truncated file."""
    _, header, _ = next(lines)
    table = CsvTable(header, display, name)
    state = {"nl": True, "rows": 1}

    def texts() -> Iterator[str]:
        for _, text, nl in lines:
            state["nl"] = nl
            yield text + "\n" if nl else text

    reader = csv.reader(texts())
    row: list[str] = []
    try:
        for row in reader:
            state["rows"] += 1
            rec = table.record(row, reader.line_num + 1)
            if rec is not None:
                yield rec
    except csv.Error as exc:  # e.g. a stray carriage return inside a field (found by bench/fuzz.py)
        raise LogInputError(f"{display}: malformed CSV ({exc}) near line {reader.line_num + 1}; "
                            "re-export the scalars as CSV") from None
    if not state["nl"] and state["rows"] > 1 and len(row) < len(table.cols):
        raise LogInputError(f"{display}: truncated at line {reader.line_num + 1} (row has {len(row)} of "
                            f"{len(table.cols)} columns); pass a complete export")


def is_csv(name: str, text: str) -> bool:
    if name.lower().endswith(".csv"):
        return True
    first = text.split("\n", 1)[0]
    return "," in first and "{" not in first and _csv_header(first) is not None \
        and all(not any(ch.isdigit() for ch in c) for c in first.split(","))


def read_log(path: Path, display: str | None = None) -> list[Record]:
    """Every record of one complete log file; LogInputError if it cannot be read."""
    return list(iter_log(path, display))


def iter_log(path: Path, display: str | None = None, limits: Limits = DEFAULT_LIMITS,
             stats: ReadStats | None = None) -> Iterator[Record]:
    """Records one by one, streamed: the log never sits in memory, whole or as records.

    Opening errors (missing, a FIFO, a directory) come at once; the others (binary, empty,
    truncated, a bomb) when the reading gets there, after the records before them.
    """
    display = display or str(path)
    stream = open_log(path, display)
    return _records(stream, path.name, display, stats or ReadStats(display), limits)


def _records(stream: BinaryIO, name: str, display: str, stats: ReadStats, limits: Limits) -> Iterator[Record]:
    try:
        lines = iter_text_lines(stream, stats, limits)
        first = next(lines, None)
        if first is None:
            raise LogInputError(f"{display}: empty log; pass the log the run wrote (is the path right, did it flush?)")
        if is_csv(name, first[1]):
            yield from iter_csv(itertools.chain([first], lines), display, name)
            return
        last: tuple[int, str, bool] | None = None  # the last line that held a record
        control_only = False
        for no, raw, nl in itertools.chain([first], lines):
            found = False
            # tqdm progress bars rewrite a line with carriage returns: read each state.
            for seg in raw.split("\r") if "\r" in raw else (raw,):
                rec = parse_line(seg, display, no)
                if rec is not None:
                    found = True
                    yield rec
            if found:
                last = (no, raw, nl)
            elif not control_only and raw.strip(" \t\r\x0b\x0c"):
                control_only = True
        if last is None:
            if control_only:  # only separators/control characters, e.g. b"\x1d" (found by bench/fuzz.py)
                raise LogInputError(f"{display}: no text lines (only whitespace or control characters); "
                                    "pass a real log")
            raise LogInputError(f"{display}: empty log; pass the log the run wrote (is the path right, did it flush?)")
        if _truncated_tail(last[1], ends_with_newline=last[2]):
            raise LogInputError(f"{display}: truncated at line {last[0]} (record cut off mid-line); "
                                "the writer stopped mid-write: pass a complete log, or use --follow on a live one")
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def iter_lines(lines: list[str], display: str, start: int) -> Iterator[Record]:
    for i, raw in enumerate(lines, start=start):
        for seg in raw.split("\r") if "\r" in raw else (raw,):
            rec = parse_line(seg, display, i)
            if rec is not None:
                yield rec


def parse_lines(lines: list[str], display: str, start: int) -> list[Record]:
    return list(iter_lines(lines, display, start))
