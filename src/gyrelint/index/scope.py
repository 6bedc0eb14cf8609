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
* **vendored**: a tree that is another library, recognised by content. Candidates are the
  folders with a license file or packaging metadata of their own, packages named like a
  well-known library and packages inside a third-party folder (``third_party``, ``vendor``...,
  a package or not). Their signals: its own license file; its own packaging metadata or a
  ``*.dist-info`` naming another distribution; a well-known library's package name; the
  third-party folder; **headers of another owner** (most of its files carry a copyright block
  that does not name the owner most of the project's files name, a ``From <library>:``
  block, or say they are a copy: "this is a copy of", "copied from", "vendored from";
  "adapted from" is how product files credit one borrowed function, so it does not count);
  **the library's own import structure** (``import <lib>.<sub>`` where ``<sub>`` is a module
  of the copy); and **no import of the host project**. At least two, where "no import of the
  host" counts only beside the headers or the mirrored imports (a workspace member, or a
  product adapter package named after the engine it drives, imports no host module either). **A tree that imports the host
  project's modules outside itself is a shim, not a copy**, whatever its folder name or
  signals: it stays product. One signal is not enough either: a project's own
  ``third_party/`` package of patches, or a workspace member with its own pyproject, stays
  product.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..repo import RepoFiles
from .summary import FileSummary, absolute_module

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


# a file's header: the comment block and docstring before its first statement
HEADER_LIMIT = 8192
MAX_HEADERS = 1024  # Python file headers read per repository for the copy signals
OWNER_SAMPLE = 96  # product files whose headers say who the project's owner is
OWNER_CHARS = 160  # of one copyright line: a hostile line of brackets stays linear to scan
_CODE_LINE = re.compile(r"^(?:import|from|def|class|async|@|if|try|__all__)\b")
_COPYRIGHT = re.compile(r"copyright[ \t]*(?:\(c\)|©)?[ \t]*([^\n]*)", re.I)
_FROM_BLOCK = re.compile(r"^[ \t]*#[ \t]*from[ \t]+[A-Za-z][\w.+-]*[ \t]*:[ \t]*$", re.I | re.M)
_COPY_PHRASE = re.compile(r"\b(?:this[ \t]+(?:file[ \t]+|module[ \t]+)?is[ \t]+a[ \t]+copy[ \t]+of|copied[ \t]+(?:verbatim[ \t]+)?from|"
                          r"vendored[ \t]+from)\b", re.I)
_OWNER_NOISE = re.compile(r"\(.*?\)|\d{4}(?:\s*-\s*(?:\d{4}|present))?|-\s*present|all rights reserved.*|and/or its affiliates.*|"
                          r"\b(?:inc|ltd|llc|co|corp|corporation|limited|gmbh|the)\b|[^\w\s]", re.I)


def _header(text: str) -> str:
    """The lines before a file's first statement (its licence and provenance block)."""
    out = []
    for line in text.splitlines():
        if _CODE_LINE.match(line):
            break
        out.append(line)
    return "\n".join(out)


def _owners(header: str) -> frozenset[str]:
    """Who the copyright lines of a header name, in a spelling compared across files
    (``Copyright (c) 2016- Facebook, Inc (A. Author)`` and ``Copyright 2024 Facebook Inc.``
    are both ``facebook``)."""
    out = set()
    for m in _COPYRIGHT.finditer(header):
        words = _OWNER_NOISE.sub(" ", m.group(1)[:OWNER_CHARS]).lower().split()[:4]
        if words and words[0] not in ("notice", "holders", "owner", "and", "over", "details", "model", "solely"):
            out.add(" ".join(words))
    return frozenset(out)


