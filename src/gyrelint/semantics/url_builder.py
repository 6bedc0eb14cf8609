"""A function that hands a URL back is no request: whoever uses the URL makes the call.

``return f"http://{ip}:8080/v2/completions"`` names a generation route, yet the body looks up an
address and returns it (a pod IP from Kubernetes, a config join); the request is sent by the code
that takes the string. Endpoint signals read that body's literal as the operation only when the
body sends a request, hands the literal to a call, or keeps it in a local.
"""

from __future__ import annotations

from .facts import Facts, FnFacts


def returns_url(fn: FnFacts, line: int, facts: Facts) -> bool:
    """The literal on ``line`` is only returned: a ``return`` of this body, with no call on that line."""
    if any(c.site.line == line for c in fn.calls) or any(a.line == line for a in fn.assigns):
        return False
    summary = facts.summaries.get(fn.module)
    if summary is None:
        return False
    scope = fn.qualname[len(fn.module) + 1:]
    return any(f.op == "ret" and f.line == line and f.scope == scope for f in summary.flows)
