"""Online and process verdicts from code patterns the earlier passes missed (session 11, issue 15).

Each fixture is a small repo of made-up names written for one pattern."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import analyze

from repo_tree import write_tree

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
