"""Stage 2: where runs start.

Entry points come from what a user runs (README code blocks, shell launchers,
Makefile recipes, CI job lines), from the package metadata (console scripts), and
from the code itself (``if __name__ == "__main__":`` blocks, ``@hydra.main``), plus
the ``entry-points`` of ``[tool.gyrelint]``. A command that names a module or file
of this repository that does not exist is reported (a stale README, a moved
module); commands for other programs (``python -m pip``) are left alone.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from ..graphs.symbols import SymbolTable, symbols_of
from ..index import Index
from ..index.summary import MODULE_SCOPE, FileSummary
from ..model import Diagnostic, EntryPoint
from ..repo import launcher_kind
from ..settings import Settings
from .docs import markdown_blocks, rst_blocks
from .packaging import (
    Script,
    entry_points_txt_scripts,
    parse_spec,
    pyproject_scripts,
    setup_cfg_scripts,
    setup_py_scripts,
)
from .shell import Launch, ShellScan, scan_shell

__all__ = ["EntryScan", "find_entry_points", "scan_entry_points"]

FOUND_BY_ORDER = ("config", "pyproject", "setup", "readme", "script", "hydra", "main-guard")
_DOC_SUFFIXES = (".md", ".markdown", ".rst")
_DOCKER_INSTR = re.compile(r"^\s*([A-Za-z]+)\s+")
_YAML_SUFFIXES = (".yaml", ".yml")
_YAML_HINTS = ("python", "torchrun", "accelerate", "deepspeed", "ray job", "uv run")
_TEXT_LIMIT = 2 * 1024 * 1024
_COMMAND_MAX = 240
_MODULE_LIKE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


@dataclass(slots=True)
class EntryScan:
    """Everything the finder saw: the entry points, the diagnostics, and counts for reports."""

    entries: list[EntryPoint] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    commands: int = 0  # launches read from READMEs, scripts and CI files
    external: int = 0  # of those, programs that are not part of this repo (python -m pip ...)
    unresolved: int = 0  # targets hidden behind a shell variable that has no known value

    def counts(self) -> dict[str, int]:
        """Entry points per way of finding them (existing targets only; see ``missing``)."""
        c = Counter(e.found_by for e in self.entries if e.exists)
        return {k: c[k] for k in FOUND_BY_ORDER if c[k]}

    @property
    def missing(self) -> list[EntryPoint]:
        return [e for e in self.entries if not e.exists]


def find_entry_points(index: Index, settings: Settings,
                      symbols: SymbolTable | None = None) -> tuple[list[EntryPoint], list[Diagnostic]]:
    """All entry points of the indexed repo, in a stable order, and the missing-target diagnostics.
    ``symbols``: the index's symbol table when the caller has it (else it is built here)."""
    scan = scan_entry_points(index, settings, symbols)
    return scan.entries, scan.diagnostics


def scan_entry_points(index: Index, settings: Settings, symbols: SymbolTable | None = None) -> EntryScan:
    finder = _Finder(index, symbols if symbols is not None else symbols_of(index))
    finder.metadata()
    finder.code()
    finder.launchers()
    finder.configured(settings.entry_points)
    return finder.finish()


