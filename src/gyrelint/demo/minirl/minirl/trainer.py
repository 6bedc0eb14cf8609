"""The trainer: take trajectories off the queue, compute a clipped policy-gradient update, sync weights back."""

import queue as queue_mod
import sys
import time

import torch

from .counters import probe
from .policy import Policy


def group_advantages(trajectories, eps=1e-6):
    """Return minus the group mean, divided by the group std (one group per start state)."""
    returns = torch.tensor([float(t["rewards"].sum()) for t in trajectories])
    groups = torch.tensor([t["group_id"] for t in trajectories])
    advantages = torch.zeros_like(returns)
    for gid in groups.unique():
        mask = groups == gid
        r = returns[mask]
        std = r.std() if r.numel() > 1 else torch.tensor(0.0)
        advantages[mask] = (r - r.mean()) / (std + eps)
    return advantages, returns


class Trainer:
    def __init__(self, cfg, traj_queue, weight_queues, sync_weights=True):
        t_cfg, env_cfg = cfg["trainer"], cfg["env"]
        self.cfg = cfg
        self.device = torch.device(t_cfg["devices"][0])
        torch.manual_seed(cfg["seed"])  # the sampler builds the same initial weights
        self.policy = Policy(env_cfg["num_states"], env_cfg["num_actions"]).to(self.device)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=t_cfg["lr"])
        self.traj_queue = traj_queue
        self.weight_queues = weight_queues
        self.sync_enabled = sync_weights
        self.version = 0
        self.consumed = 0

    def collect(self):
        """Block until a full batch arrived; None when the queue stayed empty too long."""
        need = self.cfg["trainer"]["batch_trajectories"]
        timeouts = self.cfg["timeouts"]
        batch, idle_since = [], time.monotonic()
        while len(batch) < need:
            try:
                item = self.traj_queue.get(timeout=timeouts["get_s"])
            except queue_mod.Empty:
                if time.monotonic() - idle_since > timeouts["max_idle_s"]:
                    return None
                continue
            idle_since = time.monotonic()
            probe.consumed(len(item))
            self.consumed += len(item)
            batch.extend(item)
        return batch

    def train_step(self, batch):
        advantages, returns = group_advantages(batch)
        obs = torch.cat([t["obs"] for t in batch]).to(self.device)
        actions = torch.cat([t["actions"] for t in batch]).to(self.device)
        old_log_probs = torch.cat([t["log_probs"] for t in batch]).to(self.device)
        step_adv = torch.cat([advantages[i].repeat(len(t["actions"])) for i, t in enumerate(batch)]).to(self.device)

        new_log_probs = self.policy.log_prob(obs, actions)
        ratio = torch.exp(new_log_probs - old_log_probs)
        clip_eps = self.cfg["trainer"]["clip_eps"]
        surrogate = torch.min(ratio * step_adv, torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps) * step_adv)
        loss = -surrogate.mean()

        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.cfg["trainer"]["max_grad_norm"])
        self.optimizer.step()
        staleness = self.version - min(t["policy_version"] for t in batch)
        return {"loss": loss.item(), "grad_norm": float(grad_norm), "reward_mean": float(returns.mean()),
                "staleness": staleness}

    def sync_weights(self):
        """Send a copy of the weights to every sampler (the newest replaces a pending one)."""
        if not self.sync_enabled:
            return
        state_dict = {k: v.detach().clone().cpu() for k, v in self.policy.state_dict().items()}
        for q in self.weight_queues:
            while True:
                try:
                    q.put_nowait((self.version, state_dict))
                    break
                except queue_mod.Full:
                    try:
                        q.get_nowait()
                    except queue_mod.Empty:
                        pass

    def fit(self):
        total = self.cfg["trainer"]["total_steps"]
        sync_every = self.cfg["trainer"]["sync_every"]
        for step in range(1, total + 1):
            batch = self.collect()
            if batch is None:
                print(f"trainer: no trajectories for {self.cfg['timeouts']['max_idle_s']} s at step {step}; "
                      "stopping", file=sys.stderr, flush=True)
                return False
            metrics = self.train_step(batch)
            probe.step()
            self.version += 1
            if step % sync_every == 0:
                self.sync_weights()
            print(f"trainer step={step} loss={metrics['loss']:.4f} grad_norm={metrics['grad_norm']:.4f} "
                  f"reward_mean={metrics['reward_mean']:.3f} staleness={metrics['staleness']} "
                  f"consumed_total={self.consumed}", flush=True)
        print(f"trainer: finished {total} steps", flush=True)
        return True
