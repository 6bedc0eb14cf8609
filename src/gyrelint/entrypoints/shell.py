"""Read shell text (launch scripts, Makefile recipes, README blocks, CI job lines) and
find the Python programs it starts.

The reader is a small, forgiving model of the shell, not a shell: it joins ``\\``
continuations and lines inside an open quote, drops comments and heredoc bodies,
remembers plain variable assignments (``ENTRY=-m pkg.train``, ``${X:-default}``,
``read -d '' CMD <<EOF``) so that ``$ENTRY`` expands, splits on ``;``, ``&&``,
``||``, ``|`` and ``&``, and then looks through wrappers (``nohup``, ``exec``,
``env``, ``srun``...) and launchers (``python``, ``torchrun``, ``accelerate launch``,
``deepspeed``, ``ray job submit --``, ``uv run``, ``bash -c``...) to the module or
file that runs. Nothing is executed.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

_ASSIGN_LINE = re.compile(r"^\s*(?:(?:export|local|readonly|typeset|declare)(?:\s+-\w+)*\s+)?[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?[a-z]?(\.exe)?$")
_PY_VAR = re.compile(r"^\$[{(]?[A-Za-z_]*python[A-Za-z0-9_]*(:-[^})]*)?[})]?$", re.IGNORECASE)
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_VAR_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-=+?])((?:[^{}]|\{[^{}]*\})*))?\}"
                      r"|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEREDOC = re.compile(r"(?<!<)<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_WRITES = re.compile(r"(?:>>?|\btee(?:\s+-a)?)\s*['\"]?([\w./-]+\.py)\b")
_HINT = re.compile(r"python|torchrun|accelerate|deepspeed|\bray\b|\brun\b|\.py\b|\beval\b|\bpypy|\$\{?[A-Za-z_]*PY", re.I)
_PLACEHOLDER = re.compile(r"[<>{}\[\]*]|\.\.\.|path/to|/path/|(^|[/_])(your|my)_|xxx", re.IGNORECASE)

CONTROL = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")", "time", "fi", "done"}
# commands that run the rest of their arguments as another command
WRAPPERS = {
    "nohup", "exec", "sudo", "nice", "ionice", "stdbuf", "numactl", "taskset", "timeout", "srun", "mpirun",
    "mpiexec", "xargs", "env", "command", "builtin", "setsid", "unbuffer", "chrt", "prlimit", "caffeinate",
    "time", "sbatch", "salloc", "flock", "catchsegv", "strace", "ltrace", "valgrind", "nsys", "ncu", "py-spy",
    "kernprof", "coverage", "scalene", "memray", "viztracer", "austin",
}
# "<tool> run [options] <command>" runners
RUNNERS = {"uv", "poetry", "pdm", "pipenv", "hatch", "pixi", "conda", "mamba", "micromamba", "rye"}
_PY_ARG_OPTS = {"-X", "-W", "-Q"}
_PY_STOP = {"-c", "-V", "--version", "-h", "--help", "-"}
_TORCHRUN_FLAGS = {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "-m", "--module"}
_DEEPSPEED_FLAGS = {"--module", "--no_python", "--no-python", "--no_local_rank", "--force_multi", "--no_ssh_check",
                    "--no_ssh", "--bind_cores_to_rank", "--elastic_training", "--save_pid", "--enable_each_rank_log"}
_ACCELERATE_FLAGS = {"-m", "--module", "--no_python", "--multi_gpu", "--cpu", "--use_deepspeed", "--use_fsdp",
                     "--use_megatron_lm", "--use_xpu", "--debug", "-q", "--quiet", "--tpu", "--downcast_bf16",
                     "--same_network", "--dynamo_use_fullgraph", "--dynamo_use_dynamic", "--monitor_interval"}
_UV_VALUE_OPTS = {"--with", "--python", "-p", "--project", "--directory", "--extra", "--group", "--env-file",
                  "--package", "--index", "--index-url", "--extra-index-url", "--with-requirements",
                  "--with-editable", "--only-group", "--no-group", "--cache-dir", "--config-file", "-n", "--name",
                  "--prefix", "-e", "--environment", "--env", "--cwd"}
_MAX_QUOTE_JOIN = 80


@dataclass(frozen=True, slots=True)
class Launch:
    """One program a command starts: a module (``-m``), a file, or a console-script name."""

    kind: str  # "module" | "file" | "console"
    target: str
    line: int
    command: str
    launcher: str  # "python" | "torchrun" | "accelerate" | "deepspeed" | "ray" | "uv" | "exec" ...
    cwd: tuple[str, ...] = ()  # directories the text changed into before the command ("?" = unknown)
    uncertain: bool = False  # the target had an unresolved variable or is an absolute path


@dataclass(slots=True)
class ShellScan:
    """Launches found in one text, plus what was seen but could not be named."""

    launches: list[Launch] = field(default_factory=list)
    unresolved: list[tuple[int, str]] = field(default_factory=list)  # (line, command) with a variable target
    generated: set[str] = field(default_factory=set)  # .py files the text itself writes (cat > x.py <<EOF)


def logical_lines(lines: list[tuple[int, str]], variables: dict[str, str],
                  shell: bool = True) -> Iterator[tuple[int, str]]:
    """Join continuations and open quotes; drop comments and heredoc bodies.

    ``read [-r] [-d ''] NAME <<EOF`` bodies are stored in ``variables`` as NAME.
    """
    i = 0
    n = len(lines)
    while i < n:
        start, text = lines[i]
        i += 1
        if text.lstrip().startswith("#"):
            continue
        buf = text
        joins = 0  # lines joined because a quote is open (bounded: a stray apostrophe must not eat the file)
        while i < n:
            stripped = buf.rstrip()
            if stripped.endswith("\\") and not stripped.endswith("\\\\"):
                nxt = lines[i][1]
                i += 1
                if nxt.lstrip().startswith("#"):
                    if nxt.rstrip().endswith("\\"):
                        buf = stripped[:-1] + " \\"
                    else:
                        buf = stripped[:-1]
                        break
                    continue
                buf = stripped[:-1] + " " + nxt.strip()
                continue
            if shell and joins < _MAX_QUOTE_JOIN and _open_quote(buf):
                closed = _close_quote(buf, lines, i)
                if closed is None:
                    break  # never closed: a stray apostrophe in prose, not a multi-line string
                buf, i = closed
                joins += 1
                continue
            break
        m = _heredoc(buf) if shell else None
        if m:
            delim = m.group(2)
            body: list[str] = []
            while i < n and lines[i][1].strip() != delim:
                body.append(lines[i][1])
                i += 1
            i += 1  # the delimiter line
            words = buf[: m.start()].split()
            if words and words[0] == "read" and len(words) > 1 and _IDENT_RE.match(words[-1]):
                joined = " ".join(ln.strip()[:-1] if ln.rstrip().endswith("\\") else ln.strip() for ln in body)
                variables[words[-1]] = joined
                continue
            buf = buf[: m.start()] + " " + buf[m.end():]
        yield start, buf


_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _heredoc(text: str) -> re.Match | None:
    """The ``<<EOF`` / ``<<'EOF'`` operator of a line, if one stands outside quotes."""
    if "<<" not in text:
        return None
    blanked = _strip_quoted(text)
    pos = blanked.find("<<")
    while pos >= 0:
        if blanked[pos + 2 : pos + 3] != "<" and (pos == 0 or blanked[pos - 1] != "<"):
            m = _HEREDOC.match(text, pos)
            if m:
                return m
        pos = blanked.find("<<", pos + 2)
    return None


def _close_quote(buf: str, lines: list[tuple[int, str]], i: int) -> tuple[str, int] | None:
    """Join following lines until the open quote closes (within ``_MAX_QUOTE_JOIN`` lines)."""
    for k in range(i, min(len(lines), i + _MAX_QUOTE_JOIN)):
        buf = buf + "\n" + lines[k][1]
        if not _open_quote(buf):
            return buf, k + 1
    return None


def _open_quote(text: str) -> bool:
    """True when a single or double quote is left open (comments ignored)."""
    quote = ""
    esc = False
    for ch in text:
        if esc:
            esc = False
            continue
        if ch == "\\" and quote != "'":
            esc = True
            continue
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return False
    return bool(quote)


def _strip_quoted(text: str) -> str:
    """The text with quoted parts blanked, so operators inside strings are not seen."""
    return re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", lambda m: " " * len(m.group(0)), text)


def expand(text: str, variables: dict[str, str], make: bool = False) -> str:
    """Expand ``$X``, ``${X}``, ``${X:-default}`` (and ``$(X)`` in Makefiles) from known values.

    Unknown variables without a default stay as they are.
    """
    if "$" not in text:
        return text

    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(4) or m.group(5)
        if m.group(4) and not make:
            return m.group(0)  # $(cmd) is command substitution in the shell
        if name in variables:
            if m.group(2) == "+":
                return _unquote(m.group(3) or "")
            return variables[name]
        if m.group(2) in ("-", "="):
            return _unquote(m.group(3) or "")
        return m.group(0)

    out = _VAR_REF.sub(sub, text)
    if make:
        out = out.replace("$$", "$")
    return out


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


_TOKEN = re.compile(r"""\s*(?:(\d*>&\d*-?|&>>?|\d*>>?|\d*<(?!<)|&&|\|\||[;&|()])|(#.*)|((?:\$\((?:[^()]|\([^()]*\))*\)|\$\{[^}]*\}|`[^`]*`|[^\s'";&|()<>`\\]|\\.|\\$|'[^']*'|"(?:[^"\\]|\\.)*")+)|(.))""", re.S)
_QUOTED = re.compile(r"""\\(.)|'([^']*)'|"((?:[^"\\]|\\.)*)" """.rstrip(), re.S)


def _unquote_word(word: str) -> str:
    if "'" not in word and '"' not in word and "\\" not in word:
        return word
    return _QUOTED.sub(lambda m: m.group(1) if m.group(1) is not None else (
        m.group(2) if m.group(2) is not None else re.sub(r'\\([\\"$`])', r"\1", m.group(3))), word)


def split_words(text: str) -> list[str]:
    """Shell words (quotes removed) and control operators; a comment ends the line.

    A regex tokenizer: several times faster than ``shlex`` on the long launch commands
    of RL repos, and it never fails on unbalanced quotes (the rest becomes one word).
    """
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        op, comment, word, other = m.groups()
        if comment is not None:
            break
        if op is not None:
            out.append(op)
        elif word is not None:
            out.append(_unquote_word(word))
        elif other is not None and other.strip():
            rest = text[m.start(4):].strip()
            out.append(rest.strip("'\""))
            break
    return out


def simple_commands(words: list[str]) -> list[list[str]]:
    """Split a word list on ``;``, ``&&``, ``||``, ``|``, ``&`` and parentheses; drop redirections."""
    out: list[list[str]] = []
    cur: list[str] = []
    skip_next = False
    for w in words:
        if skip_next:
            skip_next = False
            continue
        if w in (";", "&", "&&", "|", "||", "(", ")"):
            if cur:
                out.append(cur)
            cur = []
            continue
        if re.fullmatch(r"\d*>&\d*-?", w):
            continue
        if re.fullmatch(r"(&>>?|\d*>>?|\d*<)", w):
            skip_next = True
            continue
        cur.append(w)
    if cur:
        out.append(cur)
    return out


def _is_python(word: str) -> bool:
    base = posixpath.basename(word)
    return bool(_PYTHON.match(base)) or bool(_PY_VAR.match(word))


def _launcher_word(word: str) -> bool:
    base = posixpath.basename(word)
    return (_is_python(word) or base in {"torchrun", "accelerate", "deepspeed", "ray", "bash", "sh", "zsh", "eval"}
            or base in RUNNERS or base in WRAPPERS or base.endswith(".py"))


def _skip_wrapper_options(words: list[str], j: int) -> int:
    """Index of the command a wrapper (``sudo``, ``timeout 10``, ``srun -N 2``) runs; ``len(words)``
    when it runs some other program (``sudo apt install python3-venv``)."""
    prev_opt = False
    while j < len(words):
        w = words[j]
        if _launcher_word(w):
            return j
        if w.startswith("-"):
            prev_opt = "=" not in w
        elif prev_opt or _WRAPPER_VALUE.match(w) or _ASSIGN.match(w):
            prev_opt = False
        else:
            return len(words)
        j += 1
    return j


_WRAPPER_VALUE = re.compile(r"^[\d.,:-]+[smhd]?$")


class CommandParser:
    """Turns one simple command (a word list) into launches; recursive for ``bash -c``,
    ``eval``, ``ray job submit --`` and runners."""

    def __init__(self, line: int, text: str, cwd: tuple[str, ...], depth: int = 0) -> None:
        self.line = line
        self.text = " ".join(text.split())
        self.cwd = cwd
        self.depth = depth
        self.unresolved: list[tuple[int, str]] = []

    def launch(self, kind: str, target: str, launcher: str) -> list[Launch]:
        target = target.strip()
        if not target:
            return []
        if "$" in target or "`" in target:
            if kind == "module" or not target.endswith(".py"):
                self.unresolved.append((self.line, self.text))
                return []
            return [Launch(kind, target, self.line, self.text, launcher, self.cwd, True)]
        if kind == "module" and not _MODULE.match(target):
            return []
        if kind == "file":
            if _PLACEHOLDER.search(target):
                return []
            if target.startswith(("/", "~")):
                return [Launch(kind, target, self.line, self.text, launcher, self.cwd, True)]
        if kind == "console" and not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", target):
            return []
        return [Launch(kind, target, self.line, self.text, launcher, self.cwd, False)]

    def parse(self, words: list[str]) -> list[Launch]:
        if self.depth > 6:
            return []
        i = 0
        n = len(words)
        while i < n:
            w = words[i]
            base = posixpath.basename(w)
            if w in CONTROL or _ASSIGN.match(w) or w in ("export", "local", "declare", "readonly"):
                i += 1
                continue
            if base in WRAPPERS:
                i = _skip_wrapper_options(words, i + 1)
                continue
            break
        if i >= n:
            return []
        w = words[i]
        base = posixpath.basename(w)
        rest = words[i + 1 :]
        if _is_python(w):
            return self._python(rest)
        if base == "torchrun":
            return self._launcher(rest, "torchrun", _TORCHRUN_FLAGS, ("-m", "--module"))
        if base == "deepspeed":
            return self._launcher(rest, "deepspeed", _DEEPSPEED_FLAGS, ("--module",))
        if base == "accelerate":
            if rest and rest[0] == "launch":
                return self._launcher(rest[1:], "accelerate", _ACCELERATE_FLAGS, ("-m", "--module"))
            return []
        if base == "ray":
            if len(rest) >= 2 and rest[0] == "job" and rest[1] == "submit":
                tail = rest[2:]
                if "--" in tail:
                    return self.parse(tail[tail.index("--") + 1 :])
                for j, x in enumerate(tail):
                    if _is_python(x):
                        return self.parse(tail[j:])
            return []
        if base in RUNNERS:
            return self._runner(base, rest)
        if base in ("bash", "sh", "zsh"):
            if "-c" in rest and rest.index("-c") + 1 < len(rest):
                return self._nested(rest[rest.index("-c") + 1])
            return []
        if base == "eval":
            return self._nested(" ".join(rest))
        if base.endswith(".py") and w.startswith(("./", "../", "$", "/")):
            return self.launch("file", w, "exec")
        return []

    def _nested(self, text: str) -> list[Launch]:
        out: list[Launch] = []
        for cmd in simple_commands(split_words(text)):
            sub = CommandParser(self.line, self.text, self.cwd, self.depth + 1)
            out += sub.parse(cmd)
            self.unresolved += sub.unresolved
        return out

    def _python(self, args: list[str]) -> list[Launch]:
        i = 0
        while i < len(args):
            a = args[i]
            if a in _PY_STOP or (a.startswith("-c") and not a.startswith("--")):
                return []
            if a == "-m" or (a.startswith("-") and not a.startswith("--") and a.endswith("m") and len(a) > 2
                              and a[1:].isalpha()):
                if i + 1 >= len(args):
                    return []
                mod = args[i + 1]
                if mod in ("torch.distributed.run", "torch.distributed.launch"):
                    return self._launcher(args[i + 2 :], "torchrun", _TORCHRUN_FLAGS, ("-m", "--module"))
                if mod == "accelerate.commands.launch":
                    return self._launcher(args[i + 2 :], "accelerate", _ACCELERATE_FLAGS, ("-m", "--module"))
                return self.launch("module", mod, "python")
            if a.startswith("-m") and len(a) > 2 and not a.startswith("--"):
                return self.launch("module", a[2:], "python")
            if a in _PY_ARG_OPTS:
                i += 2
                continue
            if a.startswith("-"):
                i += 1
                continue
            return self._file_or_dir(a, "python")
        return []

    def _file_or_dir(self, target: str, launcher: str) -> list[Launch]:
        if target == "setup.py" or target.endswith("/setup.py"):
            return []  # packaging, not a run
        return self.launch("file", target, launcher)

    def _launcher(self, args: list[str], name: str, flags: set[str], module_flags: tuple[str, ...]) -> list[Launch]:
        """Skip a distributed launcher's options; the first positional is the program."""
        module = False
        no_python = False
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a.startswith("-"):
                opt = a.split("=", 1)[0]
                if opt in module_flags:
                    module = True
                if opt in ("--no-python", "--no_python"):
                    no_python = True
                if "=" in a or opt in flags:
                    i += 1
                    continue
                nxt = args[i + 1] if i + 1 < len(args) else ""
                if not nxt or nxt.startswith("-") or nxt.endswith(".py"):
                    i += 1
                else:
                    i += 2
                continue
            break
        if i >= len(args):
            return []
        if no_python:
            return self.parse(args[i:])
        if module:
            return self.launch("module", args[i], name)
        if _is_python(args[i]):
            return self._python(args[i + 1 :])
        return self._file_or_dir(args[i], name)

    def _runner(self, tool: str, args: list[str]) -> list[Launch]:
        """``uv run``, ``poetry run``, ``conda run -n env``...: the command after the options."""
        if not args or args[0] != "run":
            return []
        i = 1
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a in ("-m", "--module") and tool == "uv":
                return self.launch("module", args[i + 1], tool) if i + 1 < len(args) else []
            if a.startswith("-"):
                i += 2 if ("=" not in a and a in _UV_VALUE_OPTS) else 1
                continue
            break
        if i >= len(args):
            return []
        first = args[i]
        if _launcher_word(first) and not first.endswith(".py"):
            return self.parse(args[i:])
        if first.endswith(".py"):
            return self._file_or_dir(first, tool)
        return self.launch("console", first, tool)


def scan_shell(lines: list[tuple[int, str]], variables: dict[str, str] | None = None, make: bool = False,
               yaml: bool = False) -> ShellScan:
    """Every launch in a block of shell lines, with the line each command starts on.

    ``variables`` carries assignments across calls (README blocks of one file share them).
    """
    variables = {} if variables is None else variables
    out = ShellScan()
    cwd: list[str] = []
    if make:
        lines = _make_recipes(lines, variables)
    if yaml:
        lines = _yaml_commands(lines)
    for line, raw in logical_lines(lines, variables, shell=not yaml):
        if not raw.strip():
            continue
        for m in _WRITES.finditer(raw):
            out.generated.add(posixpath.normpath(m.group(1)))
        raw_words = _strip_declare(split_words(raw)) if _ASSIGN_LINE.match(raw) else []
        if raw_words and all(_ASSIGN.match(w) for w in raw_words):
            for w in raw_words:
                name, _, value = w.partition("=")
                variables[name.rstrip("+").split("[", 1)[0]] = expand(value, variables, make)
            continue
        text = expand(raw, variables, make)
        if not _HINT.search(text) and not re.search(r"\b(cd|pushd)\b", text):
            continue
        for cmd in simple_commands(split_words(text)):
            shown = cmd
            while shown and shown[0] in CONTROL:
                shown = shown[1:]
            if shown and shown[0] in ("cd", "pushd"):
                # a folder we cannot name ($VAR, a fresh clone...) is kept as "?": relative paths
                # after it cannot be checked
                dest = next((w for w in shown[1:] if not w.startswith("-")), "~")
                literal = not any(c in dest for c in "$`~") and not dest.startswith("/")
                cwd.append(dest if literal else "?")
                continue
            parser = CommandParser(line, " ".join(shown), tuple(cwd))
            out.launches += parser.parse(cmd)
            out.unresolved += parser.unresolved
    return out


def _strip_declare(words: list[str]) -> list[str]:
    if words and words[0] in ("export", "local", "declare", "readonly", "typeset"):
        return [w for w in words[1:] if not w.startswith("-")]
    return words


_MAKE_VAR = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*[:?+]?=\s*(.*)$")


def _make_recipes(lines: list[tuple[int, str]], variables: dict[str, str]) -> list[tuple[int, str]]:
    """Recipe lines of a Makefile (tab-indented, ``@``/``-``/``+`` prefixes dropped); variables recorded."""
    out: list[tuple[int, str]] = []
    for n, text in lines:
        if text.startswith("\t"):
            out.append((n, text[1:].lstrip().lstrip("@-+")))
            continue
        m = _MAKE_VAR.match(text)
        if m and not text.startswith(" "):
            variables[m.group(1)] = expand(m.group(2).strip(), variables, make=True)
        elif out and out[-1][1].rstrip().endswith("\\"):
            out.append((n, text))
    return out


_YAML_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w.-]*\s*:\s*)?(.*)$")


def _yaml_commands(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Command-looking text of YAML lines: the value after ``- `` / ``key:``, block scalars line by line,
    flow lists like ``["python", "-m", "x"]`` joined."""
    out: list[tuple[int, str]] = []
    for n, text in lines:
        m = _YAML_KEY.match(text)
        if not m:
            continue
        value = m.group(4).strip()
        if value in ("|", ">", "|-", ">-", "|+", ">+", ""):
            continue
        if value.startswith("[") and value.endswith("]"):
            items = [x.strip().strip("'\"") for x in value[1:-1].split(",")]
            value = shlex.join([x for x in items if x])
        elif len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out.append((n, value))
    return out
