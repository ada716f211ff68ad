"""The embedded broker's spool: kombu's filesystem transport, with messages that appear whole.

kombu's filesystem transport creates a message's file and then writes it; a worker polling the
folder can move and read the file in between, find it empty, and its consumer dies on the JSON
error (seen in the worker-recovery tests: the worker stopped consuming, the job never ran). The
reaper's look into the broker (planner.jobs.broker) could read the same empty file and resend a
message that was not lost. Here a message is written under a name the queue does not match
(``.<name>.part``) and renamed into place (``os.replace``: atomic within a folder), so a reader sees
the whole message or nothing. A message that still cannot be decoded (e.g. one left half-written
by an older version) is skipped with a warning instead of stopping the worker; its job is then
one whose message was lost, which the reaper sends again.

``planner.celery`` registers this Transport as kombu's ``filesystem://``.
"""

from __future__ import annotations

import logging
import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

log = logging.getLogger(__name__)

# A bound on the unreadable messages skipped in one poll (then the poll reports an empty queue).
MAX_SKIPPED = 100


class Channel(filesystem.Channel):  # type: ignore[misc]
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(part, "wb") as f:
                f.write(dumps(payload).encode())
            os.replace(part, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str) -> Any:
        for _ in range(MAX_SKIPPED):
            try:
                return super()._get(queue)
            except ValueError as exc:  # the message file is gone already: the next one, if any
                log.warning("embedded broker: skipped an unreadable message on queue %s (%s)", queue, exc)
        raise Empty()


class Transport(filesystem.Transport):  # type: ignore[misc]
    Channel = Channel
