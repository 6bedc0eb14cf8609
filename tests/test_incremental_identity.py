"""After any edit, a run that reuses the cache answers exactly what a cold run answers.

Seeded random edit sequences (a function added, a body changed, a call target renamed, a
function deleted, an import added or removed, a comment edited, a class with a base added;
outside Python: a launcher added or removed, a ``.env`` key added) are applied to copies of
fixture repos. After each edit the repo is analyzed twice: with a cache that lives across the
whole sequence (whatever the caches reuse: the whole-run entry, its early cutoff, the
resolution and semantics entries, the summaries) and cold, with no cache. The ``analyze``
JSON reports must be identical, ``stats`` aside, and so must the ``graph`` JSON (every other
step: its entry is its own, or analyze's).

``test_the_harness_catches_an_unsound_key`` keys the resolution and semantics caches on
nothing but the file paths: the same sequences must then find a difference, so a passing
run of the identity test means something.
"""

from __future__ import annotations

import ast
import hashlib
import io
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gyrelint.api import analyze, analyze_graphs, demo_root
from gyrelint.render.graph_dump import write_json
from gyrelint.render.json_report import to_report
from gyrelint.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"
REPOS = {
    "demo": demo_root(),
    "chain": FIXTURES / "accuracy_chain",
    "handles": FIXTURES / "accuracy_handles",
    "weight_payload": FIXTURES / "accuracy_weight_payload",
    "param_groups": FIXTURES / "edit_param_groups",
}
STEPS = 6


def _report(root: Path, settings: Settings) -> dict:
    r = to_report(analyze(root, settings))
    r.pop("stats")
    return r


def _graph_json(root: Path, settings: Settings) -> str:
    """What ``gyrelint graph --format json`` prints (its own cache entry, or analyze's)."""
    out = io.StringIO()
    write_json(analyze_graphs(root, settings).graphs, "both", None, out)
    return out.getvalue()


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def _tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text())
    except SyntaxError:
        return None


def _top_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _all_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _names_defined(root: Path) -> list[str]:
    """Every function and method name of the repo (targets for calls the edits write)."""
    names: set[str] = set()
    for p in _python_files(root):
        tree = _tree(p)
        if tree is not None:
            names.update(f.name for f in _all_functions(tree) if not f.name.startswith("__"))
    return sorted(names)


# ---- edits: each returns the new text of one file, or None when it does not apply ------------

def add_function(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    callee = rng.choice(names) if names else "print"
    return text.rstrip("\n") + f"\n\n\ndef added_fn_{n}(state, batch):\n    out = state.{callee}(batch)\n" \
        f"    return {callee}(out)\n"


def change_body(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    fns = [f for f in _all_functions(tree) if f.body]
    if not fns:
        return None
    f = rng.choice(fns)
    first = f.body[0]
    lines = text.splitlines(keepends=True)
    indent = " " * first.col_offset
    callee = rng.choice(names) if names else "len"
    new = f"{indent}probe_{n} = self_or_arg = {callee}({', '.join(a.arg for a in f.args.args[:2])})\n"
    lines.insert(first.lineno - 1, new)
    return "".join(lines)


def rename_call(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))
             and c.func.end_lineno == c.func.lineno]
    if not calls or len(names) < 2:
        return None
    c = rng.choice(calls)
    old = c.func.id if isinstance(c.func, ast.Name) else c.func.attr
    new = rng.choice([x for x in names if x != old])
    lines = text.splitlines(keepends=True)
    line = lines[c.func.end_lineno - 1]  # type: ignore[operator]
    end = c.func.end_col_offset  # the name is the last thing before the parenthesis
    assert end is not None
    start = end - len(old)
    if line[start:end] != old:
        return None
    lines[c.func.end_lineno - 1] = line[:start] + new + line[end:]  # type: ignore[operator]
    return "".join(lines)


