"""Property-based fuzzing of the stages that read untrusted bytes: the parse/index stage,
the config readers, the log reader and the cache decoder.

Each target must turn any input into a result or a diagnostic, never an exception.
Runs for a bounded time (not in CI) and writes the inputs tried and crashes found:

    .venv/bin/python bench/fuzz.py --seconds 240 --write docs/bench/fuzz.md
"""

from __future__ import annotations

import argparse
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gyrelint.index as index_mod
from gyrelint import cachestore
from gyrelint.index import parse_source
from gyrelint.logcheck import build_rules, check_logs
from gyrelint.logcheck.reader import LogInputError, parse_line
from gyrelint.topology.sources.shell import read_shell
from gyrelint.topology.sources.structured import read_ini, read_json, read_toml
from gyrelint.topology.sources.yaml_src import read_yaml

ROOT = Path(__file__).resolve().parents[1]
SEEDS = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "src" / "gyrelint" / "demo").rglob("*.py"))
CONFIG_SEEDS = [p for p in (ROOT / "tests" / "fixtures").rglob("*") if p.suffix in {".yaml", ".yml", ".toml", ".json", ".ini", ".sh"}]
LOG_SEEDS = [p for p in (ROOT / "tests" / "fixtures").rglob("*") if p.suffix in {".log", ".jsonl", ".txt", ".csv"}]
TOKENS = ["(", ")", "[", "]", "{", "}", ":", "\n", "    ", "def ", "class ", "lambda", "'", '"', '"""', "\\", "#",
          "@", "=", "+", "*", "**", "await ", "async ", "yield", "\x00", "\xef\xbb\xbf", "\t", "\r", ",", ".", "-",
          "!!python/object:os.system", "&a", "*a", "${x}", "key: value", "[section]", "=1", "step:1 - a/b:2"]


def _read_seeds(paths: list[Path]) -> list[bytes]:
    out = []
    for p in paths:
        try:
            out.append(p.read_bytes()[:20000])
        except OSError:
            pass
    return out or [b"x = 1\n"]


