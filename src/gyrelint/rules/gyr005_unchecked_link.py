"""GYR005: cross-process handoff with no code that checks the link itself."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, Location, Severity
from .base import Example, Rule, RuleContext

_BAD = """\
import ray


@ray.remote
class Rollout:
    def generate(self, prompts):
        return [p + "!" for p in prompts]


def main():
    ray.init()
    worker = Rollout.remote()
    batch = ray.get(worker.generate.remote(["hi"]))  # a dead link hangs or fails here
    print(batch)
"""

_GOOD = """\
import logging

import ray

log = logging.getLogger(__name__)


@ray.remote
class Rollout:
    def ping(self):
        return "ok"

    def generate(self, prompts):
        return [p + "!" for p in prompts]


def main():
    ray.init()
    worker = Rollout.remote()
    ready, _ = ray.wait([worker.ping.remote()], timeout=60)
    if not ready:
        log.error("rollout worker did not answer the ping")
        raise SystemExit(1)
    batch = ray.get(worker.generate.remote(["hi"]))
    print(batch)
"""


class UncheckedLink(Rule):
    id = "GYR005"
    name = "unchecked-cross-process-link"
    severity = Severity.WARNING
    summary = "The chains run in separate processes but no code checks the link between them."
    rationale = ("A live process is not a live link. When the sampler and trainer talk across processes (Ray, "
                 "NCCL, HTTP, ZMQ, queues), a dead or misrouted link shows up as a hang or a timeout far from the "
                 "cause. A health check, ping or ready-wait with logging names the broken link at start-up.")
    fix = ("Add a start-up check of the link itself (ping/health/ready wait on the carrier, logged), "
           "then the carrier's address and fields; never raise timeouts to get past it.")
    bad = (Example({"launch.py": _BAD}, "talks to a Ray actor without ever checking it answers"),)
    good = (Example({"launch.py": _GOOD}, "pings the worker and logs a failure before the first handoff"),)
    tags = ("topology",)

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        topo = ctx.analysis.topology
        if topo.verdict != "cross-process" or topo.link_checks:
            return
        ev = [Location(c.file, max(c.line, 1), f"{c.signal}{': ' + c.detail if c.detail else ''}")
              for c in topo.code_evidence]
        ev += [Location(k.file, max(k.line, 1), f"config {k.key} ({k.cls})") for k in topo.config_keys[:4]]
        where = ev[0] if ev else ctx.anchor()
        transports = [t for t in (topo.trajectory_transport, topo.weight_transport) if t and t != "unknown"]
        via = f" over {' / '.join(dict.fromkeys(transports))}" if transports else ""
        yield self.finding(
            f"sampler and trainer run in separate processes{via}, but no code checks the link "
            f"(no ping, health check or ready wait)", where, "cross-process", ev)


RULE = UncheckedLink