def delete_function(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    fns = _top_functions(tree)
    if not fns:
        return None
    f = rng.choice(fns)
    start = min([f.lineno, *(d.lineno for d in f.decorator_list)])
    lines = text.splitlines(keepends=True)
    del lines[start - 1:f.end_lineno]
    return "".join(lines)


def add_import(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    where = 0
    for node in tree.body:  # after the docstring and the imports at the top (__future__ first)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            where = node.end_lineno or where
        else:
            break
    lines = text.splitlines(keepends=True)
    new = rng.choice(["import torch.distributed as dist\n", "from vllm import LLM\n", "import ray\n",
                      "import queue\n", "from torch import optim\n"])
    lines.insert(where, new)
    return "".join(lines)


def remove_import(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    imports = [i for i in tree.body if isinstance(i, (ast.Import, ast.ImportFrom)) and i.lineno == i.end_lineno
               and not (isinstance(i, ast.ImportFrom) and i.module == "__future__")]
    if not imports:
        return None
    imp = rng.choice(imports)
    lines = text.splitlines(keepends=True)
    del lines[imp.lineno - 1]
    return "".join(lines)


def comment_edit(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    return text.rstrip("\n") + f"\n# edited {n}: nothing a stage reads\n"


def add_class(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    classes = [c.name for c in tree.body if isinstance(c, ast.ClassDef)]
    base = rng.choice(classes) if classes else "object"
    callee = rng.choice(names) if names else "run"
    return text.rstrip("\n") + f"\n\n\nclass Added{n}({base}):\n    def step(self, batch):\n" \
        f"        return self.{callee}(batch)\n"


EDITS: list[Callable[..., str | None]] = [add_function, change_body, rename_call, delete_function, add_import,
                                          remove_import, comment_edit, add_class]


# ---- edits aimed at the semantics stage: a function's own evidence, and what other functions' facts read

_SIDE_LINES = (  # (import, statement): strong evidence of one side each, through a library the import names
    ("import torch", "torch.optim.SGD([], lr=0.1).step()"),
    ("import vllm", "vllm.LLM(model='m').generate(['prompt'])"),
    ("import torch.distributed as dist", "dist.broadcast(probe_tensor, src=0)"),
    ("import queue", "queue.Queue().put(probe_batch)"),
)


def side_call(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    """A body edit that changes the function's own side: one call with strong evidence of a side
    (an optimizer step, an inference engine's generate, a broadcast, a queue put) at the top."""
    fns = [f for f in _all_functions(tree) if f.body]
    if not fns:
        return None
    f = rng.choice(fns)
    imp, stmt = rng.choice(_SIDE_LINES)
    first = f.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + stmt + "\n")
    lines.insert(_import_line(tree), imp + "\n")  # above the body: the body's line number is already used
    return "".join(lines)


def _import_line(tree: ast.Module) -> int:
    """Where a new import goes: after the docstring and the imports at the top (``__future__`` first)."""
    where = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            where = node.end_lineno or where
        else:
            break
    return where


def class_role(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    """An edit in one module that changes the facts of functions elsewhere: a class gains the
    methods of an interface (``step``/``reset``: an environment; ``step``/``zero_grad``: an
    optimizer), so calls on its instances, in any module, get that receiver role."""
    classes = [c for c in tree.body if isinstance(c, ast.ClassDef)]
    if not classes:
        return None
    c = rng.choice(classes)
    have = {f.name for f in c.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    wanted = rng.choice([("step", "reset"), ("step", "zero_grad")])
    add = [m for m in wanted if m not in have]
    if not add:
        return None
    indent = " " * (c.body[0].col_offset if c.body else 4)
    body = "".join(f"\n{indent}def {m}(self, *args):\n{indent}    return args\n" for m in add)
    lines = text.splitlines(keepends=True)
    end = c.end_lineno or len(lines)
    if not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    lines.insert(end, body)
    return "".join(lines)


SEMANTIC_EDITS: list[Callable[..., str | None]] = [side_call, side_call, class_role, change_body, add_function]


def param_group(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    """A body edit that makes the function build an optimizer parameter group, as a flow (a list of
    dicts assigned) or inside a call's arguments: a fact of the module's own records
    (``semantics/module_facts.py``), kept per module across runs."""
    fns = [f for f in _all_functions(tree) if f.body]
    if not fns:
        return None
    f = rng.choice(fns)
    arg = f.args.args[-1].arg if f.args.args else "None"
    stmt = rng.choice([f'groups_{n} = [{{"params": {arg}, "lr": 0.1}}]',
                       f'probe_{n} = print([{{"params": {arg}, "momentum": 0.9}}])'])
    first = f.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + stmt + "\n")
    return "".join(lines)


def drop_group_knob(text: str, tree: ast.Module, rng: random.Random, names: list[str], n: int) -> str | None:
    """The reverse: one parameter group loses its optimizer knob (``"lr"`` renamed), so it is a
    plain dict from then on."""
    for knob in rng.sample(['"lr"', '"weight_decay"', '"momentum"', '"eps"'], 4):
        if knob in text:
            return text.replace(knob, f'"knob_{n}"', 1)
    return None


PARAM_GROUP_EDITS: list[Callable[..., str | None]] = [param_group, drop_group_knob, change_body, add_function,
                                                        side_call]


def add_launcher(root: Path, rng: random.Random, n: int) -> str:
    """A shell launcher that starts one module: a new entry point, no Python file changed (the
    per-stage caches keyed by Python files alone are then hit while reachability moves)."""
    mod = rng.choice(_python_files(root)).relative_to(root).with_suffix("").as_posix().replace("/", ".")
    mod = mod.removesuffix(".__init__")
    (root / "scripts").mkdir(exist_ok=True)
    (root / "scripts" / f"launch_{n}.sh").write_text(f"#!/bin/sh\npython -m {mod} \"$@\"\n")
    return f"add_launcher {mod}"


def env_edit(root: Path, rng: random.Random, n: int) -> str:
    """A layout key appended to a ``.env`` file (the topology stage reads them; discovery lists none)."""
    key = rng.choice(["MASTER_PORT", "NUM_ROLLOUT_WORKERS", "VLLM_PORT", "TRAINER_NNODES", "WORLD_SIZE"])
    env = root / ".env"
    with env.open("a", encoding="utf-8") as fh:
        fh.write(f"{key}_{n}={8000 + n}\n")
    return f"env_edit {key}_{n}"


def remove_launcher(root: Path, rng: random.Random, n: int) -> str | None:
    """Delete a shell launcher or a README: entry points go away, Python files stay as they were."""
    found = sorted(p for p in root.rglob("*") if p.is_file() and (p.suffix == ".sh" or p.name == "README.md"))
    if not found:
        return None
    gone = rng.choice(found)
    gone.unlink()
    return f"remove_launcher {gone.relative_to(root)}"


def apply_random_edit(root: Path, rng: random.Random, n: int,
                      edits: list[Callable[..., str | None]] | None = None) -> str:
    """One edit to one file of ``root``; returns what was done (for the failure message)."""
    files = _python_files(root)
    names = _names_defined(root)
    if edits is None and rng.random() < 0.25:  # outside the Python files: launchers, READMEs, .env files
        done = rng.choice([add_launcher, add_launcher, remove_launcher, env_edit])(root, rng, n)
        if done is not None:
            return done
    for _ in range(20):
        path = rng.choice(files)
        edit = rng.choice(edits or EDITS)
        text = path.read_text()
        tree = _tree(path)
        if tree is None:
            continue
        new = edit(text, tree, rng, names, n)
        if new is None or new == text:
            continue
        try:
            ast.parse(new)
        except SyntaxError:
            continue
        path.write_text(new)
        return f"{edit.__name__} {path.relative_to(root)}"
    return "no edit applied"


def run_sequence(name: str, tmp_path: Path, seed: int,
                 edits: list[Callable[..., str | None]] | None = None) -> list[str]:
    """Apply STEPS edits (drawn from ``edits``, else from every kind); after each, compare the
    cached run with a cold one. Returns the edits whose cached report differed."""
    root = tmp_path / name
    shutil.copytree(REPOS[name], root)
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    cold = Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False)
    rng = random.Random(f"{name}:{seed}" if edits is None else f"{name}:{seed}:semantic")
    _report(root, warm)  # fill the cache
    wrong = []
    for n in range(STEPS):
        what = apply_random_edit(root, rng, n, edits)
        if _report(root, warm) != _report(root, cold):
            wrong.append(f"step {n}: {what}")
        if n % 2 and _graph_json(root, warm) != _graph_json(root, cold):  # the graph command, every other step
            wrong.append(f"step {n} (graph): {what}")
    return wrong


SEQUENCES = [("demo", 1), ("demo", 2), ("demo", 3), ("demo", 4), ("chain", 1), ("chain", 2), ("handles", 1),
             ("weight_payload", 1)]  # demo 4, chain 2: through the decode that finds shared arrays by hash


@pytest.mark.parametrize(("name", "seed"), SEQUENCES)
def test_cached_run_after_edits_equals_a_cold_run(name: str, seed: int, tmp_path: Path) -> None:
    assert run_sequence(name, tmp_path, seed) == []


def test_the_sequences_take_every_resolution_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After an edit the resolution is reused, replayed in a cone, or run whole (graphs/incremental.py):
    the sequences above must reach all three, so their equality with cold covers each path."""
    from gyrelint.graphs import incremental

    taken: list[str] = []
    real = incremental.resolve_after_edit

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the spied function's signature
        out = real(*args, **kwargs)
        if out.path != "full:no previous run":  # each sequence's first run
            taken.append(out.path.partition(":")[0])
        return out

    monkeypatch.setattr(incremental, "resolve_after_edit", spy)
    for name, seed in (("chain", 1), ("handles", 1)):
        assert run_sequence(name, tmp_path / name, seed) == []
    assert {"reuse", "cone", "full"} <= set(taken), taken


# sequences of edits aimed at the semantics stage (a function's side, another module's class role)
SEMANTIC_SEQUENCES = [("demo", 1), ("demo", 2), ("handles", 1), ("weight_payload", 1)]


@pytest.mark.parametrize(("name", "seed"), SEMANTIC_SEQUENCES)
def test_semantic_edits_equal_a_cold_run(name: str, seed: int, tmp_path: Path) -> None:
    assert run_sequence(name, tmp_path, seed, SEMANTIC_EDITS) == []


PARAM_GROUP_SEQUENCES = [("param_groups", 1), ("param_groups", 2), ("demo", 5)]


@pytest.mark.parametrize(("name", "seed"), PARAM_GROUP_SEQUENCES)
def test_module_fact_edits_equal_a_cold_run(name: str, seed: int, tmp_path: Path) -> None:
    assert run_sequence(name, tmp_path, seed, PARAM_GROUP_EDITS) == []


def test_the_module_fact_edits_catch_a_module_facts_key_blind_to_content(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Each module's facts keyed by its path only (the whole-run, resolution and semantics keys stay
    sound, so the semantics stage runs again and reads the stale facts): the sequences must find a
    difference, so their equality with cold covers the per-module entries."""
    from gyrelint.semantics import module_facts

    monkeypatch.setattr(module_facts, "entry_key",
                        lambda summary: hashlib.sha256(f"modfacts\0{summary.path}".encode()).hexdigest())
    wrong = [w for name, seed in PARAM_GROUP_SEQUENCES[:2] for w in run_sequence(name, tmp_path / f"{name}{seed}",
                                                                               seed, PARAM_GROUP_EDITS)]
    assert wrong, "a module-facts key blind to content went unnoticed: the sequences prove nothing"


def _semantics_key_without_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Key the semantics entry on file paths and reachability only (the resolution key stays sound)."""
    from gyrelint.semantics import cache as sem_cache

    real = sem_cache.cache_path

    def sem_paths_only(index, settings, reached):  # noqa: ANN001, ANN202
        entry = real(index, settings, reached)
        key = hashlib.sha256("\0".join([*sorted(index.summaries), "reached", *sorted(reached)]).encode()).hexdigest()
        return None if entry is None else sem_cache.Entry(entry.cache_dir, key)

    monkeypatch.setattr(sem_cache, "cache_path", sem_paths_only)


def test_the_semantic_edits_catch_a_semantics_key_blind_to_content(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The semantic sequences reach the semantics entry itself: with only that key unsound
    (blind to what the files say), they must find a difference."""
    _semantics_key_without_content(monkeypatch)
    wrong = [w for name, seed in SEMANTIC_SEQUENCES[:2] for w in run_sequence(name, tmp_path / f"{name}{seed}",
                                                                            seed, SEMANTIC_EDITS)]
    assert wrong, "an unsound semantics key went unnoticed: the semantic sequences prove nothing"


_BOX = "class Box:\n    def __init__(self):\n        self.count = 0\n\n    def step(self, *args):\n" \
       "        self.count += 1\n"
_USER = "from pkg.box import Box\n\n\nclass Runner:\n    def __init__(self):\n        self.box = Box()\n\n" \
        "    def run(self, loss):\n        loss.backward()\n        self.box.step()\n        return loss\n"


def test_a_class_role_edit_reaches_the_facts_of_another_module(tmp_path: Path) -> None:
    """``Box`` gains ``zero_grad``: it is an optimizer by its methods, so ``self.box.step()`` in
    another module is an optimizer step from then on. The edited module is not the caller's:
    a reuse keyed by the caller's own code (or its module) would keep the old answer."""
    root = tmp_path / "two"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "box.py").write_text(_BOX)
    (root / "pkg" / "runner.py").write_text(_USER)
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    cold = Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False)
    before = _report(root, warm)
    (root / "pkg" / "box.py").write_text(_BOX + "\n    def zero_grad(self):\n        self.count = 0\n")
    after = _report(root, warm)
    assert after == _report(root, cold)
    assert after["functions"] != before["functions"], "the edit must change what the caller's facts say"


def test_the_harness_catches_an_unsound_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolution and semantics keyed by file paths only: edits must show up as differences."""
    from gyrelint.graphs import build
    from gyrelint.semantics import cache as sem_cache

    def paths_only(sums):  # noqa: ANN001, ANN202 - the patched function's signature
        return hashlib.sha256(",".join(sorted(s.path for s in sums)).encode()).hexdigest()

    monkeypatch.setattr(build, "_resolution_key", paths_only)
    real = sem_cache.cache_path

    def sem_paths_only(index, settings, reached):  # noqa: ANN001, ANN202
        entry = real(index, settings, reached)
        key = hashlib.sha256(",".join(sorted(index.summaries)).encode()).hexdigest()
        return None if entry is None else sem_cache.Entry(entry.cache_dir, key)

    monkeypatch.setattr(sem_cache, "cache_path", sem_paths_only)
    wrong = [w for name in ("demo", "chain") for w in run_sequence(name, tmp_path / name, 1)]
    assert wrong, "an unsound cache key went unnoticed: the identity test proves nothing"


def test_an_entry_point_added_outside_python_reaches_the_cached_semantics(tmp_path: Path) -> None:
    """A console script added to pyproject.toml changes what is reached, not one Python file.

    The repo holds the demo loop twice; the copy has no main guard, so it is reached only
    once a console script names its ``main``. The handoff lists put reached carriers first
    and the boundary modules are the reached ones: the semantics entry, keyed by the Python
    files alone, answered with the lists of the run before (the copy's carriers missing).
    """
    root = tmp_path / "two"
    root.mkdir()
    shutil.copytree(demo_root() / "minirl", root / "minirl")
    copy = root / "minirl_b"
    shutil.copytree(demo_root() / "minirl", copy)
    for p in copy.glob("*.py"):
        text = p.read_text().replace("minirl.", "minirl_b.").replace("from minirl import", "from minirl_b import")
        p.write_text(text.replace('if __name__ == "__main__":\n    sys.exit(main())\n', ""))
    project = '[project]\nname = "two"\nversion = "0"\n'
    (root / "pyproject.toml").write_text(project)
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    cold = Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False)
    before = _report(root, warm)
    assert not any(q.startswith("minirl_b.") for q in before["handoff"]["trajectory"])
    (root / "pyproject.toml").write_text(project + '[project.scripts]\nb = "minirl_b.main:main"\n')
    after = _report(root, warm)
    assert any(q.startswith("minirl_b.") for q in after["handoff"]["trajectory"])
    assert after == _report(root, cold)


def test_a_dotenv_edit_reaches_the_topology(tmp_path: Path) -> None:
    """``.env`` files are read by the topology stage but listed by no discovery: the whole-run
    key did not cover them, and a port added there was missing from the next cached run."""
    root = tmp_path / "demo"
    shutil.copytree(demo_root(), root)
    (root / ".env").write_text("MASTER_PORT=29500\n")
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    _report(root, warm)
    (root / ".env").write_text("MASTER_PORT=29500\nVLLM_PORT=8000\n")
    after = _report(root, warm)
    assert "VLLM_PORT" in {k["key"] for k in after["topology"]["config_keys"]}
    assert after == _report(root, Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False))


# --- config files: their keys are kept per file by content (topology/file_cache.py) ------------

CONFIG_REPOS = {"demo": demo_root(), "topology_cross": FIXTURES / "topology_cross"}
_CONFIG_KEYS = ["num_workers", "master_port", "tensor_parallel_size", "nnodes", "colocate", "backend", "lr"]


def _config_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".toml", ".json", ".ini")
                  and p.name != "labels.json")


def config_edit(root: Path, rng: random.Random, n: int) -> str:
    """One edit to a config file the topology stage reads: a key added, a value changed, a
    duplicate key (a diagnostic), the file broken (a diagnostic, keys after it lost) or a new
    YAML file beside the others."""
    files = _config_files(root)
    kind = rng.choice(["add", "add", "value", "duplicate", "break", "new"]) if files else "new"
    key = f"{rng.choice(_CONFIG_KEYS)}_{n}" if rng.random() < 0.5 else rng.choice(_CONFIG_KEYS)
    if kind == "new":
        folder = (files[0].parent if files else root / "configs")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"added_{n}.yaml"
        path.write_text(f"rollout:\n  {key}: {n + 2}\n  port: {9000 + n}\n")
        return f"config new {path.relative_to(root)}"
    path = rng.choice(files)
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        line = {"add": f"{key}: {n + 2}\n", "value": f"num_workers: {n + 3}\n", "duplicate": "seed: 1\nseed: 2\n",
                "break": "oops: [unclosed\n"}[kind]
    elif path.suffix == ".toml":
        line = {"add": f"{key}_t = {n + 2}\n", "value": f"workers_{n} = {n + 3}\n", "duplicate": f"dup_{n} = 1\n",
                "break": "= broken\n"}[kind]
    elif path.suffix == ".ini":
        line = f"{key}_i = {n + 2}\n" if kind != "break" else "[unclosed\n"
    else:  # JSON: a key first in the top object, or a trailing comma
        if "{" not in text:
            return "no edit applied"
        new = text.rstrip().removesuffix("}") + ",}\n" if kind == "break" else \
            text.replace("{", f'{{"{key}_j": {n + 2}, ', 1)
        path.write_text(new)
        return f"config {kind} {path.relative_to(root)}"
    path.write_text(text.rstrip("\n") + "\n" + line)
    return f"config {kind} {path.relative_to(root)}"


def run_config_sequence(name: str, tmp_path: Path, seed: int) -> list[str]:
    """Config edits mixed with code edits; after each, the cached run against a cold one."""
    root = tmp_path / name
    shutil.copytree(CONFIG_REPOS[name], root)
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    cold = Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False)
    rng = random.Random(f"{name}:{seed}:config")
    _report(root, warm)
    wrong = []
    for n in range(STEPS):
        what = config_edit(root, rng, n) if rng.random() < 0.7 else apply_random_edit(root, rng, n, EDITS)
        if _report(root, warm) != _report(root, cold):
            wrong.append(f"step {n}: {what}")
    return wrong


@pytest.mark.parametrize(("name", "seed"), [("demo", 1), ("topology_cross", 1), ("topology_cross", 2)])
def test_config_edits_equal_a_cold_run(name: str, seed: int, tmp_path: Path) -> None:
    assert run_config_sequence(name, tmp_path, seed) == []


def test_the_config_edits_catch_a_file_cache_blind_to_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config files' keys keyed by path only: the same sequences must then differ from cold."""
    from gyrelint.topology import file_cache

    monkeypatch.setattr(file_cache, "_key", lambda rel, kind, text: hashlib.sha256(rel.encode()).hexdigest())
    wrong = [w for name, seed in (("topology_cross", 1), ("topology_cross", 2))
             for w in run_config_sequence(name, tmp_path / f"{name}{seed}", seed)]
    assert wrong, "a file cache blind to content went unnoticed: the config identity test proves nothing"


def test_a_bad_file_cache_entry_is_read_again(tmp_path: Path) -> None:
    """Entries of the config files' cache that do not decode (forged, truncated, another
    file's) are misses: the run answers as a cold one."""
    from gyrelint.cachestore import open_store
    from gyrelint.topology import file_cache

    root = tmp_path / "cross"
    shutil.copytree(CONFIG_REPOS["topology_cross"], root)
    warm = Settings(cache_dir=tmp_path / "cache", jobs=1)
    cold = _report(root, Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False))
    assert _report(root, warm) == cold
    keys: list[str] = []
    real = file_cache._key

    def spy(rel: str, kind: str, text: str) -> str:
        keys.append(real(rel, kind, text))
        return keys[-1]

    file_cache_key = pytest.MonkeyPatch()
    file_cache_key.setattr(file_cache, "_key", spy)
    try:
        (root / "settings.toml").write_text((root / "settings.toml").read_text() + "\n")  # whole-run entry misses
        assert _report(root, warm) == _report(root, Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False))
    finally:
        file_cache_key.undo()
    assert keys
    store = open_store(tmp_path / "cache")
    forged = [b"", b"\x93\x01\x02", file_cache._codec()[0].pack((None, ((1, 2),), (), ())),
              file_cache._codec()[0].pack(file_cache._codec()[1].enc(file_cache.FileKeys(
                  file_cache.YamlFile("elsewhere.yaml"), [], [], [])))]
    for i, key in enumerate(keys):
        store.put(file_cache.NAMESPACE, key, forged[i % len(forged)])
    (root / "settings.toml").write_text((root / "settings.toml").read_text() + "\n")
    assert _report(root, warm) == _report(root, Settings(cache_dir=tmp_path / "unused", jobs=1, use_cache=False))
