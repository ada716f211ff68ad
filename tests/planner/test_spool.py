"""The embedded broker's spool (planner.jobs.spool): a consumer never sees half a message, and an
unreadable message file is skipped instead of stopping the worker. Real kombu, real files."""

from __future__ import annotations

import threading
from pathlib import Path

from kombu import Connection

import planner.celery  # noqa: F401  (registers the spool as kombu's filesystem://)
from planner.embedded import filesystem_broker_options
from planner.jobs.spool import Transport


def _connection(tmp_path: Path) -> Connection:
    return Connection("filesystem://", transport_options=filesystem_broker_options(tmp_path))


def test_filesystem_urls_get_the_spool_transport(tmp_path: Path) -> None:
    with _connection(tmp_path) as conn:
        assert isinstance(conn.transport, Transport)
        assert conn.transport.driver_type == "filesystem"  # what planner.jobs.broker looks for


def test_an_unreadable_message_is_skipped_and_the_next_one_delivered(tmp_path: Path) -> None:
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue("q1")
        folder = Path(filesystem_broker_options(tmp_path)["data_folder_in"])  # type: ignore[arg-type]
        (folder / "0_broken.q1.msg").write_bytes(b"")  # sorts first; as a reader could find a file mid-write
        queue.put({"n": 1})
        message = queue.get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()
        assert not list(folder.glob("*broken*"))
        queue.close()


def test_a_message_becomes_visible_to_consumers_only_when_written_whole(tmp_path: Path, monkeypatch) -> None:
    import json
    import os

    import planner.jobs.spool as spool

    folder = Path(filesystem_broker_options(tmp_path)["data_folder_in"])  # type: ignore[arg-type]
    seen = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        # the moment before the message appears: nothing a consumer polls for exists yet, and the file
        # about to appear is already whole
        seen.append(sorted(p.name for p in folder.iterdir() if p.name.partition(".")[2] == "q3.msg"))
        json.loads(Path(src).read_text())
        real_replace(src, dst)

    monkeypatch.setattr(spool.os, "replace", replace)
    with _connection(tmp_path) as conn:
        queue = conn.SimpleQueue("q3")
        queue.put({"n": 3, "pad": "x" * 100_000})
        assert seen == [[]]
        assert [p.name.partition(".")[2] for p in folder.iterdir()] == ["q3.msg"]  # no .part left behind
        message = queue.get(timeout=5)
        assert message.payload["n"] == 3
        message.ack()
        queue.close()


def test_messages_written_while_a_consumer_polls_all_arrive(tmp_path: Path) -> None:
    n = 300
    with _connection(tmp_path) as producer_conn, _connection(tmp_path) as consumer_conn:
        producer = producer_conn.SimpleQueue("q2")
        consumer = consumer_conn.SimpleQueue("q2")

        def produce() -> None:
            for i in range(n):
                producer.put({"i": i, "pad": "x" * 10_000})

        thread = threading.Thread(target=produce)
        thread.start()
        got = []
        while len(got) < n:
            message = consumer.get(timeout=30)
            got.append(message.payload["i"])
            message.ack()
        thread.join()
        assert sorted(got) == list(range(n))
        producer.close()
        consumer.close()
