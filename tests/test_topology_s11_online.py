"""Online and process verdicts from code patterns the earlier passes missed (session 11, issue 15).

Each fixture is a small repo of made-up names written for one pattern."""

from __future__ import annotations

from pathlib import Path

from repo_tree import write_tree

from gyrelint.api import analyze

_STEP_PUSHES = {
    "loom/__init__.py": "",
    "loom/gen.py": '''
import requests


def sample(url, prompts):
    return requests.post(url + "/generate", json={"prompts": prompts}).json()["texts"]
''',
    "loom/loop.py": '''
from farlib.trainers import PolicyTrainerBase
from farlib.algos import kl_penalty

from loom.gen import sample


class LoomTrainer(PolicyTrainerBase):
    def _step(self, prompts):
        out = sample(self.url, prompts)
        out = kl_penalty(out, self.ref_logprobs(out), coef=self.kl_coef)
        self._update_actor(out)  # the update is the library base class's method
        self.weight_bridge.update_weights(self.steps)

    def fit(self):
        for prompts in self.loader:
            self._step(prompts)
            self.steps += 1


if __name__ == "__main__":
    LoomTrainer().fit()
''',
}


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    return write_tree(tmp_path / "repo", files)


def test_a_step_that_trains_and_pushes_in_its_own_body_is_online(tmp_path):
    """The update is inherited from a library base class, so no repo function joins the optimizer step to
    the push; the step that computes the KL-shaped batch, updates, and pushes weights in one body is online."""
    a = analyze(_write(tmp_path, _STEP_PUSHES), use_cache=False, jobs=1, run_rules=False)
    assert a.functions["loom.loop.LoomTrainer._step"].side.value == "driver"
    assert a.handoff.online
    assert a.handoff.weight_sync_path == []


_ENV_WORKERS = {
    "README.md": "Run it:\n\n```bash\npython run_sim.py --config_path confs/sim.yml\n```\n",
    "confs/sim.yml": "sim:\n  n_sims: 6\n  args:\n    max_turns: 4\nlearner:\n  lm_args:\n    apply_model_parallel: true\n",
    "run_sim.py": '''
import argparse

import yaml
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv
from transformers import AutoModelForCausalLM


class SimEnv:
    def __init__(self, max_turns=1):
        self.max_turns = max_turns


def build_sims(sim_cfg):
    return make_vec_env(SimEnv,
                        n_envs=sim_cfg.get(
                            "n_sims", 1),
                        vec_env_cls=SubprocVecEnv,
                        env_kwargs=sim_cfg.get("args", {}))


def main(path):
    with open(path) as fp:
        cfg = yaml.safe_load(fp)
    sims = build_sims(cfg["sim"])
    lm = AutoModelForCausalLM.from_pretrained("m")
    return sims, lm.generate(sims.reset())


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config_path")
    main(p.parse_args().config_path)
''',
}


def test_vectorized_env_workers_make_their_count_a_process_key_but_not_a_second_program(tmp_path):
    """A library's subprocess vector env (handed to a factory as ``vec_env_cls=``) starts env worker
    processes: the count read into that factory call (``cfg.get("n_sims")`` spread over lines) is a process
    key; the workers hold no policy, so they do not make the run cross-process."""
    a = analyze(_write(tmp_path, _ENV_WORKERS), use_cache=False, jobs=1, run_rules=False)
    assert any(e.signal == "env-workers" for e in a.topology.code_evidence)
    keys = {e.name: e for e in a.topology.keys if not e.scope}
    assert "sim.n_sims" in keys and keys["sim.n_sims"].cls == "process"
    assert "learner.lm_args.apply_model_parallel" in keys
    assert a.topology.verdict == "same-process"


_HYBRID_WORKER = {
    "braid/__init__.py": "",
    "braid/worker.py": '''
import ray
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from farlib.engines import FastEngine


class WeightBridge:
    def __init__(self, module, engine):
        self.module = module
        self.engine = engine

    def refresh(self):
        params = self.module.state_dict()
        self._load(params)

    def _load(self, params):
        model = self.engine.runner.model
        model.load_weights(params.items())


@ray.remote(num_gpus=1)
class HybridWorker:
    def __init__(self, path):
        self.module = FSDP(torch.nn.Linear(4, 4))
        self.optim = torch.optim.AdamW(self.module.parameters())
        self.engine = FastEngine(path)
        self.bridge = WeightBridge(self.module, self.engine)

    def generate(self, prompts):
        self.bridge.refresh()
        return self.engine.generate(prompts)

    def update(self, loss):
        loss.backward()
        self.optim.step()
''',
    "braid/main.py": '''
import ray

from braid.worker import HybridWorker


def main():
    ray.init()
    workers = [HybridWorker.remote("m") for _ in range(2)]
    return ray.get([w.generate.remote(["hi"]) for w in workers])


if __name__ == "__main__":
    main()
''',
}


def test_weights_loaded_into_an_engine_held_beside_the_trained_module_make_one_process(tmp_path):
    """Ray actors host a worker whose helper reads the trained module's parameters and loads them straight into
    the engine's model (no transport in between): generation and the update share one process, whatever Ray
    starts around it, and the deciding reason comes first."""
    a = analyze(_write(tmp_path, _HYBRID_WORKER), use_cache=False, jobs=1, run_rules=False)
    hits = [e for e in a.topology.code_evidence if e.signal == "engine-local-load"]
    assert [(e.file, e.line) for e in hits] == [("braid/worker.py", 19)]
    assert a.topology.verdict == "same-process"
    assert "in-process engine" in a.topology.reasons[0]


def test_weights_received_from_a_transport_are_no_local_load(tmp_path):
    """The engine-side receiver loads what a transport delivered (here a Ray object), not the parameters of a
    module the instance holds: no co-residence, and Ray keeps the verdict cross-process."""
    files = dict(_HYBRID_WORKER)
    files["braid/worker.py"] = files["braid/worker.py"].replace(
        "        params = self.module.state_dict()\n        self._load(params)",
        "        params = ray.get(self.inbox)\n        self._load(params)")
    a = analyze(_write(tmp_path, files), use_cache=False, jobs=1, run_rules=False)
    assert not [e for e in a.topology.code_evidence if e.signal == "engine-local-load"]
    assert a.topology.verdict == "cross-process"
