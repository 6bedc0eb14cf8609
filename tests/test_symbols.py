"""The one symbol table (graphs/symbols.py), and the stages that used to resolve names on
their own now agreeing with it and with the call resolver."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from repo_tree import write_tree

from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import Graphs, build_graphs
from gyrelint.graphs.symbols import SymbolTable, build_symbols, symbols_of
from gyrelint.index import Index, build_index
from gyrelint.semantics.facts import build_facts, canon_in
from gyrelint.settings import Settings
from gyrelint.topology.names import Namer

M = "<module>"

# a tiny RL package written for this test: re-exports, aliases, relative and star imports
REPO = {
    "pkg/__init__.py": "from .core import Trainer\nfrom .algos import *\n",
    "pkg/algos.py": "__all__ = ['grpo']\n\ndef grpo():\n    pass\n\ndef ppo():\n    pass\n",
    "pkg/base.py": "class Base:\n    def step(self):\n        pass\n",
    "pkg/engine/__init__.py": "",
    "pkg/engine/vllm.py": "class Engine:\n    def generate(self, prompts):\n        return prompts\n",
    "pkg/core.py": (
        "import torch.distributed as dist\n"
        "import pkg.engine.vllm as eng\n"
        "from .base import Base as _Base\n\n\n"
        "class Trainer(_Base):\n"
        "    def __init__(self):\n"
        "        self.engine = eng.Engine()\n\n"
        "    def fit(self):\n"
        "        dist.broadcast(self.engine.generate([]))\n"
        "        self.step()\n\n\n"
        "def run():\n"
        "    dist = 3\n"
        "    return dist\n"
    ),
    "pkg/cli/__init__.py": "from .main import main\n",
    "pkg/cli/main.py": "def main():\n    pass\n",
}


def _index(tmp_path: Path, files: dict[str, str]) -> tuple[Index, Settings]:
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1, use_cache=False)
    return build_index(write_tree(tmp_path / "repo", files), settings), settings


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> SymbolTable:
    index, _ = _index(tmp_path_factory.mktemp("sym"), REPO)
    return symbols_of(index)


def test_reexport_through_package_init(table: SymbolTable) -> None:
    assert table.resolve_dotted("pkg.Trainer") == "pkg.core.Trainer"
    assert table.resolve_in("pkg", M, "Trainer") == "pkg.core.Trainer"
    # an attribute the package binds beats its submodule of the same name
    assert table.attribute("pkg.cli", "main") == "pkg.cli.main.main"


def test_import_as_and_relative_imports(table: SymbolTable) -> None:
    imports = table.import_map("pkg.core")
    assert imports["eng"] == "pkg.engine.vllm"
    assert imports["dist"] == "torch.distributed"
    assert imports["_Base"] == "pkg.base.Base"
    assert table.resolve_in("pkg.core", M, "eng.Engine") == "pkg.engine.vllm.Engine"
    assert table.resolve_in("pkg.core", M, "dist.broadcast") == "torch.distributed.broadcast"


def test_star_import_honours_all(table: SymbolTable) -> None:
    assert table.resolve_in("pkg", M, "grpo") == "pkg.algos.grpo"
    assert table.resolve_in("pkg", M, "ppo") is None  # not in __all__
    assert table.resolve_dotted("pkg.ppo") == "pkg.ppo"  # unknown: handed back as it is


def test_method_through_base_class_in_another_module(table: SymbolTable) -> None:
    assert table.classes["pkg.core.Trainer"].bases == ("pkg.base.Base",)
    assert table.method_of("pkg.core.Trainer", "step") == "pkg.base.Base.step"
    assert table.resolve_dotted("pkg.Trainer.step") == "pkg.base.Base.step"
    assert table.resolve_in("pkg.core", "Trainer.fit", "self.step") == "pkg.base.Base.step"
    assert table.class_of_method("pkg.base.Base.step") == "pkg.base.Base"
    assert table.definitions["pkg.base.Base.step"].method_kind == "inst"


def test_self_attribute_typed_by_its_constructor(table: SymbolTable) -> None:
    assert table.attr_type("pkg.core.Trainer", "engine") == "pkg.engine.vllm.Engine"
    assert table.resolve_in("pkg.core", "Trainer.fit", "self.engine.generate") == "pkg.engine.vllm.Engine.generate"


def test_local_shadows_an_import(table: SymbolTable) -> None:
    assert table.resolve_in("pkg.core", "run", "dist") is None  # ``dist = 3`` inside run()
    assert table.resolve_in("pkg.core", "Trainer.fit", "dist.broadcast") == "torch.distributed.broadcast"
    assert table.resolve_in("pkg.core", "run", "len") == "<builtin>.len"


def test_files_repo_names_and_determinism(table: SymbolTable, tmp_path: Path) -> None:
    assert table.module_of_file("pkg/core.py") == "pkg.core"
    assert table.is_repo_name("pkg.anything") and not table.is_repo_name("torch.nn")
    again = build_symbols(table.modules.values())
    assert list(again.definitions) == list(table.definitions)
    assert dict(again.classes) == dict(table.classes)
    with pytest.raises(TypeError):
        table.definitions["x"] = None  # type: ignore[index]


# ---- the former resolvers agree -----------------------------------------------------------------

# two functions of one module import the same name from two different modules (a profiling
# tool comparing two engines): each call means its own function's import
TWO = {
    "prof/__init__.py": "",
    "prof/a.py": "def step_model(m):\n    return m\n",
    "prof/b.py": "def step_model(m):\n    return m\n",
    "prof/run.py": (
        "def profile_a(m):\n    from prof.a import step_model\n    return step_model(m)\n\n\n"
        "def profile_b(m):\n    from prof.b import step_model\n    return step_model(m)\n"
    ),
}


def _graphs(index: Index, settings: Settings) -> Graphs:
    symbols = symbols_of(index)
    return build_graphs(index, find_entry_points(index, settings, symbols)[0], symbols=symbols)


def _target(g: Graphs, caller: str, func: str) -> set[str]:
    return {t for rc in g.resolved.get(caller, []) if rc.site.func == func for t in rc.targets}


def test_semantics_names_agree_with_the_call_resolver(tmp_path: Path) -> None:
    """semantics/facts.py took the first import of a name anywhere in the file, so profile_b's
    call meant ``prof.a.step_model`` there while the call graph said ``prof.b.step_model``
    (failed before the symbol table)."""
    index, settings = _index(tmp_path, TWO)
    g = _graphs(index, settings)
    facts = build_facts(index, g)
    for fn, mod in (("profile_a", "prof.a"), ("profile_b", "prof.b")):
        assert _target(g, f"prof.run.{fn}", "step_model") == {f"{mod}.step_model"}
        assert canon_in(facts.functions[f"prof.run.{fn}"], "step_model", facts) == f"{mod}.step_model"


def test_topology_names_agree_with_the_call_resolver(tmp_path: Path) -> None:
    """topology/names.py let the last import of a name win, so profile_a's call meant
    ``prof.b.step_model`` (failed before the symbol table)."""
    index, settings = _index(tmp_path, TWO)
    g = _graphs(index, settings)
    s = next(s for s in index.summaries.values() if s.module == "prof.run")
    namer = Namer(s, None, g.symbols)
    assert namer.canon("step_model", "profile_a") == "prof.a.step_model" == next(iter(
        _target(g, "prof.run.profile_a", "step_model")))
    assert namer.canon("step_model", "profile_b") == "prof.b.step_model"


def test_entry_point_finder_follows_relative_imports_like_the_call_graph(tmp_path: Path) -> None:
    """The finder read only absolute module-level imports: ``python -m app`` whose
    ``__main__.py`` runs ``main()`` imported with ``from .cli import main`` had no entry
    function, while the call graph resolved the same call (failed before the symbol table)."""
    files = {
        "app/__init__.py": "",
        "app/cli.py": "def main():\n    pass\n",
        "app/__main__.py": "from .cli import main\n\nif __name__ == '__main__':\n    main()\n",
    }
    index, settings = _index(tmp_path, files)
    g = _graphs(index, settings)
    guard = next(e for e in find_entry_points(index, settings)[0] if e.found_by == "main-guard")
    assert guard.function == "app.cli.main"
    assert _target(g, "app.__main__", "main") == {"app.cli.main"}


# ---- one symbol table: nobody else builds an import map ------------------------------------------

SRC = Path(__file__).resolve().parent.parent / "src" / "gyrelint"
ALLOWED = ("index/", "graphs/symbols.py")


def test_only_the_symbol_table_resolves_imports() -> None:
    """Outside ``index/`` and ``graphs/symbols.py`` no module imports ``absolute_module`` or reads
    ``Import.bound`` (how an import map is built): names are the symbol table's to answer."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(ALLOWED):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == "absolute_module" for a in node.names):
                offenders.append(f"{rel}:{node.lineno} imports absolute_module")
            elif isinstance(node, ast.Attribute) and node.attr == "bound":
                offenders.append(f"{rel}:{node.lineno} reads .bound (an import map)")
            elif isinstance(node, ast.FunctionDef) and node.name in ("import_map", "_aliases"):
                offenders.append(f"{rel}:{node.lineno} defines {node.name}")
    assert not offenders, "resolve names through gyrelint.graphs.symbols:\n" + "\n".join(offenders)


