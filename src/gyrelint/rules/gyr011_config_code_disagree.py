"""GYR011: config and code disagree about the process topology."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, Location, Severity
from .base import Example, Rule, RuleContext


def _int(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        f = float(str(v).strip().strip("'\""))
    except ValueError:
        return None
    return int(f) if f == int(f) else None


_BAD_CFG = """\
trainer:
  nnodes: 2
  n_gpus_per_node: 8
rollout:
  num_engines: 4
"""

_GOOD_LOOP = """\
import ray
import yaml


@ray.remote(num_gpus=1)
class Engine:
    def generate(self, prompts):
        return prompts


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    ray.init()
    engines = [Engine.remote() for _ in range(cfg["rollout"]["num_engines"])]
    return ray.get([e.generate.remote(["hi"]) for e in engines])
"""

_BAD_LOOP = """\
import yaml


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    return [p + "!" for p in ["hi"]] * cfg["trainer"]["nnodes"]
"""


class ConfigCodeDisagree(Rule):
    id = "GYR011"
    name = "config-code-disagree"
    severity = Severity.WARNING
    summary = "The config implies many processes but the code has no transport between them, or the reverse."
    rationale = ("Process counts, nodes and ports in the config say the chains run apart; transports in the code "
                 "(Ray, NCCL groups, HTTP, queues) say how they talk. When one side says 'many' and the other "
                 "'one', either the config is dead (nothing reads it) or the code cannot honour it.")
    fix = ("Make them agree: wire the transport the config describes (or drop the dead keys); check which keys "
           "the launcher really passes first.")
    bad = (Example({"config.yaml": _BAD_CFG, "main.py": _BAD_LOOP}, "config asks for 2 nodes and 4 engines; "
                   "the code never leaves one process"),)
    good = (Example({"config.yaml": _BAD_CFG, "main.py": _GOOD_LOOP}, "the code starts Ray actors for them"),)
    tags = ("topology",)

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        topo = ctx.analysis.topology
        process = [k for k in topo.config_keys if k.cls == "process"]
        ports = [k for k in topo.config_keys if k.cls == "port"]
        many = [k for k in process if (_int(k.value) or 0) > 1]
        code = list(topo.code_evidence)
        if many and not code and topo.verdict != "cross-process":
            ev = [Location(k.file, max(k.line, 1), f"{k.key} = {k.value}") for k in many + ports[:3]]
            yield self.finding(
                f"config asks for several processes ({', '.join(f'{k.key}={k.value}' for k in many[:3])}) but no "
                f"code starts or talks to another process (no Ray, multiprocessing, process group, server or "
                f"socket)", ev[0], "config-many", ev)
            return
        numeric = [k for k in process if _int(k.value) is not None]
        if code and numeric and not many and not ports and topo.verdict != "same-process":
            ev = [Location(c.file, max(c.line, 1), c.signal) for c in code[:6]]
            ev += [Location(k.file, max(k.line, 1), f"{k.key} = {k.value}") for k in numeric[:6]]
            yield self.finding(
                f"code talks across processes ({code[0].signal} at {code[0].file}:{code[0].line}) but every "
                f"process count in the config is 1 ({', '.join(f'{k.key}={k.value}' for k in numeric[:3])}) and "
                f"no port or address is configured", ev[0], "code-many", ev)


RULE = ConfigCodeDisagree
