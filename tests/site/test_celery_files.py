"""The embedded default's task queue (keltis_site/celery_files.py): a worker polling the folder
never meets a half-written message, and an unreadable file does not stop it."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from kombu import Connection

from keltis_site import celery_files

QUEUE = "celery"


@pytest.fixture
def channel(tmp_path: Path) -> Iterator[Any]:
    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    with Connection(
        "filesystem://", transport=celery_files.Transport, transport_options=options
    ) as connection:
        yield connection.default_channel


def test_the_settings_name_resolves_to_it() -> None:
    """settings.CELERY_BROKER_TRANSPORT on filesystem:// (tests/site/test_settings.py)."""
    with Connection("filesystem://", transport="keltis_site.celery_files:Transport") as connection:
        assert isinstance(connection.transport, celery_files.Transport)


def test_a_message_is_not_there_to_take_until_it_is_whole(
    channel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poller that looks while the message is written finds nothing (kombu's own transport
    lets it take the file empty, and the worker stops on the JSON error)."""
    replace = os.replace
    looked: list[bool] = []

    def poll_then_replace(source: str, target: str) -> None:
        assert Path(source).read_bytes()  # written in full under its temporary name
        with pytest.raises(Empty):
            channel._get(QUEUE)
        looked.append(True)
        replace(source, target)

    monkeypatch.setattr(celery_files.os, "replace", poll_then_replace)
    channel._put(QUEUE, {"body": "a task"})
    assert looked == [True]
    assert channel._get(QUEUE) == {"body": "a task"}


def test_messages_written_while_a_worker_polls_all_arrive(channel: Any) -> None:
    sent = [{"body": f"task {n}"} for n in range(300)]
    writer = threading.Thread(target=lambda: [channel._put(QUEUE, m) for m in sent])
    received: list[Any] = []
    writer.start()
    while writer.is_alive():
        with contextlib.suppress(Empty):
            received.append(channel._get(QUEUE))
    writer.join()
    while True:
        try:
            received.append(channel._get(QUEUE))
        except Empty:
            break
    assert sorted(m["body"] for m in received) == sorted(m["body"] for m in sent)


def test_an_unreadable_message_is_logged_and_the_next_one_read(
    channel: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # named to sort first: the real names start with the monotonic clock in ms, never 0
    (tmp_path / f"0_broken.{QUEUE}.msg").write_bytes(b"")
    channel._put(QUEUE, {"body": "after it"})
    with caplog.at_level(logging.ERROR, "keltis_site.celery_files"), pytest.raises(Empty):
        channel._get(QUEUE)
    assert "unreadable task message dropped" in caplog.text
    assert channel._get(QUEUE) == {"body": "after it"}
