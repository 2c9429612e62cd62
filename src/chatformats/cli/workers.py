"""Rendering in worker processes, and interrupts that end a run promptly and cleanly.

The pool (:class:`WorkerPool`) sends batches of lines to N worker processes, one batch per
idle worker, and gives the results back in input order.  It watches each worker's process as
well as its pipe: a worker that dies (killed, out of memory) ends the run with
:class:`WorkerDied`, which names the worker, how it died and the lines it held; every line
before them has been given back.  Nothing waits on a worker that is gone.

Interrupts (:class:`Interrupts`): SIGINT (Ctrl-C) and SIGTERM raise :class:`Interrupted` in the
main process at once, except while a batch of output lines is being written (then right after
it), so the output always ends with a whole line.  Workers ignore SIGINT (the terminal sends it
to the whole process group; the main process decides) and die on SIGTERM, which the main
process sends them when it stops: no worker prints a traceback.  The command exits with
128 + the signal number (130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import signal
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterable, Iterator

__all__ = ["Interrupted", "Interrupts", "WorkerDied", "WorkerPool"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class Interrupts:
    """SIGINT/SIGTERM handlers (or those of ``signals``) for the duration of a ``with`` block (main thread only; elsewhere
    the handlers are left as they are).  ``with interrupts.deferred():`` holds an interrupt
    until the block ends."""

    def __init__(self, signals: tuple[int, ...] = _SIGNALS) -> None:
        self.signals = signals
        self.depth = 0
        self.pending = 0
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> Interrupts:
        try:
            for signum in self.signals:
                self.previous[signum] = signal.signal(signum, self._handle)
        except ValueError:  # not the main thread: signals stay with whoever owns them
            self._restore()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous.clear()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.depth:
            self.pending = self.pending or signum
            return
        raise Interrupted(signum)

    def deferred(self) -> _Deferred:
        return _Deferred(self)


class _Deferred:
    __slots__ = ("owner",)

    def __init__(self, owner: Interrupts) -> None:
        self.owner = owner

    def __enter__(self) -> None:
        self.owner.depth += 1

    def __exit__(self, *exc: Any) -> None:
        owner = self.owner
        owner.depth -= 1
        if not owner.depth and owner.pending:
            signum, owner.pending = owner.pending, 0
            raise Interrupted(signum)


class WorkerDied(Exception):
    """A worker process ended while it held lines ``first``..``last``."""

    def __init__(self, pid: int | None, exitcode: int | None, first: int, last: int) -> None:
        self.pid, self.exitcode, self.first, self.last = pid, exitcode, first, last
        super().__init__(self.describe())

    def describe(self) -> str:
        if self.exitcode is not None and self.exitcode < 0:
            try:
                how = f"was killed by {signal.Signals(-self.exitcode).name}"
            except ValueError:
                how = f"was killed by signal {-self.exitcode}"
        elif self.exitcode is None:
            how = "stopped answering"
        else:
            how = f"exited with status {self.exitcode}"
        lines = f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"
        return f"worker process {self.pid} {how} while rendering {lines}"


def _worker(conn: Connection, work: Callable[[Any], Any]) -> None:
    """A worker's loop: a batch in, its results out, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
    while True:
        try:
            batch = conn.recv()
        except EOFError:
            return
        if batch is None:
            return
        conn.send([work(item) for item in batch])


class _Worker:
    __slots__ = ("process", "conn", "job")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.job: tuple[int, int, int] | None = None  # (batch index, first line, last line)


class WorkerPool:
    """``workers`` processes applying ``work`` to items ``(line number, ...)``; use as a
    context manager (leaving it stops every worker)."""

    def __init__(self, work: Callable[[Any], Any], workers: int) -> None:
        context = get_context()
        self.workers: list[_Worker] = []
        # Start the workers with SIGINT and SIGTERM blocked: a signal that arrives before a
        # worker has set its own handlers waits, and is then ignored or ends it quietly.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            for _ in range(workers):
                parent, child = context.Pipe()
                process = context.Process(target=_worker, args=(child, work), daemon=True)
                process.start()
                child.close()
                self.workers.append(_Worker(process, parent))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker now (SIGTERM, then SIGKILL after a second)."""
        for worker in self.workers:
            worker.conn.close()
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in self.workers:
            worker.process.join(1.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
        self.workers = []

    def map(self, batches: Iterable[list[Any]]) -> Iterator[Any]:
        """The results of each item of each batch, in input order.  When a worker dies, no
        new batch is sent, the batches before its own are finished and given back, then
        :class:`WorkerDied` is raised: every line before the lost ones is given back."""
        batches = iter(batches)
        done: dict[int, list[Any]] = {}
        sent = given = 0
        exhausted = False
        dead: _Worker | None = None  # the dead worker that holds the earliest lines
        while True:
            for worker in self.workers:  # one batch to each idle worker
                if dead is not None or exhausted:
                    break
                if worker.job is None:
                    batch = next(batches, None)
                    if batch is None:
                        exhausted = True
                        break
                    worker.job = (sent, batch[0][0], batch[-1][0])
                    sent += 1
                    try:
                        worker.conn.send(batch)
                    except OSError:  # it died before it could read: the wait below tells
                        pass
            busy = [w for w in self.workers
                    if w.job is not None and (dead is None or w.job[0] < _job(dead)[0])]
            if not busy:
                if dead is not None:
                    self._died(dead)
                return
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn in ready or worker.conn.poll():
                    try:
                        results = worker.conn.recv()
                    except (EOFError, OSError):
                        dead = _earlier(dead, worker)
                        continue
                    done[_job(worker)[0]] = results
                    worker.job = None
                elif worker.process.sentinel in ready:
                    dead = _earlier(dead, worker)
            while given in done:
                yield from done.pop(given)
                given += 1

    def _died(self, worker: _Worker) -> None:
        worker.process.join(1.0)
        _, first, last = _job(worker)
        raise WorkerDied(worker.process.pid, worker.process.exitcode, first, last)


def _job(worker: _Worker) -> tuple[int, int, int]:
    assert worker.job is not None
    return worker.job


def _earlier(dead: _Worker | None, worker: _Worker) -> _Worker:
    """Of two dead workers, the one that held the earlier lines."""
    if dead is None or _job(worker)[0] < _job(dead)[0]:
        return worker
    return dead
