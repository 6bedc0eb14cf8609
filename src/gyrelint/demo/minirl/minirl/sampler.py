"""The sampler process: roll out the current policy, put trajectories on the queue, load new weights."""

import queue as queue_mod

import torch

from .counters import probe
from .env import RingEnv
from .policy import Policy


def rollout_group(env, policy, group_size, group_id, version, device):
    """`group_size` episodes from one start state: one advantage group for the trainer."""
    start = env.reset()
    start_state = env.state
    trajectories = []
    for _ in range(group_size):
        obs = env.reset(start_state) if trajectories else start
        observations, actions, log_probs, rewards = [], [], [], []
        done = False
        while not done:
            obs_t = torch.tensor(obs, device=device)
            action, log_prob = policy.act(obs_t)
            observations.append(obs_t)
            actions.append(action)
            log_probs.append(log_prob)
            obs, reward, done = env.step(int(action))
            rewards.append(reward)
        trajectories.append({
            "obs": torch.stack(observations),
            "actions": torch.stack(actions),
            "log_probs": torch.stack(log_probs),
            "rewards": torch.tensor(rewards),
            "group_id": group_id,
            "policy_version": version,
        })
    return trajectories


def load_latest_weights(policy, weight_queue, version):
    """Drain the weight queue without blocking; load the newest state_dict found."""
    latest = None
    while True:
        try:
            latest = weight_queue.get_nowait()
        except queue_mod.Empty:
            break
    if latest is None:
        return version
    new_version, state_dict = latest
    policy.load_state_dict(state_dict)
    return new_version


def put_until_stopped(traj_queue, item, stop_event, timeout):
    """Hand a list of trajectories to the trainer's queue; count them once they are on it."""
    while not stop_event.is_set():
        try:
            traj_queue.put(item, timeout=timeout)
        except queue_mod.Full:
            continue
        probe.sampled(len(item))
        return True
    return False


def run_sampler(worker_id, cfg, traj_queue, weight_queue, stop_event, probe_log=None):
    """Process target: sample until the trainer sets `stop_event`."""
    torch.set_num_threads(1)
    if probe_log:
        probe.configure(probe_log)
    env_cfg, s_cfg = cfg["env"], cfg["sampler"]
    device = torch.device(s_cfg.get("device", "cpu"))
    torch.manual_seed(cfg["seed"])  # same initial weights as the trainer
    policy = Policy(env_cfg["num_states"], env_cfg["num_actions"]).to(device)
    torch.manual_seed(cfg["seed"] * 1000 + worker_id + 1)
    env = RingEnv(env_cfg["num_states"], env_cfg["num_actions"], env_cfg["episode_len"],
                  seed=cfg["seed"] * 1000 + worker_id)
    version = 0
    group_id = worker_id << 32
    probe.policy_version(version)
    try:
        while not stop_event.is_set():
            version = load_latest_weights(policy, weight_queue, version)
            item = []
            for _ in range(s_cfg["groups_per_put"]):
                item.extend(rollout_group(env, policy, s_cfg["group_size"], group_id, version, device))
                group_id += 1
            if put_until_stopped(traj_queue, item, stop_event, cfg["timeouts"]["put_s"]):
                probe.policy_version(version)
    finally:
        # Items nobody will read must not keep this process alive at exit.
        traj_queue.cancel_join_thread()