def test_rules_follow_relative_imports_like_the_table(tmp_path: Path) -> None:
    """GYR008 looked an imported constant up by the import's text (``consts`` of ``from .consts
    import ...``), which names no module, so a ten-hour group timeout kept in a sibling module
    went unseen (failed before the symbol table)."""
    from gyrelint.index import parse_source
    from gyrelint.model import Side
    from gyrelint.rules import run_rules
    from gyrelint.rules.testing import fn, make_analysis

    files = {
        "pkg/consts.py": "import datetime\n\nGROUP_TIMEOUT = datetime.timedelta(hours=10)\n",
        "pkg/sync.py": ("import torch.distributed as dist\n\nfrom .consts import GROUP_TIMEOUT\n\n\n"
                        "def join(addr):\n    dist.init_process_group('nccl', init_method=addr, timeout=GROUP_TIMEOUT)\n"),
    }
    sums = [parse_source(p, p[:-3].replace("/", "."), text.encode())[0] for p, text in files.items()]
    a = make_analysis([fn("pkg.sync.join", Side.HANDOFF, kind="weight_sync")], summaries=sums)
    found = [f for f in run_rules(a, a.settings) if f.rule == "GYR008"]
    assert len(found) == 1 and "GROUP_TIMEOUT" in found[0].message
