"""Which modules are the product, and which are tests, docs, benchmarks or a copied library.

Every module is indexed (names must resolve through all of them), but only the product
takes a side, is an entry point, a counter location or a map node: a test that drives the
sampler, a docs example or a vendored copy of an inference engine is not the loop an
engineer asks about. The decision is made here, once per file, with its reason; the later
stages only ask :meth:`gyrelint.index.Index.out_of_scope`.

* **test**: a folder named ``tests``/``test``/``unittest``/``*_tests`` on the path, or a
  ``test_*.py``/``*_test.py``/``conftest.py`` file that holds test code (``test*``
  functions, ``Test*`` classes, or imports pytest/unittest): a ``test_utils.py`` helper of
  the product is not a test by its name alone;
* **docs** and **bench**: a ``docs``/``doc`` or ``benchmarks``/``bench`` folder on the path;
* **vendored**: a tree that is another library, recognised by content, at least two of:
  its own license file, its own packaging metadata or a ``*.dist-info`` naming another
  distribution than the project's, a well-known library's top package name, and a folder
  for third-party code (``third_party``, ``vendor``...) holding it. One signal is not
  enough: a project's own ``third_party/`` package of patches, or a workspace member
  with its own pyproject, stays product.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..repo import RepoFiles
from .summary import FileSummary

PRODUCT, TEST, DOCS, BENCH, VENDORED = "product", "test", "docs", "bench", "vendored"
SCOPES = (PRODUCT, TEST, DOCS, BENCH, VENDORED)
MAX_MARKERS = 512  # license and metadata files read per repository, whatever a hostile tree holds
METADATA_LIMIT = 1 << 20  # a METADATA file (its long description included) or a license text

_TEST_DIR = re.compile(r"^(?:[a-z0-9]+_)*(?:tests?|unittests?)$", re.I)
_TEST_FILE = re.compile(r"^(?:test_.*|.*_tests?|conftest)\.py$")
_DOCS_DIR = re.compile(r"^docs?(?:[_-].*)?$|^documentation$", re.I)
_BENCH_DIR = re.compile(r"^bench(?:mark)?(?:s|es)?$", re.I)
_VENDOR_DIR = re.compile(r"^_?(?:third[_-]?party|3rd[_-]?party|vendor(?:ed)?|externals?|extern|deps)$", re.I)
_LICENSE = re.compile(r"^(?:LICEN[CS]E|COPYING)(?:[._-].*)?$", re.I)
# top packages of widely used libraries a repo may carry a copy of: the names they are
# imported by, so a copy is recognised whatever folder it was dropped in. Libraries only.
KNOWN_LIBRARIES = frozenset({
    "accelerate", "apex", "bitsandbytes", "datasets", "deepspeed", "einops", "fairscale", "flash_attn",
    "flashinfer", "gym", "gymnasium", "jax", "megatron", "nccl", "numpy", "peft", "pytorch_lightning",
    "ray", "safetensors", "sglang", "tokenizers", "torch", "torchvision", "transformer_engine",
    "transformers", "triton", "vllm", "xformers", "zmq",
})


@dataclass(frozen=True, slots=True)
class ModuleScope:
    """A module that is not the product: what it is and why gyrelint thinks so."""

    scope: str  # test | docs | bench | vendored
    reason: str


def _norm(name: str) -> str:
    """A distribution or package name compared across spellings (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def _is_test_code(s: FileSummary | None) -> bool:
    if s is None:
        return True  # unparsed: its name is all there is
    if any(f.name.startswith("test") for f in s.functions) or any(c.name.startswith("Test") for c in s.classes):
        return True
    return any((i.module or "").split(".", 1)[0] in ("pytest", "unittest") for i in s.imports)


def _folder_scope(path: str) -> ModuleScope | None:
    dirs = path.split("/")[:-1]
    for d in dirs:
        if _TEST_DIR.match(d):
            return ModuleScope(TEST, f"in the test folder {d}/")
    for d in dirs:
        if _DOCS_DIR.match(d):
            return ModuleScope(DOCS, f"in the documentation folder {d}/")
        if _BENCH_DIR.match(d):
            return ModuleScope(BENCH, f"in the benchmark folder {d}/")
    return None


@dataclass(frozen=True, slots=True)
class _Tree:
    folder: str
    signals: tuple[str, ...]


def _wheel_name(files: RepoFiles, read_head: Callable[[str, int], str | None]) -> str | None:
    """The distribution an unpacked wheel at the root is (its ``*.dist-info/METADATA``), the
    project's name when no pyproject.toml or setup file says it."""
    for rel in files.markers:
        if rel.count("/") == 1 and rel.endswith(".dist-info/METADATA"):
            m = re.search(r"^Name:[ \t]*(\S+)", read_head(rel, METADATA_LIMIT) or "", re.M)
            if m:
                return m.group(1)
    return None


def vendored_trees(files: RepoFiles, read_head: Callable[[str, int], str | None]) -> list[_Tree]:
    """Folders that hold a copy of another library, each with the signals that say so."""
    project = _norm(files.projects.get("", "") or _wheel_name(files, read_head) or "")
    init_dirs = {posixpath.dirname(p) for p in files.python if posixpath.basename(p) == "__init__.py"}
    dirs_with_code = {posixpath.dirname(p) for p in files.python}
    candidates: dict[str, set[str]] = {}

    def note(folder: str, signal: str) -> None:
        if folder:
            candidates.setdefault(folder, set()).add(signal)

    markers = sorted(files.markers, key=lambda r: (r.count("/"), r))[:MAX_MARKERS]  # the shallowest first
    root_license = {_words(read_head(r, METADATA_LIMIT)) for r in markers if "/" not in r and _LICENSE.match(r)}
    for rel in markers:
        folder = posixpath.dirname(rel)
        if _LICENSE.match(posixpath.basename(rel)):
            if ".dist-info" in folder:
                continue  # a wheel's metadata carries its license
            if _words(read_head(rel, METADATA_LIMIT)) not in root_license:  # the project's own text is no sign
                note(folder, "a license file of its own")
        elif rel.endswith("/METADATA") and folder.endswith(".dist-info"):
            m = re.search(r"^Name:[ \t]*(\S+)", read_head(rel, METADATA_LIMIT) or "", re.M)
            parent = posixpath.dirname(folder)
            if m and _norm(m.group(1)) != project and (project or parent):
                # an unpacked wheel of another distribution: it is that library, twice over; the
                # tree is its package beside the metadata when there is one by that name
                package = posixpath.join(parent, m.group(1).replace("-", "_").replace(".", "_"))
                tree = package if package in init_dirs else parent
                note(tree, f"{posixpath.basename(folder)} naming another distribution")
                note(tree, "installed library metadata")
    for folder, name in files.projects.items():
        if folder and name and project and _norm(name) != project:
            note(folder, f"its own packaging metadata (distribution {name})")
    tops = {d for d in init_dirs if posixpath.dirname(d) not in init_dirs}
    for top in tops:
        base = posixpath.basename(top)
        if base in KNOWN_LIBRARIES and _norm(base) != project and not project.startswith(_norm(base) + "-"):
            note(top, f"the top package of the {base} library")
        parent = posixpath.dirname(top)
        if parent and _VENDOR_DIR.match(posixpath.basename(parent)) and parent not in init_dirs:
            note(top, f"inside the third-party folder {posixpath.basename(parent)}/")
    out = []
    for folder in sorted(candidates):
        # signals of a folder count for the trees below it (a license next to the package folder)
        sig = set(candidates[folder])
        for other, more in candidates.items():
            if other != folder and folder.startswith(other + "/"):
                sig |= more
        if len(sig) >= 2 and any(d == folder or d.startswith(folder + "/") for d in dirs_with_code):
            out.append(_Tree(folder, tuple(sorted(sig))))
    # the outermost folder names the tree
    return [t for t in out if not any(o.folder != t.folder and t.folder.startswith(o.folder + "/") for o in out)]


def classify(files: RepoFiles, summaries: Mapping[str, FileSummary],
             read_head: Callable[[str, int], str | None]) -> dict[str, ModuleScope]:
    """The scope of every Python file that is not product (product files are left out)."""
    trees = vendored_trees(files, read_head)
    out: dict[str, ModuleScope] = {}
    for path in files.python:
        tree = next((t for t in trees if path.startswith(t.folder + "/")), None)
        if tree is not None:
            out[path] = ModuleScope(VENDORED, f"a copy of another library in {tree.folder}/: {', '.join(tree.signals)}")
            continue
        got = _folder_scope(path)
        if got is None and _TEST_FILE.match(posixpath.basename(path)) and _is_test_code(summaries.get(path)):
            got = ModuleScope(TEST, "a test file (pytest naming, test code inside)")
        if got is not None:
            out[path] = got
    return out


def vendored_roots(scopes: Mapping[str, ModuleScope]) -> list[str]:
    """The folders of the vendored trees, from the reasons (for the summary line)."""
    return sorted({s.reason.split(" in ", 1)[1].split("/:", 1)[0] for s in scopes.values() if s.scope == VENDORED})


def counts(scopes: Iterable[ModuleScope]) -> dict[str, int]:
    out = {s: 0 for s in SCOPES[1:]}
    for s in scopes:
        out[s.scope] += 1
    return out