def _dominant_owner(paths: list[str], read_head: Callable[[str, int], str | None]) -> str:
    """The copyright owner most of the project's product files name (a spread sample), or ""."""
    step = max(1, len(paths) // OWNER_SAMPLE)
    tally: dict[str, int] = {}
    for rel in paths[::step][:OWNER_SAMPLE]:
        for o in _owners(_header(read_head(rel, HEADER_LIMIT) or "")):
            tally[o] = tally.get(o, 0) + 1
    if not tally:
        return ""
    best = max(sorted(tally), key=lambda o: tally[o])
    return best if tally[best] >= 2 else ""


def _headers(paths: list[str], read_head: Callable[[str, int], str | None], budget: list[int]) -> list[tuple[frozenset[str], bool]]:
    out = []
    for rel in paths:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        head = _header(read_head(rel, HEADER_LIMIT) or "")
        owners = _owners(head)
        copy = bool(_COPY_PHRASE.search(head) or _FROM_BLOCK.search(head))
        out.append((owners, copy))
    return out


def _import_names(s: FileSummary) -> Iterable[str]:
    """Every absolute dotted name a file imports (``from a import b`` gives ``a`` and ``a.b``)."""
    for imp in s.imports:
        source = absolute_module(s, imp.module, imp.level)
        if source:
            yield source
        if imp.name and imp.name != "*":
            yield f"{source}.{imp.name}" if source else imp.name


def _repo_file(name: str, by_module: Mapping[str, str]) -> str | None:
    """The repo file the longest repo-module prefix of a dotted name is, or None (a library)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        got = by_module.get(".".join(parts[:i]))
        if got is not None:
            return got
    return None


@dataclass(frozen=True, slots=True)
class _Imports:
    host: str  # a module of the host project the tree imports ("" when none): a shim
    mirrored: int  # distinct ``<lib>.<sub>`` imports whose ``<sub>`` is a module of the copy
    any_import: bool


def _imports(folder: str, paths: list[str], summaries: Mapping[str, FileSummary], by_module: Mapping[str, str],
             others: list[str], module_paths: set[str]) -> _Imports:
    lib = posixpath.basename(folder)
    host, mirrored, seen = "", set(), False
    for rel in paths:
        s = summaries.get(rel)
        if s is None:
            continue
        for name in _import_names(s):
            seen = True
            target = _repo_file(name, by_module)
            if target is not None:
                inside = target.startswith(folder + "/") or any(target.startswith(o + "/") for o in others)
                if not inside and not host:
                    host = name
                continue
            head, _, sub = name.partition(".")
            if head == lib and sub:
                stem = posixpath.join(folder, *sub.split("."))
                if stem + ".py" in module_paths or stem + "/__init__.py" in module_paths:
                    mirrored.add(name)
    return _Imports(host, len(mirrored), seen)


_NO_HOST = "no import of the host project"
_HEADERS = ("copyright headers of another owner", "headers that say the files are a copy")
_MIRROR = "import structure"


def _enough(signals: set[str]) -> bool:
    """Two signals at least. "No import of the host" is weak (a workspace member or an adapter
    package named after its engine imports no host module either): it counts only beside what
    the files' own text says, their headers or their mirrored imports."""
    base = signals - {_NO_HOST}
    if len(base) >= 2:
        return True
    return _NO_HOST in signals and any(s.startswith(_HEADERS) or s.endswith(_MIRROR) for s in base)


def vendored_trees(files: RepoFiles, read_head: Callable[[str, int], str | None],
                   summaries: Mapping[str, FileSummary] | None = None) -> list[_Tree]:
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
    for d in init_dirs:
        base, parent = posixpath.basename(d), posixpath.dirname(d)
        top = parent not in init_dirs
        if base in KNOWN_LIBRARIES and _norm(base) != project and not project.startswith(_norm(base) + "-"):
            note(d, f"the top package of the {base} library" if top else f"a package named like the {base} library")
        if parent and _VENDOR_DIR.match(posixpath.basename(parent)):
            note(d, f"inside the third-party folder {posixpath.basename(parent)}/")
    if summaries is not None:
        _content_signals(files, read_head, summaries, candidates)
    out = []
    for folder in sorted(candidates):
        # signals of a folder count for the trees below it (a license next to the package folder)
        sig = set(candidates[folder]) - {"shim"}
        shim = "shim" in candidates[folder]
        for other, more in candidates.items():
            if other != folder and folder.startswith(other + "/"):
                sig |= more - {"shim"}
                shim = shim or "shim" in more
        if not shim and _enough(sig) and any(d == folder or d.startswith(folder + "/") for d in dirs_with_code):
            out.append(_Tree(folder, tuple(sorted(sig))))
    # the outermost folder names the tree
    return [t for t in out if not any(o.folder != t.folder and t.folder.startswith(o.folder + "/") for o in out)]


def _content_signals(files: RepoFiles, read_head: Callable[[str, int], str | None],
                     summaries: Mapping[str, FileSummary], candidates: dict[str, set[str]]) -> None:
    """Add what the candidates' files say (headers, imports) to their signals; ``shim`` marks
    a tree that imports the host project (it is the project's own code, whatever else it has)."""
    by_module = {m: p for p, m in files.modules.items()}
    module_paths = set(files.python)
    folders = sorted(candidates)
    inside = {f: [p for p in files.python if p.startswith(f + "/")] for f in folders}
    in_any = {p for ps in inside.values() for p in ps}
    product = [p for p in files.python if p not in in_any and _folder_scope(p) is None]
    budget, owner = [MAX_HEADERS], None
    for folder in folders:
        paths = inside[folder]
        if not paths:
            continue
        others = [o for o in folders if o != folder and not folder.startswith(o + "/") and not o.startswith(folder + "/")
                  and _enough(candidates[o])]
        imp = _imports(folder, paths, summaries, by_module, others, module_paths)
        if imp.host:
            candidates[folder].add("shim")
            continue
        if imp.any_import:
            candidates[folder].add(_NO_HOST)
        if imp.mirrored:
            candidates[folder].add(f"the {posixpath.basename(folder)} library's own {_MIRROR}")
        heads = _headers(paths, read_head, budget)
        if not heads:
            continue
        if owner is None and any(o for o, _ in heads):
            owner = _dominant_owner(product, read_head)
        foreign = [o for o, _ in heads if o and owner and owner not in o]
        copies = sum(1 for _, c in heads if c)
        if owner and 2 * len(foreign) > len(heads):
            candidates[folder].add("copyright headers of another owner than the project's")
        elif 2 * copies > len(heads):
            candidates[folder].add("headers that say the files are a copy of another library")


def classify(files: RepoFiles, summaries: Mapping[str, FileSummary],
             read_head: Callable[[str, int], str | None]) -> dict[str, ModuleScope]:
    """The scope of every Python file that is not product (product files are left out)."""
    trees = vendored_trees(files, read_head, summaries)
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


def library_names(files: RepoFiles, scopes: Mapping[str, ModuleScope]) -> dict[str, str]:
    """Module prefix of each vendored copy -> the name its library is imported by
    (``host.third_party.torch`` -> ``torch``): a call into the copy is a call into the library.
    The outermost packages of each vendored tree; a copy already importable by its own name
    needs no entry."""
    init_dirs = {posixpath.dirname(p) for p in files.python if posixpath.basename(p) == "__init__.py"}
    out: dict[str, str] = {}
    def within(d: str, folder: str) -> bool:
        return d == folder or d.startswith(folder + "/")

    for folder in vendored_roots(scopes):
        for d in sorted(init_dirs):
            parent = posixpath.dirname(d)
            if not within(d, folder) or (d != folder and parent in init_dirs and within(parent, folder)):
                continue  # outside the tree, or a subpackage of one already named
            prefix, lib = files.modules.get(f"{d}/__init__.py", ""), posixpath.basename(d)
            if prefix and lib.isidentifier() and prefix != lib and prefix.endswith("." + lib):
                out[prefix] = lib
    return out