def mutated(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Real files with random edits: byte flips, truncation, token insertion, duplication."""

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(0, 6))):
            op = draw(st.integers(0, 4))
            pos = draw(st.integers(0, max(0, len(data))))
            if op == 0 and data:
                data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
            elif op == 1:
                data = data[:pos]
            elif op == 2:
                tok = draw(st.sampled_from(TOKENS)).encode("utf-8", "surrogatepass")
                data[pos:pos] = tok * draw(st.integers(1, 300))
            elif op == 3 and data:
                end = min(len(data), pos + draw(st.integers(1, 200)))
                data[pos:pos] = data[pos:end] * draw(st.integers(1, 20))
            else:
                data[pos:pos] = draw(st.binary(max_size=40))
        return bytes(data)

    return build()


def random_text() -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=200).map(
        lambda parts: "".join(parts).encode("utf-8", "surrogatepass")
    )


class Target:
    def __init__(self, name: str, run: Callable[[bytes], None], inputs: st.SearchStrategy[bytes]) -> None:
        self.name, self.run, self.inputs = name, run, inputs
        self.tried = 0
        self.crashes: list[tuple[bytes, str]] = []


def _parse(data: bytes) -> None:
    summary, diag = parse_source("fuzz.py", "fuzz", data)
    assert (summary is None) != (diag is None) or summary is not None


def _parse_light(data: bytes) -> None:
    """The bounded paths (bulk literals elided, skeleton) with thresholds low enough for
    small inputs to reach them."""
    saved = index_mod.MIN_GROUP, index_mod.MAX_COST
    index_mod.MIN_GROUP, index_mod.MAX_COST = 6, 40
    try:
        _parse(data)
    finally:
        index_mod.MIN_GROUP, index_mod.MAX_COST = saved


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _configs(data: bytes) -> None:
    text = _text(data)
    diags: list = []
    read_yaml("f.yaml", text, diags)
    read_toml("f.toml", text, diags)
    read_json("f.json", text, diags)
    read_ini("f.ini", text, diags)
    read_shell("f.sh", text)


_LOG_DIR = Path(tempfile.mkdtemp(prefix="gyrelint-fuzz-"))


def _logs(data: bytes) -> None:
    for i, line in enumerate(_text(data).splitlines()[:200]):
        parse_line(line, "f.log", i + 1)
    path = _LOG_DIR / "run.log"
    path.write_bytes(data)
    try:
        check_logs([path], build_rules())
    except LogInputError:
        pass  # the documented one-line error for unreadable logs


# -- cache decoder: today's entries of every namespace, mutated

CACHE_NAMESPACES = ("summaries", "analysis", "last", "graphs", "semantics", "findings", "provenance", "configs",
                    "modfacts")
_SEED_KEY = "0" * 64  # summary seeds are re-keyed to it, so a mutated one still passes the key check


def cache_seeds(work: Path) -> list[bytes]:
    """Real payloads of every namespace: the demo repo analyzed into a cache under ``work``
    (plus one flake8 findings entry). A seed is the namespace's index byte, then the payload."""
    from gyrelint import flake8_plugin
    from gyrelint.api import analyze, demo_root
    from gyrelint.index import cache as C
    from gyrelint.settings import Settings

    cache = work / "cache"
    analyze(demo_root(), Settings(cache_dir=cache, jobs=1))
    flake8_plugin._save_findings(cache, "f" * 32, (("a.py", 3, "GYR001", "message"),))
    store = cachestore.open_store(cache)
    seeds = []
    for path in sorted(cache.glob("*/*/*")):
        folder, key = path.parent.parent.name, path.name
        payload = store.get(folder, key)
        ns = folder.split("-")[0]
        if payload is None or ns not in CACHE_NAMESPACES:
            continue
        if ns == "summaries":
            got = C.decode_entry(key, payload)
            payload = (C.encode(_SEED_KEY, got) if isinstance(got, C.S.FileSummary)
                       else C.encode_problem(_SEED_KEY, *got))
        seeds.append(bytes([CACHE_NAMESPACES.index(ns)]) + payload)
    return seeds


def decode_cache_payload(data: bytes) -> object:
    """Run the decoder of the namespace ``data[0]`` names on the rest; a bad payload gives
    None (or raises the decoder's documented error, turned into None here)."""
    from gyrelint import analysis_cache
    from gyrelint.codec import CodecError
    from gyrelint.flake8_plugin import decode_findings
    from gyrelint.graphs.build import decode_resolution
    from gyrelint.index import cache as C
    from gyrelint.semantics.cache import decode as decode_semantics
    from gyrelint.settings import Settings

    cachestore.unframe(_SEED_KEY, data)  # the store's frame check reads the same untrusted bytes
    if not data:
        return None
    ns, payload = CACHE_NAMESPACES[data[0] % len(CACHE_NAMESPACES)], data[1:]
    if ns == "provenance":
        from gyrelint.graphs.incremental import decode as decode_provenance

        return decode_provenance(payload)
    if ns == "summaries":
        try:
            return C.decode_entry(_SEED_KEY, payload)
        except C.CacheError:
            return None
    if ns == "analysis":
        try:
            got = analysis_cache.decode(payload, Settings(cache_dir=Path("/nonexistent")), Path("/nonexistent"))
        except CodecError:
            return None
        blobs = got.graphs.pending() if isinstance(got.graphs, analysis_cache.LazyGraphs) else None
        if blobs is not None:  # the graphs decode on first use: decode them here too
            graphs = analysis_cache.decode_graphs(blobs)
            assert graphs is None or isinstance(graphs, analysis_cache.Graphs)
        return got
    from gyrelint.semantics.module_facts import decode as decode_module_facts
    from gyrelint.topology.file_cache import decode as decode_config

    decoder = {"configs": decode_config, "modfacts": decode_module_facts, "last": analysis_cache.decode_last, "graphs": decode_resolution, "semantics": decode_semantics,
               "findings": decode_findings}[ns]
    return decoder(payload)


def _cache(data: bytes) -> None:
    decode_cache_payload(data)


def targets() -> list[Target]:
    """Every stage that reads untrusted bytes, with its input strategy."""
    py_seeds = _read_seeds(SEEDS)
    cfg_seeds = _read_seeds(CONFIG_SEEDS)
    log_seeds = _read_seeds(LOG_SEEDS)
    with tempfile.TemporaryDirectory(prefix="gyrelint-fuzz-") as work:
        seeds = cache_seeds(Path(work))
    return [
        Target("parse/index", _parse, mutated(py_seeds) | random_text()),
        Target("parse/index, light paths", _parse_light, mutated(py_seeds) | random_text()),
        Target("config readers", _configs, mutated(cfg_seeds) | random_text()),
        Target("log reader", _logs, mutated(log_seeds) | random_text()),
        Target("cache decoder", _cache, st.binary(max_size=512) | mutated(seeds)),
    ]


def run(seconds: float, seed: int) -> list[Target]:
    found = targets()
    per_target = seconds / len(found)
    for target in found:
        deadline = time.monotonic() + per_target

        prop = _property(target)
        while time.monotonic() < deadline:
            prop()
    return found


def _property(target: Target, examples: int = 100, derandomize: bool = False) -> Callable[[], None]:
    """One round of ``examples`` inputs; the caller repeats rounds until its time is up (CI runs one
    derandomized round per target: tests/test_fuzz_budget.py)."""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=derandomize,
              suppress_health_check=list(HealthCheck))
    @given(target.inputs)
    def prop(data: bytes) -> None:
        target.tried += 1
        try:
            target.run(data)
        except Exception:  # noqa: BLE001 - every exception is a finding
            if len(target.crashes) < 20:
                target.crashes.append((data, traceback.format_exc(limit=3)))

    return prop


def report(targets: list[Target], seconds: float) -> str:
    lines = [
        "# Fuzzing",
        "",
        f"`bench/fuzz.py --seconds {seconds:g}`: hypothesis-driven inputs (real fixture files with random",
        "byte flips, truncations, repeated tokens such as 5,000 brackets, plus random token soup) fed to each",
        "stage that reads untrusted bytes. A crash is any exception escaping the stage.",
        "",
        "| target | inputs tried | crashes |",
        "|---|---:|---:|",
    ]
    for t in targets:
        lines.append(f"| {t.name} | {t.tried} | {len(t.crashes)} |")
    for t in targets:
        for data, tb in t.crashes[:3]:
            lines += ["", f"Crash in {t.name} on {data[:80]!r}:", "```", tb.strip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", type=Path)
    args = ap.parse_args()
    targets = run(args.seconds, args.seed)
    text = report(targets, args.seconds)
    print(text)
    if args.write:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(text)


if __name__ == "__main__":
    main()
