"""The ``analyze`` report is the same whatever the string-hash seed.

Python randomises string hashes per process, so a walk over a set of names (the members
of a cycle of mutually recursive functions, the targets of a call site) can change order
between runs. Sides propagate from callees to callers; inside a cycle the order in which
members were labelled decided how far evidence travelled, so sides, evidence, handoff
kinds and the boundary modules changed from run to run. Each repo below is small but has
long call cycles with evidence at one point, two cycles meeting, and fields crossing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_SAMPLER = '''\
from dataclasses import dataclass

from vllm import LLM, SamplingParams


@dataclass
class Episode:
    prompt_ids: list
    response_ids: list
    rewards: list
    logprobs: list


def make_engine(path):
    return LLM(model=path)


{ring}


def roll(llm, prompts):
    outs = llm.generate(prompts, SamplingParams(n=2))
    eps = [Episode(prompt_ids=o.prompt_token_ids, response_ids=o.outputs[0].token_ids, rewards=[0.0],
                   logprobs=o.outputs[0].logprobs) for o in outs]
    return s_0(llm, eps, 0)
'''

_TRAINER = '''\
import torch


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-6)


{ring}


def learn(model, opt, episodes):
    for ep in episodes:
        logp = model(ep.prompt_ids).logits.log_softmax(-1)
        loss = -(logp * ep.rewards[0]).mean() + ep.logprobs[0] * 0
        loss.backward()
        opt.step()
        opt.zero_grad()
    return t_0(model, opt, episodes, 0)
'''

_MIXED = '''\
import torch
from vllm import SamplingParams


{ring}


def m_gen(llm, prompts):
    return llm.generate(prompts, SamplingParams(temperature=1.0))


def m_opt(model, optimizer, batch):
    loss = model(batch).loss
    loss.backward()
    optimizer.step()
    return loss
'''

_SYNC = '''\
import torch.distributed as dist


{ring}


def broadcast_weights(model, group):
    for name, p in model.named_parameters():
        dist.broadcast(p.data, src=0, group=group)
    return w_0(model, group, 0)


def load_into_engine(llm, named):
    llm.llm_engine.model_executor.driver_worker.model_runner.model.load_weights(named)
'''

_MAIN = '''\
from ringrl.mixed import m_0
from ringrl.sampler import make_engine, roll
from ringrl.sync import broadcast_weights
from ringrl.trainer import learn, make_optimizer


def main(model, prompts, group):
    llm = make_engine("m")
    opt = make_optimizer(model)
    for step in range(10):
        episodes = roll(llm, prompts)
        learn(model, opt, episodes)
        broadcast_weights(model, group)
        m_0(llm, model, opt, prompts, 0)


if __name__ == "__main__":
    main(None, ["hi"], None)
'''


def _ring(prefix: str, n: int, params: str, hooks: dict[int, str]) -> str:
    """``n`` functions calling the next one and the last calling the first: one call cycle."""
    out = []
    for i in range(n):
        nxt = (i + 1) % n
        body = [f"def {prefix}_{i}({params}, depth):", "    if depth > 3:", "        return None"]
        if i in hooks:
            body.append(f"    {hooks[i]}")
        body.append(f"    return {prefix}_{nxt}({params.replace('=None', '')}, depth + 1)")
        out.append("\n".join(body))
    return "\n\n\n".join(out)


def _write_repo(root: Path) -> None:
    pkg = root / "ringrl"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sampler.py").write_text(_SAMPLER.format(ring=_ring("s", 9, "llm, eps", {
        4: "llm.generate([e.prompt_ids for e in eps])", 7: "eps.append(Episode([], [], [], []))"})))
    (pkg / "trainer.py").write_text(_TRAINER.format(ring=_ring("t", 9, "model, opt, episodes", {
        3: "opt.step()", 6: "model(episodes[0].response_ids).loss.backward()"})))
    (pkg / "mixed.py").write_text(_MIXED.format(ring=_ring("m", 12, "llm, model, opt, prompts", {
        2: "m_gen(llm, prompts)", 8: "m_opt(model, opt, prompts)", 10: "opt.zero_grad()"})))
    (pkg / "sync.py").write_text(_SYNC.format(ring=_ring("w", 8, "model, group", {
        1: "dist.broadcast(model.weight, src=0, group=group)", 5: "load_into_engine(model, group)"})))
    (pkg / "main.py").write_text(_MAIN)


def _report(root: Path, seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, "-m", "gyrelint", "analyze", str(root), "--no-cache", "--format", "json",
                           "--jobs", "1"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    data.pop("stats", None)  # timings
    return data


def test_analyze_report_is_the_same_under_every_hash_seed(tmp_path: Path) -> None:
    _write_repo(tmp_path)
    first = _report(tmp_path, "1")
    sides = {f["side"] for f in first["functions"]}
    assert {"sampling", "training"} <= sides  # the repo exercises the propagation at all
    for seed in ("2", "3", "4"):
        other = _report(tmp_path, seed)
        for part in first:
            assert other[part] == first[part], f"'{part}' differs between PYTHONHASHSEED=1 and {seed}"
