"""One stage run in a forked child beside the parent's next stage, so that a cold run uses the
second core after the parse (issue 18 item 2).

The child is a plain ``os.fork`` of this process: it sees the index and the graphs as they are
at the fork, computes, and sends its answer back through a pipe as msgpack bytes (never pickle).
The parent may send the child one message while it works (what only the parent's own stage can
know). Anything that goes wrong in the child (an exception, a crash, a kill) reads as "no
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
    """A forked child running ``work(receive)``; ``receive()`` blocks until the parent's
    :meth:`send` and returns those bytes. ``work`` returns the bytes of its answer."""

    def __init__(self, work: Callable[[Callable[[], bytes]], bytes]) -> None:
        res_r, res_w = os.pipe()
        req_r, req_w = os.pipe()
        with _signals_held():
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(res_r)
                os.close(req_w)
                _child(work, req_r, res_w)
        os.close(res_w)
        os.close(req_r)
        self.pid: int | None = pid
        self._res = res_r
        self._req: int | None = req_w

    def send(self, data: bytes) -> None:
        """The parent's one message; a child that is gone already is not an error here."""
        fd, self._req = self._req, None
        if fd is None:
            return
        try:
            _write_all(fd, _LEN.pack(len(data)) + data)
        except OSError:
            pass
        finally:
            os.close(fd)

    def result(self) -> bytes | None:
        """The child's answer, or None when it failed; the child is reaped either way."""
        got = None
        try:
            head = _read_exact(self._res, _LEN.size)
            if head is not None:
                (n,) = _LEN.unpack(head)
                got = _read_exact(self._res, n) if n <= _MAX_MESSAGE else None
        except OSError:
            got = None
        finally:
            self.close(kill=got is None)
        return got

    def close(self, kill: bool = True) -> None:
        """Stop the child if it still runs (or, ``kill`` False, wait for it to exit: it has
        answered), reap it and close the pipes (idempotent)."""
        pid, self.pid = self.pid, None
        if self._req is not None:
            os.close(self._req)
            self._req = None
        if self._res is not None:
            os.close(self._res)
            self._res = None  # type: ignore[assignment]
        if pid is None:
            return
        try:
            if kill and os.waitpid(pid, os.WNOHANG)[0] == 0:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass


def _child(work: Callable[[Callable[[], bytes]], bytes], req: int, res: int) -> None:
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
        gc.freeze()  # what the child inherited is never garbage: do not walk (and copy) it

        def receive() -> bytes:
            head = _read_exact(req, _LEN.size)
            if head is None:
                raise EOFError("the parent sent nothing")
            (n,) = _LEN.unpack(head)
            got = _read_exact(req, n) if n <= _MAX_MESSAGE else None
            if got is None:
                raise EOFError("the parent's message was cut")
            return got

        out = work(receive)
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
