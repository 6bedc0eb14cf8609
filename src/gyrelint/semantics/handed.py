"""A bound method started in a thread or process: ``Thread(target=self.model.generate, kwargs=kw)``.

The callable is run by the library with the ``args=`` / ``kwargs=`` it is handed, so for the
call signals it is a call of that method (pattern I): a chat engine that streams tokens from
``model.generate`` in a worker thread generates, although its body never writes the call.
"""

from __future__ import annotations

from ..index.summary import CallSite

# library constructors that run their ``target=`` callable (threading, multiprocessing, torch.multiprocessing)
STARTS_TARGET = frozenset({"Thread", "Process"})


def started_target(site: CallSite) -> CallSite | None:
    """The call ``Thread(target=obj.m, args=..., kwargs=...)`` makes, as a call site of ``obj.m``.

    Only a bound method of some other object (``obj.m``, ``self.x.m``), as ``_handed_call``: the
    graphs stage binds plain functions and the class's own methods handed over this way. The
    arguments are not spelled out (a tuple or dict value), so the site is marked as starred.
    """
    target = site.kwarg("target")
    if target is None or target.kind != "name" or not isinstance(target.value, str) or "." not in target.value:
        return None
    head, _, rest = target.value.partition(".")
    if head in ("self", "cls") and "." not in rest:
        return None
    starred = site.kwarg("args") is not None or site.kwarg("kwargs") is not None
    return CallSite(site.scope, target.value, site.line, (), (), starred, False)