class _Finder:
    def __init__(self, index: Index, symbols: SymbolTable) -> None:
        self.index = index
        self.symbols = symbols  # what a name in a console-script spec or a main guard means
        self.root = index.root
        self.scan = EntryScan()
        self.seen: set[tuple] = set()
        self.mod2path: dict[str, str] = {}
        for path, mod in sorted(index.files.modules.items(), key=lambda kv: (kv[0].endswith("__init__.py"), kv[0])):
            self.mod2path.setdefault(mod, path)
        self.tops = {m.split(".", 1)[0] for m in self.mod2path}
        self.scripts: dict[str, Script] = {}
        self.functions: dict[str, str | None] = {}  # path -> entry function qualname
        self._names: dict[str, list[str]] | None = None

    # ---- sources --------------------------------------------------------------------------------
    def metadata(self) -> None:
        files = sorted(self.index.files.other + self.index.files.python)
        for rel in files:
            name = posixpath.basename(rel)
            reader = {"pyproject.toml": pyproject_scripts, "setup.py": setup_py_scripts,
                      "setup.cfg": setup_cfg_scripts}.get(name)
            if name == "entry_points.txt" and posixpath.dirname(rel).endswith((".dist-info", ".egg-info")):
                reader = entry_points_txt_scripts
            if reader is None:
                continue
            text = self.index.read_text(rel, _TEXT_LIMIT)
            if text is None:
                continue
            scripts, diags = reader(text, rel)
            self.scan.diagnostics += diags
            for s in scripts:
                self.scripts.setdefault(s.name, s)
                self._script_entry(s)

    def _script_entry(self, s: Script, found_by: str | None = None, source: str | None = None, line: int = 0,
                      command: str | None = None) -> None:
        found_by = found_by or s.found_by
        source = source or s.source
        line = line or s.line
        key = (found_by, source, "module", s.module, s.attr)
        if key in self.seen:
            return
        self.seen.add(key)
        # ``pkg:main`` imports pkg (its __init__), unlike ``python -m pkg`` which runs pkg/__main__.py
        path = self.mod2path.get(s.module) if s.attr else self._module_path(s.module)
        function = f"{s.module}.{s.attr}" if s.attr else None
        command = command or s.text
        if path is None:
            if s.module.split(".", 1)[0] not in self.tops and found_by not in ("pyproject", "setup"):
                self.scan.external += 1
                return
            self._missing(found_by, source, line, command, f"module '{s.module}'", module=s.module)
            return
        module = self.index.files.modules.get(path, s.module)
        if s.attr:
            function = self._follow(path, s.attr) or function
        exists = True
        if s.attr and not self._defines(path, s.attr):
            exists = False
            self.scan.diagnostics.append(Diagnostic(
                source, line, f"console script '{s.name}' names '{s.attr}', which module '{s.module}' does not "
                f"define; fix the entry point", "entry"))
        self.scan.entries.append(EntryPoint(module, path, found_by, source, line, command, function, exists))

    def code(self) -> None:
        for path, s in self.index.summaries.items():
            for f in s.functions:
                if f.class_name is None and any(self._canonical(s, d) == "hydra.main" for d in f.decorators):
                    deco = next(d for d in f.decorators if self._canonical(s, d) == "hydra.main")
                    self._add(EntryPoint(s.module, path, "hydra", path, f.line, f"@{deco} def {f.name}",
                                         f"{s.module}.{f.qualname}"))
            if s.main_guard_line:
                self._add(EntryPoint(s.module, path, "main-guard", path, s.main_guard_line,
                                     'if __name__ == "__main__":', self._guard_function(s)))

    def launchers(self) -> None:
        for rel in self.index.files.other:
            name = posixpath.basename(rel)
            lower = name.lower()
            if lower.endswith(_DOC_SUFFIXES):
                self._docs(rel, lower.endswith(".rst"))
            elif (kind := launcher_kind(rel)) == "shell":
                self._shell(rel, "script")
            elif kind == "make":
                self._shell(rel, "script", make=True)
            elif kind == "docker":
                self._dockerfile(rel)
            elif lower.endswith(_YAML_SUFFIXES):
                self._shell(rel, "script", yaml=True)

    def _docs(self, rel: str, rst: bool) -> None:
        text = self.index.read_text(rel, _TEXT_LIMIT)
        if not text:
            return
        variables: dict[str, str] = {}
        for block in (rst_blocks(text) if rst else markdown_blocks(text)):
            self._launches(rel, "readme", scan_shell(block, variables))

    def _shell(self, rel: str, found_by: str, make: bool = False, yaml: bool = False) -> None:
        text = self.index.read_text(rel, _TEXT_LIMIT)
        if not text:
            return
        if yaml and not any(h in text for h in _YAML_HINTS):
            return
        lines = list(enumerate(text.splitlines(), 1))
        self._launches(rel, found_by, scan_shell(lines, make=make, yaml=yaml))

    def _dockerfile(self, rel: str) -> None:
        """``RUN``/``CMD``/``ENTRYPOINT`` lines, exec form (``["python", "-m", "x"]``) included,
        read as shell lines; every other instruction is blanked so line numbers hold."""
        text = self.index.read_text(rel, _TEXT_LIMIT)
        if not text:
            return
        lines: list[tuple[int, str]] = []
        continued = keep = False
        for no, raw in enumerate(text.splitlines(), 1):
            m = _DOCKER_INSTR.match(raw)
            if m and not continued:
                keep = m.group(1).upper() in ("RUN", "CMD", "ENTRYPOINT")
                rest = raw[m.end():] if keep else ""
                if rest.lstrip().startswith("["):
                    try:
                        argv = json.loads(rest)
                    except ValueError:
                        argv = None
                    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
                        rest = " ".join(shlex.quote(a) for a in argv)
                lines.append((no, rest))
            elif continued:
                lines.append((no, raw if keep else ""))
            else:
                lines.append((no, ""))
            continued = raw.rstrip().endswith("\\")
        self._launches(rel, "script", scan_shell(lines), in_image=True)

    def configured(self, entries: tuple[str, ...]) -> None:
        """``[tool.gyrelint] entry-points`` (and ``--entry``): files, modules or ``pkg.mod:func``."""
        pyproject = self.index.read_text("pyproject.toml", _TEXT_LIMIT) or ""
        for raw in entries:
            spec = raw.strip()
            if not spec:
                continue
            pos = pyproject.find(f'"{spec}"')
            if pos < 0:
                pos = pyproject.find(f"'{spec}'")
            src, line = ("pyproject.toml", pyproject.count("\n", 0, pos) + 1) if pos >= 0 else ("--entry", 0)
            if ":" in spec and not spec.endswith(".py"):
                parsed = parse_spec(spec)
                if parsed:
                    self._script_entry(Script(spec, parsed[0], parsed[1], src, line, "config"))
                    continue
            if spec.endswith(".py") or "/" in spec:
                path = self._file(spec[2:] if spec.startswith("./") else spec, ("",))
                if path is None:
                    self._missing("config", src, line, spec, f"entry-points file '{spec}'", file=spec)
                else:
                    self._add(EntryPoint(self.index.files.modules.get(path), path, "config", src, line, spec,
                                         self._function_of(path)))
                continue
            path = self._module_path(spec)
            if path is None:
                self._missing("config", src, line, spec, f"entry-points module '{spec}'", module=spec)
            else:
                self._add(EntryPoint(self.index.files.modules.get(path, spec), path, "config", src, line, spec,
                                     self._function_of(path)))

    # ---- launches -------------------------------------------------------------------------------
    def _launches(self, rel: str, found_by: str, shell_scan: ShellScan, in_image: bool = False) -> None:
        """``in_image``: the commands run inside a container image, whose files need not be
        the repo's (``RUN python get-pip.py`` after a download): a missing file is not reported."""
        self.scan.unresolved += len(shell_scan.unresolved)
        src_dir = posixpath.dirname(rel)
        for launch in shell_scan.launches:
            self.scan.commands += 1
            if launch.kind == "file" and posixpath.normpath(launch.target) in shell_scan.generated:
                self.scan.unresolved += 1  # written by the same script (cat > x.py <<EOF): not a repo file
                continue
            self._launch(rel, src_dir, found_by, launch, in_image)

    def _launch(self, rel: str, src_dir: str, found_by: str, launch: Launch, in_image: bool = False) -> None:
        command = launch.command if len(launch.command) <= _COMMAND_MAX else launch.command[: _COMMAND_MAX - 1] + "…"
        if launch.kind == "console":
            script = self.scripts.get(launch.target)
            if script is None:
                self.scan.external += 1
            else:
                self._script_entry(script, found_by, rel, launch.line, command)
            return
        norm = posixpath.normpath(launch.target) if launch.kind == "file" else launch.target
        key = (found_by, rel, launch.kind, norm)
        if key in self.seen:
            return
        self.seen.add(key)
        if launch.kind == "module":
            path = self._module_path(launch.target)
            if path is None:
                if launch.target.split(".", 1)[0] not in self.tops:
                    self.scan.external += 1
                    return
                self._missing(found_by, rel, launch.line, command, f"module '{launch.target}'", module=launch.target)
                return
            if path.endswith("__init__.py"):
                self._missing(found_by, rel, launch.line, command,
                              f"package '{launch.target}' has no __main__.py, so `-m {launch.target}` cannot run it; "
                              f"module '{launch.target}.__main__'", module=launch.target)
                return
        else:
            bases = self._bases(src_dir, launch.cwd)
            target = launch.target[2:] if launch.target.startswith("./") else launch.target
            path = self._file(target, bases, suffixes=launch.uncertain)
            if path is None and not launch.uncertain:
                path = self._by_name(target)
            if path is None:
                if (launch.uncertain or in_image or self._ambiguous(target)
                        or not self._known_cwd(src_dir, launch.cwd)):
                    self.scan.unresolved += 1
                    return
                what = f"file '{launch.target}'"
                if _MODULE_LIKE.match(target) and self._module_path(target):
                    what = f"'{target}' is a module of the repo but is run as a file (add -m); file '{target}'"
                self._missing(found_by, rel, launch.line, command, what, file=launch.target)
                return
        resolved = (found_by, rel, "path", path)  # `-m pkg.mod` and `pkg/mod.py` in one file: one entry
        if resolved in self.seen:
            return
        self.seen.add(resolved)
        module = self.index.files.modules.get(path) or (launch.target if launch.kind == "module" else None)
        self.scan.entries.append(EntryPoint(module, path, found_by, rel, launch.line, command, self._function_of(path)))

    def _missing(self, found_by: str, source: str, line: int, command: str, what: str, module: str | None = None,
                 file: str | None = None) -> None:
        self.scan.entries.append(EntryPoint(module if file is None else None, file, found_by, source, line, command,
                                            None, False))
        self.scan.diagnostics.append(Diagnostic(
            source, line, f"{what} is not in the repository (command: {command[:120]}); fix the command or the path",
            "entry"))

    def _add(self, entry: EntryPoint) -> None:
        key = (entry.found_by, entry.source, entry.line, entry.file, entry.function)
        if key not in self.seen:
            self.seen.add(key)
            self.scan.entries.append(entry)

    def finish(self) -> EntryScan:
        rank = {k: i for i, k in enumerate(FOUND_BY_ORDER)}
        self.scan.entries.sort(key=lambda e: (rank.get(e.found_by, 99), e.source, e.line, e.module or "", e.file or ""))
        self.scan.diagnostics.sort(key=lambda d: (d.file, d.line, d.message))
        return self.scan

    # ---- resolution -----------------------------------------------------------------------------
    def _module_path(self, module: str) -> str | None:
        """The file ``python -m module`` runs: the module's file, or a package's ``__main__.py``
        (also when the file is on disk but not indexed: excluded or git-ignored)."""
        main = self.mod2path.get(f"{module}.__main__")
        if main:
            return main
        return self.mod2path.get(module) or self._module_on_disk(module)

    def _module_on_disk(self, module: str) -> str | None:
        rel = module.replace(".", "/")
        for base in ("", "src/"):
            for cand in (f"{base}{rel}/__main__.py", f"{base}{rel}.py", f"{base}{rel}/__init__.py"):
                try:
                    if (self.root / cand).is_file():
                        return cand
                except OSError:
                    return None
        return None

    def _known_cwd(self, src_dir: str, cwd: tuple[str, ...]) -> bool:
        """Every ``cd`` before the command went to a folder of this repo (else paths are not checkable)."""
        for d in cwd:
            if d == "?":
                return False
            if not any((self.root / b / d).is_dir() for b in (src_dir, "")):
                return False
        return True

    def _bases(self, src_dir: str, cwd: tuple[str, ...]) -> list[str]:
        """Folders a relative path may be relative to: the source's folder, folders it ``cd``s into,
        its parent folders, and the repo root."""
        bases: list[str] = []
        for d in reversed([c for c in cwd if c != "?"]):
            bases.append(posixpath.normpath(posixpath.join(src_dir, d)))
            bases.append(posixpath.normpath(d))
        d = src_dir
        while d:
            bases.append(d)
            d = posixpath.dirname(d)
        bases.append("")
        out = []
        for b in bases:
            b = "" if b == "." else b
            if not b.startswith("..") and b not in out:
                out.append(b)
        return out

    def _file(self, target: str, bases: list[str] | tuple[str, ...], suffixes: bool = False) -> str | None:
        candidates = [target]
        if suffixes:
            parts = [p for p in target.split("/") if p]
            cut = max((i + 1 for i, p in enumerate(parts) if "$" in p or "~" in p or "`" in p), default=0)
            parts = parts[cut:]
            candidates = ["/".join(parts[k:]) for k in range(len(parts))]
        for cand in candidates:
            if not cand or cand.startswith("/"):
                continue
            for base in bases:
                rel = posixpath.normpath(posixpath.join(base, cand))
                if rel.startswith("..") or rel.startswith("/"):
                    continue
                found = self._existing(rel)
                if found:
                    return found
        return None

    def _named(self, target: str) -> list[str]:
        """Repo files whose path ends with ``target`` (leading ``./`` and ``../`` dropped)."""
        parts = [p for p in posixpath.normpath(target).split("/") if p not in ("", ".", "..")]
        if not parts:
            return []
        if self._names is None:
            self._names = {}
            for p in self.index.files.python:
                self._names.setdefault(posixpath.basename(p), []).append(p)
        tail = "/".join(parts)
        return [p for p in self._names.get(parts[-1], []) if p == tail or p.endswith("/" + tail)]

    def _by_name(self, target: str) -> str | None:
        """``python x.py`` in a README often means "from the folder that holds x.py" (a sub-project,
        an example folder): accept it when exactly one file of the repo ends with that path."""
        found = self._named(target)
        return found[0] if len(found) == 1 else None

    def _ambiguous(self, target: str) -> bool:
        return len(self._named(target)) > 1

    def _existing(self, rel: str) -> str | None:
        path = self.root / rel
        try:
            if path.is_file():
                return rel
            if path.is_dir() and (path / "__main__.py").is_file():
                return f"{rel}/__main__.py"
        except OSError:
            return None
        return None

    def _summary(self, path: str) -> FileSummary | None:
        return self.index.summaries.get(path)

    def _defines(self, path: str, attr: str) -> bool:
        s = self._summary(path)
        if s is None:
            return True  # not parsed: do not claim it is missing
        return self.symbols.defines(s.module, attr.split(".", 1)[0])

    def _follow(self, path: str, attr: str) -> str | None:
        """``pkg.cli:main`` where ``pkg/cli/__init__.py`` only re-exports ``main``: the function it names."""
        s = self._summary(path)
        if s is None:
            return None
        got = self.symbols.attribute(s.module, attr)
        return got if got is not None and (got in self.symbols.definitions or not self.symbols.is_repo_name(got)) \
            else None

    def _canonical(self, s: FileSummary, text: str) -> str:
        """A decorator's dotted name as the module's imports say (``@main`` of ``from hydra import main``)."""
        text = text[:-2] if text.endswith("()") else text
        return self.symbols.resolve_in(s.module, MODULE_SCOPE, text) or text

    def _function_of(self, path: str) -> str | None:
        """The function a run of this file enters: its ``@hydra.main`` function, else what its main guard calls."""
        if path in self.functions:
            return self.functions[path]
        s = self._summary(path)
        result = None
        if s is not None:
            for f in s.functions:
                if f.class_name is None and any(self._canonical(s, d) == "hydra.main" for d in f.decorators):
                    result = f"{s.module}.{f.qualname}"
                    break
            else:
                result = self._guard_function(s) if s.main_guard_line else None
        self.functions[path] = result
        return result

    def _guard_function(self, s: FileSummary) -> str | None:
        """The function the main guard runs: the last function of this file it calls (or passes, as in
        ``fire.Fire(main)``), since argument parsing comes first; else the last repo function it calls."""
        guard = s.main_guard_line or 0
        # helpers defined inside the guard belong to an inline script body, not to an entry function
        own = {f.qualname for f in s.functions if f.class_name is None and "." not in f.qualname and f.line < guard}
        symbols = self.symbols

        def resolve(name: str) -> tuple[str, bool] | None:
            if name in own:
                return f"{s.module}.{name}", True
            got = symbols.resolve_in(s.module, MODULE_SCOPE, name)
            d = symbols.definitions.get(got) if got else None
            if d is not None and d.kind == "function" and d.module != s.module and d.qualname.count(".") == \
                    d.module.count(".") + 1:
                return got, False  # type: ignore[return-value]
            return None

        calls = sorted((c for c in s.calls if c.scope == MODULE_SCOPE and c.line >= guard),
                       key=lambda c: c.line)
        # ``main(parse())``: parse() is an argument of the repo function that runs, not the entry
        inner = {(c.line, str(a.value).removesuffix("()")) for c in calls if resolve(c.func)
                 for a in c.args if a.kind == "call"}
        own_hit: str | None = None
        repo_hit: str | None = None
        for call in calls:
            for name in [call.func] + [str(a.value) for a in call.args if a.kind == "name"]:
                if (call.line, name) in inner:
                    continue
                hit = resolve(name)
                if hit and hit[1]:
                    own_hit = hit[0]
                elif hit:
                    repo_hit = hit[0]
        # an imported function is the entry only for a short guard (``main()``), not an inline script
        return own_hit or (repo_hit if len(calls) <= 3 else None)
