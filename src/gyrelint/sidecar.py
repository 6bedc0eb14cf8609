"""One stage run in a forked child beside the parent's next stage, so that a cold run uses the
second core after the parse (issue 18 item 2).

The child is a plain ``os.fork`` of this process: it sees the index and the graphs as they are
at the fork, computes, and sends its answer back through a pipe as msgpack bytes (never pickle).
Anything that goes wrong in the child (an exception, a crash, a kill) reads as "no
answer", and the caller computes the stage in-process as it always did: the sidecar can only
save time, never change a result or an error.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import struct
import sys
import threading
from collections.abc import Callable

_LEN = struct.Struct("<Q")
_MAX_MESSAGE = 1 << 31  # 2 GiB: anything longer is a broken child, not an answer


def can_fork() -> bool:
    """``fork`` where it is safe: POSIX but macOS, and no other thread running (a thread holding
    a lock at the fork would leave the child hung)."""
    return hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1


class Sidecar:
    """A forked child running ``work()``, which returns the bytes of its answer. A thread of
    this process reads the answer as soon as it comes, so the child exits (and lets go of its
    copy of the memory) when it is done, not when this process next looks."""

    def __init__(self, work: Callable[[], bytes]) -> None:
        res_r, res_w = os.pipe()
        with _signals_held():
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(res_r)
                _child(work, res_w)
        os.close(res_w)
        self.pid: int | None = pid
        self._res: int | None = res_r
        self._got: list[bytes | None] = [None]
        self._reader = threading.Thread(target=self._read, args=(res_r,), name="gyrelint-sidecar", daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        try:
            head = _read_exact(fd, _LEN.size)
            if head is not None:
                (n,) = _LEN.unpack(head)
                self._got[0] = _read_exact(fd, n) if n <= _MAX_MESSAGE else None
        except OSError:
            self._got[0] = None

    def result(self) -> bytes | None:
        """The child's answer, or None when it failed; the child is reaped either way."""
        got = None
        try:
            self._reader.join()
            got = self._got[0]
        finally:
            self.close(kill=got is None)
        return got

    def close(self, kill: bool = True) -> None:
        """Stop the child if it still runs (or, ``kill`` False, wait for it to exit: it has
        answered), reap it and close the pipe (idempotent)."""
        pid, self.pid = self.pid, None
        if pid is not None:
            try:
                if kill and os.waitpid(pid, os.WNOHANG)[0] == 0:
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass
        self._reader.join()  # the child is gone: its end of the pipe is closed, the read ends
        if self._res is not None:
            os.close(self._res)
            self._res = None


def _child(work: Callable[[], bytes], res: int) -> None:
    """Run ``work`` and exit without running anything of the parent's (no atexit handler, no
    flush of the parent's buffered stdout: ``os._exit``)."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent stops this child
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        parent = os.getppid()
        from .index import _die_with_parent

        _die_with_parent()
        if os.getppid() != parent:
            os._exit(1)
        gc.freeze()  # what the child inherited is never garbage: do not walk it
        out = work()
        _write_all(res, _LEN.pack(len(out)) + out)
        code = 0
    except BaseException:  # noqa: BLE001 - any failure reads as "no answer" in the parent
        code = 1
    finally:
        os._exit(code)


def _read_exact(fd: int, n: int) -> bytes | None:
    parts: list[bytes] = []
    left = n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held():
    """Hold Ctrl-C and SIGTERM across the fork (the child unblocks them once its handlers are
    set), so neither lands half-way through it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
