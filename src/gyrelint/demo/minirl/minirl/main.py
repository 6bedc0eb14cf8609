"""Entry point: start the sampler processes, run the trainer here, stop everything cleanly."""

import argparse
import sys
import warnings

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from .config import load_config  # noqa: E402
from .counters import probe  # noqa: E402
from .sampler import run_sampler  # noqa: E402
from .trainer import Trainer  # noqa: E402

FAULTS = ("none", "broken-queue", "no-sync")


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="minirl", description="A tiny online RL loop on CPU.")
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override one config value (repeatable)")
    p.add_argument("--steps", type=int, help="training steps (trainer.total_steps)")
    p.add_argument("--workers", type=int, help="sampler processes (sampler.num_workers)")
    p.add_argument("--probe-log", help="file the run counters are appended to (default: stderr)")
    p.add_argument("--fault", choices=FAULTS, default="none",
                   help="break the loop on purpose: broken-queue (nothing reaches the trainer), "
                        "no-sync (weights never go back to the sampler)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    overrides = list(args.overrides)
    if args.steps is not None:
        overrides.append(f"trainer.total_steps={args.steps}")
    if args.workers is not None:
        overrides.append(f"sampler.num_workers={args.workers}")
    cfg = load_config(args.config, overrides)
    torch.set_num_threads(1)
    if args.probe_log:
        probe.configure(args.probe_log)

    method = cfg["multiprocessing"]["start_method"]
    if method not in mp.get_all_start_methods():  # no fork on Windows
        method = "spawn"
    ctx = mp.get_context(method)
    q_cfg = cfg["queue"]
    traj_queue = ctx.Queue(maxsize=q_cfg["trajectory_maxsize"])
    # The broken-queue fault: the trainer drains a queue that no sampler writes to.
    trainer_queue = ctx.Queue(maxsize=q_cfg["trajectory_maxsize"]) if args.fault == "broken-queue" else traj_queue
    n_workers = cfg["sampler"]["num_workers"]
    weight_queues = [ctx.Queue(maxsize=q_cfg["weights_maxsize"]) for _ in range(n_workers)]
    stop_event = ctx.Event()

    samplers = [
        ctx.Process(target=run_sampler, name=f"sampler-{i}", daemon=True,
                    args=(i, cfg, traj_queue, weight_queues[i], stop_event, args.probe_log))
        for i in range(n_workers)
    ]
    for proc in samplers:
        proc.start()

    trainer = Trainer(cfg, trainer_queue, weight_queues, sync_weights=args.fault != "no-sync")
    try:
        ok = trainer.fit()
    finally:
        stop_event.set()
        for q in weight_queues:
            q.cancel_join_thread()
        for proc in samplers:
            proc.join(timeout=cfg["timeouts"]["join_s"])
            if proc.is_alive():
                proc.terminate()
                proc.join()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
