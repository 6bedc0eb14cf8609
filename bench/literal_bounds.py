"""Time and peak memory of ``gyrelint analyze`` on a repo holding a generated data module.

Usage::

    python bench/literal_bounds.py [--cases list,dict_of_lists,...] [--before] [--corpus [--parse-baseline] [--corpora verl,areal]]

Each case writes a small repo (an ordinary package plus one generated module, all written
here) to a temporary folder and runs ``python -m gyrelint analyze --format json`` on it in a
child process with an empty cache of its own. Peak RSS is the largest process of that run
(the CLI or one of its parse workers), read from ``getrusage(RUSAGE_CHILDREN)`` in a fresh
wrapper process per run. ``ref`` is the same repo without the generated module, timed in
the same run; ``x ref`` is the ratio. ``--before`` also times the run with the pre-check
turned off (the full libcst parse of the literal, what gyrelint did before), with a 300 s
time limit. ``--corpus`` prints, for the real corpora, the largest pure literal group and
the largest file in tokens, and how many modules take the light path (the thresholds in
``gyrelint.index.precheck`` are chosen so that none does); ``--parse-baseline`` adds what the
pre-check costs on them against a bare ``libcst.parse_module`` of every file.

Targets (issue 16, deliverable 5): the 3.9 MB list module within 1 GiB and 30 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPORA = Path.home() / ".cache/gyrelint-corpora/src"
ORDINARY = {
    "pkg/__init__.py": "from .train import Trainer\n",
    "pkg/train.py": (
        "import torch\nfrom .data import TABLE\n\n\nclass Trainer:\n"
        "    def __init__(self, model):\n        self.opt = torch.optim.AdamW(model.parameters())\n\n"
        "    def step(self, batch):\n        loss = self.model(batch).mean()\n        loss.backward()\n"
        "        self.opt.step()\n        return len(TABLE)\n"
    ),
}


def data_list(n: int = 400_000) -> str:
    """``DATA = [...]``: 400k small ints and strings, 3.9 MB on one line."""
    r = random.Random(0)
    items = [str(r.randint(0, 99999)) if i % 2 else repr(f"tok_{r.randint(0, 99999):05d}") for i in range(n)]
    return "import os\n\nTABLE = [" + ", ".join(items) + "]\n\n\ndef size():\n    return len(TABLE)\n"


def dict_of_lists(keys: int = 11_500, per: int = 60) -> str:
    """``TABLE = {"k0": [...], ...}``: 11.5k keys of 60 ints, one key per line, 3.9 MB."""
    r = random.Random(1)
    body = ",\n".join(f'    "k{k}": [' + ", ".join(str(r.randint(-999, 999)) for _ in range(per)) + "]"
                      for k in range(keys))
    return "from .train import Trainer\n\nTABLE = {\n" + body + "\n}\n"


def deep_nested(n: int = 100_000) -> str:
    """``TABLE = [[[[...]]]]``, 100k deep."""
    return "import json\n\nTABLE = " + "[" * n + "]" * n + "\n\n\ndef dump():\n    return json.dumps(TABLE)\n"


def code_bomb(n: int = 100_000) -> str:
    """100k statements of ordinary code (3.6 MB, 1.2M tokens): no literal to elide."""
    return "import os\n" + "".join(f"v{i} = os.path.join('a', 'b{i}')\n" for i in range(n)) + "TABLE = []\n"


def tall_list(n: int = 800_000) -> str:
    """``TABLE = [`` one int per line ``]``: 800k lines, 3.9 MB."""
    return "import os\n\nTABLE = [\n" + "".join(f"{i % 997},\n" for i in range(n)) + "]\n\n\ndef size():\n    return 1\n"


def blank_lines(n: int = 3_900_000) -> str:
    """3.9 MB of line breaks around two statements: no token, no literal."""
    return "import os\n" + "\n" * n + "def late():\n    return os.sep\n"


def parens(n: int = 5000) -> str:
    return "import os\nTABLE = " + "(" * n + "1" + ")" * n + "\n"


def long_expr(nbytes: int = 1_000_000) -> str:
    return "import os\nTABLE = " + "+".join(["a1"] * (nbytes // 3)) + "\n"


def escapes(n: int = 1_000_000) -> str:
    return "import os\nTABLE = \"" + "\\n" * n + "\"\n"


CASES = {"list": data_list, "dict_of_lists": dict_of_lists, "deep_nested": deep_nested, "tall_list": tall_list,
         "code_bomb": code_bomb, "blank_lines": blank_lines,
         "parens_5000": parens, "long_expr_1mb": long_expr, "escapes_1m": escapes}
BEFORE = ("import gyrelint.index as i; i.may_hold_bulk = lambda *a: False; import runpy; "
          "runpy.run_module('gyrelint', run_name='__main__', alter_sys=True)")


def write_repo(root: Path, data: str | None) -> None:
    for rel, text in ORDINARY.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if data is not None:
        (root / "pkg/data.py").write_text(data)


def measure(args: list[str], cache: Path, timeout: float) -> dict:
    """Run ``python <args>`` through a fresh wrapper process: wall seconds, peak RSS, output."""
    env = dict(os.environ, GYRELINT_CACHE_DIR=str(cache))
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", str(timeout), *args], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def child(timeout: float, args: list[str]) -> None:
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout)
        rc, stdout = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired:
        rc, stdout = None, ""
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"wall": wall, "rss_mib": peak, "rc": rc, "stdout": stdout}))


def diagnostics(stdout: str) -> list[str]:
    try:
        report = json.loads(stdout)
    except ValueError:
        return ["(no JSON report)"]
    return [f"{d['file']}:{d['line']}: [{d['kind']}] {d['message']}" for d in report.get("diagnostics", [])]


def run_cases(names: list[str], before: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="gyrelint-bounds-") as tmp:
        base = Path(tmp)
        ref_repo = base / "ref"
        write_repo(ref_repo, None)
        ref = measure(["-m", "gyrelint", "analyze", str(ref_repo), "--format", "json"], base / "c-ref", 300)
        print(f"{'case':<15} {'size':>8} {'wall s':>7} {'x ref':>6} {'peak RSS':>10}  light path / diagnostic")
        print(f"{'ref':<15} {'':>8} {ref['wall']:7.2f} {1:6.2f} {ref['rss_mib']:7.0f} MiB")
        for name in names:
            repo = base / name
            data = CASES[name]()
            write_repo(repo, data)
            got = measure(["-m", "gyrelint", "analyze", str(repo), "--format", "json"], base / f"c-{name}", 300)
            diag = [d for d in diagnostics(got["stdout"]) if "pkg/data.py" in d] or ["(none)"]
            size = f"{len(data.encode()) / 1e6:.2f} MB"
            print(f"{name:<15} {size:>8} {got['wall']:7.2f} {got['wall'] / ref['wall']:6.2f} "
                  f"{got['rss_mib']:7.0f} MiB  exit {got['rc']}; {diag[0]}")
            if before:
                old = measure(["-c", BEFORE, "analyze", str(repo), "--format", "json"], base / f"b-{name}", 300)
                wall = "> 300" if old["rc"] is None else f"{old['wall']:.2f}"
                diag = [d for d in diagnostics(old["stdout"]) if "pkg/data.py" in d] or ["(none)"]
                print(f"{'  before':<15} {'':>8} {wall:>7} {'':>6} {old['rss_mib']:7.0f} MiB  exit {old['rc']}; {diag[0]}")


def corpus(names: list[str], parse_baseline: bool) -> None:
    """Figures on the real corpora; with ``parse_baseline``, the pre-check's cost (the byte
    count on every file, the scan of the files it flags) against a bare ``libcst.parse_module``
    of every file, timed in the same run."""
    import libcst

    from gyrelint.index import precheck as P

    print(f"{'corpus':<13} {'modules':>7} {'scanned':>7} {'light':>5}  {'largest pure group (tokens)':<36}"
          f"{'costliest file (tokens + 3/line)':<40} pre-check s / parse s")
    for name in names:
        paths = sorted((CORPORA / name).rglob("*.py"))
        if not paths:
            print(f"{name:<13} (missing: scripts/fetch_corpora.sh; transformers: pip download transformers==4.57.1)")
            continue
        scanned, light, cost, parse = 0, 0, 0.0, 0.0
        group: tuple[int, str] = (0, "")
        tokens: tuple[int, str] = (0, "")
        for p in paths:
            data = p.read_bytes()
            start = time.perf_counter()
            if P.may_hold_bulk(data):  # what the index pays for this file
                pre = P.scan(data)
                scanned += 1
                light += bool(pre.bulks) or not pre.complete or pre.cost > P.MAX_COST
            cost += time.perf_counter() - start
            if parse_baseline:
                start = time.perf_counter()
                libcst.parse_module(data)
                parse += time.perf_counter() - start
            full = P.scan(data, min_group=P.MIN_GROUP, max_cost=10**9)  # every file, for the figures
            rel = str(p.relative_to(CORPORA / name))
            group = max(group, (full.largest_group, rel))
            tokens = max(tokens, (full.cost, rel))
        ratio = f"{cost:.2f} / {parse:.1f} = {cost / parse:.3f}" if parse else "-"
        print(f"{name:<13} {len(paths):7} {scanned:7} {light:5}  {group[0]:6,} {group[1][-28:]:<29} "
              f"{tokens[0]:7,} {tokens[1][-31:]:<32} {ratio}")
    print(f"thresholds: MIN_GROUP {P.MIN_GROUP:,} tokens in one pure literal group, MAX_COST {P.MAX_COST:,} (tokens + {P.LINE_WEIGHT} per line)")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(float(sys.argv[2]), sys.argv[3:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--before", action="store_true", help="also time the full parse (pre-check off)")
    ap.add_argument("--corpus", action="store_true", help="only print the corpus figures")
    ap.add_argument("--parse-baseline", action="store_true", help="with --corpus: time the pre-check against libcst")
    ap.add_argument("--corpora", default="verl,openrlhf,trl,areal,transformers")
    args = ap.parse_args()
    if args.corpus:
        corpus([c for c in args.corpora.split(",") if c], args.parse_baseline)
        return
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (wall seconds grow with it; RSS does not)")
    run_cases([c for c in args.cases.split(",") if c], args.before)


if __name__ == "__main__":
    main()
