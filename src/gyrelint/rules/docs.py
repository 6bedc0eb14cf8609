"""The docs page of a rule (docs/rules/GYRnnn.md), generated from the rule class so they never drift."""

from __future__ import annotations

from .base import Example, Rule


def _example(ex: Example) -> str:
    out = []
    if ex.note:
        out.append(f"*{ex.note}*\n")
    for path, src in ex.files.items():
        lang = {"md": "markdown", "yaml": "yaml", "yml": "yaml", "toml": "toml", "sh": "bash"}.get(
            path.rsplit(".", 1)[-1], "python")
        out.append(f"`{path}`\n\n```{lang}\n{src.rstrip()}\n```\n")
    return "\n".join(out)


def render_rule_doc(rule: type[Rule]) -> str:
    bad = "\n".join(_example(e) for e in rule.bad)
    good = "\n".join(_example(e) for e in rule.good)
    return (
        f"# {rule.id}: {rule.name}\n\n"
        f"**Default severity:** {rule.severity.value}  \n"
        f"**Summary:** {rule.summary}\n\n"
        f"## Why it matters\n\n{rule.rationale}\n\n"
        f"## What to do\n\n{rule.fix}\n\n"
        f"## Bad\n\n{bad}\n"
        f"## Good\n\n{good}\n"
        f"## Configure\n\n"
        f"```toml\n[tool.gyrelint.rules]\n{rule.id} = \"{rule.severity.value}\"  # or error, warning, info, off\n```\n\n"
        f"Silence one occurrence with `# gyrelint: ignore[{rule.id}]` on the reported line.\n\n"
        f"<!-- generated from src/gyrelint/rules by `python -m gyrelint.rules.docs docs/rules`; edit the rule, "
        f"not this page -->\n"
    )


def main(argv: list[str] | None = None) -> int:
    import sys
    from pathlib import Path

    from .registry import RULES

    target = Path((argv or sys.argv[1:] or ["docs/rules"])[0])
    target.mkdir(parents=True, exist_ok=True)
    for r in RULES:
        (target / f"{r.id}.md").write_text(render_rule_doc(r), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
