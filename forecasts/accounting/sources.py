"""Where an ingest run's parsed batches come from: a thread of this process, or a parser process.

The parser runs ahead of the loaders (forecasts.accounting.load) through a bounded queue, so memory stays flat
whatever the file size; big runs parse in their own process so the parser's GIL never holds up a loader.
"""

from __future__ import annotations

import contextlib
import pickle
import queue
import subprocess
import sys
import threading
from typing import Any

from django.conf import settings

from forecasts.accounting.parsers.producer import Batch, read_frames
from forecasts.accounting.parsers.producer import batches as producer_batches


class IngestError(Exception):
    """The run could not be carried out (unreadable file, unknown format, database down)."""


# --- Setting a run up ------------------------------------------------------------------

class ThreadSource:
    """Batches parsed by a thread of this process (small runs, or no process available)."""

    def __init__(self, args: tuple[Any, ...], run_id: int, loaders: int) -> None:
        self.args = args  # the producer's arguments (forecasts.accounting.parsers.producer.batches)
        self.run_id = run_id
        self.queue: Any = queue.Queue(maxsize=loaders + 1)
        self.ended = threading.Event()
        self.worker: Any = None

    def start(self) -> None:
        self.worker = threading.Thread(target=self._run, name=f"ingest-parse-{self.run_id}", daemon=True)
        self.worker.start()

    def _put(self, item: Any) -> bool:
        """Queue an item for the loaders; False once they have stopped."""
        while not self.ended.is_set():
            with contextlib.suppress(queue.Full):
                self.queue.put(item, timeout=0.5)
                return True
        return False

    def _run(self) -> None:
        try:
            for batch in producer_batches(*self.args):
                if not self._put(batch):
                    return
        except BaseException as exc:
            self._put(exc)
            return
        self._put(None)

    def next(self) -> Batch | BaseException | None:
        """The next batch, an exception from the parser, or None once the parser is done."""
        while not self.ended.is_set():
            try:
                item = self.queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if item is None or isinstance(item, BaseException):
                self.ended.set()  # the other loader stops too
            return item
        return None

    def stop(self) -> None:
        self.ended.set()


class ProcessSource(ThreadSource):
    """Batches parsed by a separate process, so the parser's GIL never holds up a loader.

    A plain subprocess (not multiprocessing): nothing of this process is forked or
    re-imported, whatever started it (manage.py, a Celery worker, a test run)."""

    def start(self) -> None:
        self.proc = subprocess.Popen(  # noqa: S603 - our own module, our own interpreter
            [sys.executable, "-m", "forecasts.accounting.parsers.producer"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            cwd=str(settings.BASE_DIR),
        )
        assert self.proc.stdin is not None
        with self.proc.stdin:
            pickle.dump(self.args, self.proc.stdin)
        self.worker = threading.Thread(target=self._read, name=f"ingest-read-{self.run_id}", daemon=True)
        self.worker.start()

    def _read(self) -> None:
        try:
            for item in read_frames(self.proc.stdout):
                if not self._put(item) or item is None or isinstance(item, BaseException):
                    return
        except Exception as exc:  # an unreadable frame: the loaders must hear of it, not wait
            self._put(IngestError(f"reading the parser process: {type(exc).__name__}: {exc}"))
            return
        if not self.ended.is_set():
            self._put(IngestError(f"the parser process stopped (exit code {self.proc.wait()})"))

    def stop(self) -> None:
        self.ended.set()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
