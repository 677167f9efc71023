"""Saves racing other saves and the agent's reads, with real processes (spawn) and threads."""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from pathlib import Path

from provider_schemas import read_provider, save_provider

from . import workers


def test_it_loses_no_update_when_processes_save_the_honcho_file_at_once(
    agent_home: Path, user_home: Path, plugin
) -> None:
    plugin("hostprov")
    context = multiprocessing.get_context("spawn")
    keys = ["workspace", "baseUrl"]
    with context.Pool(2) as pool:
        pool.starmap(workers.save_many, [(str(agent_home), str(user_home), "hostprov", key, 15) for key in keys])
    data = json.loads((user_home / ".honcho" / "config.json").read_text(encoding="utf-8"))
    assert data == {"hosts": {"hermes": {"workspace": "workspace-14"}}, "baseUrl": "baseUrl-14"}


def test_it_never_shows_a_reader_a_partial_file(agent_home: Path, user_home: Path, plugin) -> None:
    plugin("jsonprov")
    save_provider(home=agent_home, name="jsonprov", values={"note": "start"})
    stop, ready = agent_home / "stop", agent_home / "reading"
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        reader = pool.apply_async(workers.read_until, (str(agent_home / "jsonprov.json"), str(stop), str(ready)))
        # The saves start once the reader is reading, however long its process took to start (the
        # deadline only stops a hang).
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert not reader.ready(), reader.get()
            assert time.monotonic() < deadline, "the reader process never read the file"
            time.sleep(0.01)
        for i in range(60):
            save_provider(home=agent_home, name="jsonprov", values={"note": "x" * (i * 50), "limit": str(i)})
        stop.write_text("", encoding="utf-8")
        _reads, problems = reader.get(timeout=180)
    assert problems == []


def test_it_serialises_saves_from_threads_of_one_process(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    fields = ["note", "tags", "limit", "budget"]
    values = {"note": "n", "tags": '["t"]', "limit": "5", "budget": "low"}
    errors: list[BaseException] = []

    def work(key: str) -> None:
        try:
            for _ in range(5):
                save_provider(home=agent_home, name="jsonprov", values={key: values[key]})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(key,)) for key in fields]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    state = {f.key: f.value for f in read_provider(home=agent_home, name="jsonprov").fields}
    assert (state["note"], state["tags"], state["limit"], state["budget"]) == ("n", '["t"]', "5", "low")
