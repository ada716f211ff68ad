"""What the broker still holds: the task ids of the messages waiting in (or taken from and not yet
acknowledged by) a queue, so the reaper can tell a queued job whose message was lost from one
that is only waiting its turn.

Redis: the queue's lists (one per priority step) and the ``unacked`` hash (messages a worker
has taken and not acknowledged: with late acknowledgement, also the ones running).  The
embedded filesystem broker: the queue's ``*.<queue>.msg`` files.  Any other broker: None
(cannot tell), and the reaper says so rather than guess.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any


def _task_id(raw: Any) -> str | None:
    try:
        message = json.loads(raw)
    except (TypeError, ValueError):
        return None
    if isinstance(message, list) and message:  # an unacked entry: [message, exchange, routing key]
        message = message[0]
    headers = message.get("headers") if isinstance(message, dict) else None
    return str(headers["id"]) if isinstance(headers, dict) and headers.get("id") else None


def _redis_ids(channel: Any, queues: Iterable[str]) -> set[str]:
    client = channel.client
    names = {channel._q_for_pri(queue, step) for queue in queues for step in channel.priority_steps}
    raws: list[Any] = []
    for name in sorted(names):
        raws += client.lrange(name, 0, -1)
    raws += client.hvals(channel.unacked_key)
    return {found for found in map(_task_id, raws) if found}


def _filesystem_ids(channel: Any, queues: Iterable[str]) -> set[str]:
    folder = channel.data_folder_in
    wanted = {f"{queue}.msg" for queue in queues}
    ids: set[str] = set()
    for name in os.listdir(folder):
        if name.partition(".")[2] not in wanted:
            continue
        try:
            with open(os.path.join(folder, name), "rb") as f:
                found = _task_id(f.read())
        except OSError:  # taken by a worker meanwhile
            continue
        if found:
            ids.add(found)
    return ids


def task_ids_in_broker(queues: Iterable[str]) -> set[str] | None:
    """Ids of the task messages the broker holds for ``queues``; None when this broker cannot say."""
    from planner.celery import app

    queues = list(queues)
    with app.connection_for_write() as conn:
        transport = conn.transport.driver_type
        if transport == "redis":
            return _redis_ids(conn.default_channel, queues)
        if transport == "filesystem":
            return _filesystem_ids(conn.default_channel, queues)
    return None
