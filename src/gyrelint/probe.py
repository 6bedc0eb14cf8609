"""Run counters for an online RL loop, logged as lines ``gyrelint logcheck`` reads as they are.

Drop it into the loop (standard library only, so it costs nothing to depend on)::

    from gyrelint import probe
    probe.sampled(len(batch))        # sampler: trajectories handed to the carrier
    probe.consumed(len(batch))       # trainer: trajectories taken off the carrier
    probe.step()                     # trainer: after optimizer.step()
    probe.policy_version(version)    # sampler: version of the weights it samples with

Each call appends one line, e.g. ``gyrelint-probe sampled=+4 total=128 pid=123 t=1733140000.123456``,
to the file named by ``GYRELINT_PROBE_LOG`` (or given to :func:`configure`), else to stderr.
``GYRELINT_PROBE_LOG=off`` turns the probe into a no-op.

Counters are per process (a forked child starts from zero); every line carries its increment,
so ``logcheck`` sums increments across processes. Each line is written with one ``os.write`` on a
descriptor opened with ``O_APPEND``, so lines from many threads and processes never interleave.
"""

from __future__ import annotations

import os
import sys
import threading
import time

__all__ = ["configure", "sampled", "consumed", "step", "policy_version", "totals", "PREFIX", "ENV_VAR"]

PREFIX = "gyrelint-probe"
ENV_VAR = "GYRELINT_PROBE_LOG"
_OFF = ("off", "0", "none", "false")


class _Probe:
    """Per-process counters and the descriptor lines go to; re-initialised in a forked child."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.totals: dict[str, int] = {}
        self.target: str | None = None  # None: not decided yet (read the env var on first use)
        self.fd: int | None = None
        self.owns_fd = False
        self.off = False
        # Without fork hooks (not on Linux/macOS) every call compares the pid instead.
        self.check_pid = not hasattr(os, "register_at_fork")

    def reset_after_fork(self) -> None:
        # The lock may have been held by another thread at fork time: make a fresh one.
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.totals = {}
        # Keep the inherited O_APPEND descriptor: appends from parent and child stay atomic.

    def set_target(self, path: str | None) -> None:
        with self.lock:
            self._close()
            self.target = path if path is not None else "-"
            self.off = False

    def _close(self) -> None:
        if self.fd is not None and self.owns_fd:
            try:
                os.close(self.fd)
            except OSError:
                pass
        self.fd, self.owns_fd = None, False

    def _open(self) -> int | None:
        if self.target is None:
            self.target = os.environ.get(ENV_VAR) or "-"
        target = self.target
        if target.lower() in _OFF:
            self.off = True
            return None
        if target == "-":
            try:
                fd = sys.stderr.fileno() if sys.stderr else 2
            except (AttributeError, ValueError, OSError):  # a replaced stderr (capture, notebook)
                fd = 2
            self.fd, self.owns_fd = fd, False
            return self.fd
        try:
            self.fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self.owns_fd = True
        except OSError as exc:  # never break the user's loop over a log file
            sys.stderr.write(f"{PREFIX}: cannot open {target} ({exc.strerror}); logging to stderr\n")
            self.target = "-"
            self.fd, self.owns_fd = 2, False
        return self.fd

    def emit(self, name: str, amount: int | float, delta: bool) -> None:
        if self.off:
            return
        if self.check_pid and os.getpid() != self.pid:
            self.reset_after_fork()
        with self.lock:
            if delta:
                total = self.totals.get(name, 0) + int(amount)
                self.totals[name] = total
                body = f"{name}=+{int(amount)} total={total}"
            else:
                self.totals[name] = int(amount)
                body = f"{name}={int(amount)}"
            fd = self.fd if self.fd is not None else self._open()
            if fd is None:
                return
            line = f"{PREFIX} {body} pid={self.pid} t={time.time():.6f}\n".encode()
            try:
                os.write(fd, line)
            except OSError:
                pass


_PROBE = _Probe()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_PROBE.reset_after_fork)


def configure(path: str | os.PathLike[str] | None) -> None:
    """Send probe lines to ``path`` (appended), ``None``/``"-"`` for stderr, ``"off"`` to disable.

    Also exported as ``GYRELINT_PROBE_LOG`` so processes started later with spawn log there too.
    """
    target = "-" if path is None else os.fspath(path)
    os.environ[ENV_VAR] = target
    _PROBE.set_target(target)


def sampled(n: int = 1) -> None:
    """``n`` trajectories produced by the sampler and handed to the carrier (queue, store, file)."""
    _PROBE.emit("sampled", n, True)


def consumed(n: int = 1) -> None:
    """``n`` trajectories taken off the carrier by the trainer."""
    _PROBE.emit("consumed", n, True)


def step(n: int = 1) -> None:
    """``n`` optimizer steps done (call after ``optimizer.step()``)."""
    _PROBE.emit("step", n, True)


def policy_version(version: int) -> None:
    """The version of the weights the sampler is sampling with right now."""
    _PROBE.emit("policy_version", version, False)


def totals() -> dict[str, int]:
    """This process's counters so far (for the loop's own logging)."""
    with _PROBE.lock:
        return dict(_PROBE.totals)
