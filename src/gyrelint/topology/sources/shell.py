"""Launch scripts (and shell blocks of Markdown): env vars, flags and Hydra overrides.

A batch job's scheduler directives (``#SBATCH --nodes=2 --gpus-per-task=8``) are comments to the
shell but flags of the job to the scheduler: they are read as the flags of an ``sbatch`` command.

``export MASTER_ADDR=10.0.0.1`` and ``NNODES=2`` are environment keys; after the
command word, ``--flag value`` / ``--flag=value`` are flags (``--vllm.num_engines``
reads as the nested key ``vllm.num_engines``) and ``a.b.c=v`` / ``+a.b=v`` / ``++a.b=v``
are Hydra overrides. Shell variables stay as text (``$NNODES``).
"""

from __future__ import annotations

import re
import shlex

from . import RawKey

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_OVERRIDE = re.compile(r"^(\+{0,2})([A-Za-z_][\w\-]*(?:\.[\w\-]+)*)=(.*)$", re.S)
_FENCE = re.compile(r"^\s*(```|~~~)\s*([A-Za-z]*)\s*$")
_SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh"}
# an untagged fence is read as shell when it starts with a launch command
_COMMAND = re.compile(r"^\s*(?:\$\s+)?(?:python3?|uv|torchrun|accelerate|deepspeed|ray|bash|sh|srun|sbatch|\./)\b")
_MAX_LINES = 20_000
# batch-scheduler directives: Slurm's ``#SBATCH``, PBS's ``#PBS``, LSF's ``#BSUB`` (flags of the job's allocation)
_DIRECTIVE = re.compile(r"^#(?:SBATCH|PBS|BSUB)\s+(-.*)$")
_CONFIG_FILE = re.compile(r"(?:^|[\s=@'\"])((?:[\w.-]+/)*[\w.-]+\.(?:ya?ml|toml|json|ini|cfg))(?=$|[\s'\";)])", re.M)


def config_mentions(text: str) -> set[str]:
    """Config file paths a launch script names anywhere on its command lines (``sky launch task.yaml``,
    ``python train.py @ configs/rl.toml``, ``--config=conf/run.yaml``): what the run it starts may read."""
    return {m.group(1) for m in _CONFIG_FILE.finditer(text[:2_000_000])}


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash continuations; each logical line keeps its first line number."""
    out: list[tuple[int, str]] = []
    buf: list[str] = []
    start = 0
    for no, raw in enumerate(text.splitlines()[:_MAX_LINES], 1):
        if not buf:
            start = no
        stripped = raw.rstrip()
        if stripped.endswith("\\"):
            buf.append(stripped[:-1])
            continue
        buf.append(stripped)
        out.append((start, " ".join(buf)))
        buf = []
    if buf:
        out.append((start, " ".join(buf)))
    return out


def _split(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True, posix=True)
    except ValueError:
        return line.split("#", 1)[0].split()


def read_shell(path: str, text: str, source: str = "script", line_offset: int = 0) -> list[RawKey]:
    out: list[RawKey] = []
    for line, logical in logical_lines(text):
        body = logical.strip()
        if body.startswith("$ "):
            body = body[2:]
        if not body:
            continue
        if body.startswith("#"):
            directive = _DIRECTIVE.match(body)
            if directive:  # ``#SBATCH --nodes=2``: the scheduler reads these comments as its own flags
                out.extend(_command(["sbatch", *_split(directive.group(1))], path, line + line_offset, source))
            continue
        for segment in re.split(r"\s*(?:&&|\|\||;|\|)\s*", body):
            out.extend(_command(_split(segment), path, line + line_offset, source))
    return out


def _command(tokens: list[str], path: str, line: int, source: str) -> list[RawKey]:
    out: list[RawKey] = []
    i = 0
    if tokens[:1] == ["local"]:
        return out  # a shell function's own variable (``local url="$1"``), never in the environment
    if tokens[:1] in (["export"], ["declare"], ["readonly"]):
        i = 1
        while i < len(tokens) and tokens[i].startswith("-"):
            i += 1
        for tok in tokens[i:]:
            m = _ASSIGN.match(tok)
            if m:
                out.append(RawKey(m.group(1), m.group(2) or None, path, line, "env"))
        return out
    # leading VAR=value words are environment for the command (or plain shell variables)
    while i < len(tokens):
        m = _ASSIGN.match(tokens[i])
        if not m:
            break
        if " " in m.group(2) and _COMMAND.match(m.group(2)) and i + 1 == len(tokens):
            # ``cmd="deepspeed --num_nodes=1 main.py ..."`` then ``eval $cmd``: the string is the launch command
            out.extend(_command(_split(m.group(2)), path, line, source))
        elif not m.group(2).startswith("("):  # ``ARGS=(`` opens a bash array: its name is not a setting
            out.append(RawKey(m.group(1), m.group(2) or None, path, line, "env" if i + 1 < len(tokens) else source))
        i += 1
    if i < len(tokens) and _installer(tokens[i:]):
        return out  # ``pip install vllm==0.15.0``: packages and version pins, not settings
    if i < len(tokens) and not tokens[i].startswith("--"):
        i += 1  # the command word (a line of a bash array of flags, ``ARGS=(\n --tp 2\n)``, has none)
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok[2:].partition("=")
            if not eq:
                nxt = tokens[i + 1] if i + 1 < len(tokens) else None
                if nxt is not None and not nxt.startswith("-") and not _OVERRIDE.match(nxt):
                    value = nxt
                    i += 1
                else:
                    value = "true"
            if name and re.match(r"^[A-Za-z_][\w\-.]*$", name):
                out.append(RawKey(name, value or None, path, line, source))
        else:
            m = _OVERRIDE.match(tok)
            if m and (m.group(1) or "." in m.group(2) or not m.group(2).isupper()):
                out.append(RawKey(m.group(2), m.group(3) or None, path, line, "hydra-override"))
        i += 1
    return out


_INSTALLERS = {"pip", "pip3", "uv", "conda", "mamba", "micromamba", "apt", "apt-get", "yum", "brew", "poetry", "pixi"}


def _installer(words: list[str]) -> bool:
    """A package manager's command line (``pip install``, ``uv pip install``, ``python -m pip install``)."""
    head = words[0].rsplit("/", 1)[-1]
    if head in _INSTALLERS:  # ``uv run app --tp 2`` runs the app: only an install or add command is a package list
        return "install" in words[1:3] or words[1:2] == ["add"]
    return head.startswith("python") and words[1:3] == ["-m", "pip"]


def markdown_shell_blocks(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each fenced shell block of a Markdown file."""
    blocks: list[tuple[int, str]] = []
    inside = False
    lang_ok = False
    m_lang = ""
    start = 0
    buf: list[str] = []
    for no, raw in enumerate(text.splitlines()[:_MAX_LINES], 1):
        m = _FENCE.match(raw)
        if m and not inside:
            inside, lang_ok, start, buf = True, m.group(2).lower() in _SHELL_LANGS, no, []
            m_lang = m.group(2)
            continue
        if m and inside:
            if buf and (lang_ok or (not m_lang and _COMMAND.match(next((b for b in buf if b.strip()), "")))):
                blocks.append((start, "\n".join(buf)))
            inside = False
            continue
        if inside:
            buf.append(raw)
    return blocks
