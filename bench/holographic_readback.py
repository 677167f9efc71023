"""Check the panel's holographic delete and update against the real hermes-agent 0.19.0 plugin.

Usage:
    python bench/holographic_readback.py [--hermes-python /tmp/hermes-0190/bin/python] [--facts 40]

1. In a fresh temporary HERMES_HOME, the real plugin (a child process under the scratch interpreter
   that has hermes-agent 0.19.0) stores facts with its own ``add_fact``: entities, vectors (when
   that interpreter has numpy) and banks.
2. The panel's code (memory_core.external.holographic) deletes some of them, as the contents page
   does, and changes the text of others in place, as replacing an entry with its copy updated does.
3. The real plugin, in a new child process, opens the same file and: recalls every fact through its
   own ``search_facts`` and ``list_facts`` (the deleted ones must not come back, every other must),
   and rebuilds each category's bank with its own ``_rebuild_bank`` on a copy of the file, whose
   bank rows must equal the ones the panel wrote. An updated fact is recalled by its new text and
   not by its old one; its entity links are the ones the plugin's own extraction gives, and its
   vector is the plugin's own ``encode_fact`` of the new text and those entities.

Not part of CI (CI has no hermes-agent). Exit status: 0 all good, 1 a difference, 2 not runnable.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memory_core.external.holographic import HolographicStore  # noqa: E402

# Runs inside the scratch interpreter: only the plugin's own API is called.
STORE = r"""
import json, sys
from plugins.memory.holographic.store import MemoryStore
path, n = sys.argv[1], int(sys.argv[2])
people = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Barbara Liskov"]
store = MemoryStore(db_path=path)
ids = {}
for i in range(n):
    category = ("general", "user_pref", "project", "tool")[i % 4]
    text = f"note {i}: {people[i % 4]} works on 'tool{i % 5}' with unique{i}"
    if i == 3:
        text = f"note {i}: Only Mentioned here once"
    ids[text] = store.add_fact(text, category=category)
print(json.dumps({"ids": ids, "hrr": store._hrr_available}))
store.close()
"""
CHECK = r"""
import json, shutil, sqlite3, sys
from plugins.memory.holographic.store import MemoryStore
path, copy = sys.argv[1], sys.argv[2]
shutil.copy(path, copy)
def banks(p):
    c = sqlite3.connect(p)
    sql = "SELECT bank_name, vector, dim, fact_count FROM memory_banks"
    rows = {r[0]: (r[1].hex(), r[2], r[3]) for r in c.execute(sql)}
    c.close()
    return rows
panel_banks = banks(copy)
rebuilt = MemoryStore(db_path=copy)
for category in ("general", "user_pref", "project", "tool"):
    rebuilt._rebuild_bank(category)
plugin_banks = banks(copy)
rebuilt.close()
store = MemoryStore(db_path=path)
listed = [f["content"] for f in store.list_facts(min_trust=0.0, limit=100000)]
recalled = {}
for text in json.loads(sys.argv[3]):
    hits = store.search_facts(text, min_trust=0.0, limit=100)
    recalled[text] = any(h["content"] == text for h in hits)
entities = [r[0] for r in store._conn.execute("SELECT name FROM entities")]
updated = {}
for fact_id in json.loads(sys.argv[4]):
    content, vector = store._conn.execute("SELECT content, hrr_vector FROM facts WHERE fact_id = ?",
                                          (fact_id,)).fetchone()
    linked = [r[0] for r in store._conn.execute("SELECT e.name FROM entities e JOIN fact_entities fe"
                                                " ON fe.entity_id = e.entity_id WHERE fe.fact_id = ?", (fact_id,))]
    expected = None
    if vector is not None and store._hrr_available:
        from plugins.memory.holographic import holographic as hrr
        expected = hrr.phases_to_bytes(hrr.encode_fact(content, linked, len(vector) // 8)).hex()
    updated[str(fact_id)] = {"content": content, "linked": sorted(linked),
                             "extracted": sorted(store._extract_entities(content)),
                             "vector": vector.hex() if vector else None, "expected": expected}
store.close()
print(json.dumps({"listed": listed, "recalled": recalled, "panel_banks": panel_banks,
                  "plugin_banks": plugin_banks, "entities": entities, "updated": updated}))
"""


def run(python: str, code: str, *args: str, home: Path) -> dict:
    env = {**os.environ, "HERMES_HOME": str(home)}
    done = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"the plugin failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare_banks(panel: dict, plugin: dict, problems: list[str]) -> tuple[bool, float]:
    """Same banks, same dims and counts; vectors equal to the bit, or (without numpy in the panel's
    interpreter) within 1e-12 rad per component."""
    if set(panel) != set(plugin):
        problems.append(f"banks differ: panel {sorted(panel)}, plugin {sorted(plugin)}")
        return False, math.inf
    worst = 0.0
    for name, (vector, dim, count) in plugin.items():
        mine = panel[name]
        if mine[1:] != [dim, count] and tuple(mine[1:]) != (dim, count):
            problems.append(f"{name}: dim/count {mine[1:]} instead of {[dim, count]}")
        a = struct.unpack(f"={len(vector) // 16}d", bytes.fromhex(vector))
        b = struct.unpack(f"={len(mine[0]) // 16}d", bytes.fromhex(mine[0]))
        if len(a) != len(b):
            problems.append(f"{name}: vector width differs")
            continue
        worst = max([worst, *(min(abs(x - y), 2 * math.pi - abs(x - y)) for x, y in zip(a, b, strict=True))])
    if worst > 1e-12:
        problems.append(f"bank vectors differ by up to {worst:.3g} rad")
    return panel == plugin, worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes-python", default="/tmp/hermes-0190/bin/python")
    parser.add_argument("--facts", type=int, default=40)
    args = parser.parse_args()
    if not Path(args.hermes_python).exists():
        print(f"not runnable: no interpreter at {args.hermes_python}")
        return 2
    home = Path(tempfile.mkdtemp(prefix="holo-readback-"))
    try:
        db = home / "memory_store.db"
        stored = run(args.hermes_python, STORE, str(db), str(args.facts), home=home)
        ids: dict[str, int] = stored["ids"]
        texts = list(ids)
        # One fact whose entity no other fact names, one from each other category, one mid-list.
        doomed = [texts[3], texts[0], texts[1], texts[len(texts) // 2]]
        panel = HolographicStore(home=home)
        for text in doomed:
            panel.delete(str(ids[text]))
        # Two facts reworded (a general one with a vector when the plugin made vectors, a user_pref
        # one): new entities, one dropped.
        rewrites = {texts[4]: "note 4 reworded: Katherine Johnson checks the 'orbit tables' with unique4",
                    texts[5]: "note 5 reworded: no names left, only unique5"}
        for old_text, new_text in rewrites.items():
            panel.replace_text(str(ids[old_text]), new_text)
        recall = [t for t in texts if t not in rewrites] + list(rewrites.values())
        report = run(args.hermes_python, CHECK, str(db), str(home / "copy.db"), json.dumps(recall + list(rewrites)),
                     json.dumps([ids[t] for t in rewrites]), home=home)
        problems = []
        for old_text, new_text in rewrites.items():
            if report["recalled"].get(old_text):
                problems.append(f"search_facts still recalls the old text {old_text!r}")
            if not report["recalled"].get(new_text):
                problems.append(f"search_facts misses the new text {new_text!r}")
        vector_worst = 0.0
        for fact_id, fact in report["updated"].items():
            if fact["linked"] != fact["extracted"]:
                problems.append(f"fact {fact_id}: entities {fact['linked']} instead of {fact['extracted']}")
            if fact["expected"] is not None:
                a = struct.unpack(f"={len(fact['vector']) // 16}d", bytes.fromhex(fact["vector"]))
                b = struct.unpack(f"={len(fact['expected']) // 16}d", bytes.fromhex(fact["expected"]))
                vector_worst = max([vector_worst, *(min(abs(x - y), 2 * math.pi - abs(x - y))
                                                    for x, y in zip(a, b, strict=True))])
        if vector_worst > 1e-12:
            problems.append(f"updated vectors differ from the plugin's encode_fact by up to {vector_worst:.3g} rad")
        texts = [t for t in texts if t not in rewrites]
        for text in texts:
            should = text not in doomed
            if report["recalled"][text] != should:
                problems.append(f"search_facts {'misses' if should else 'still recalls'}: {text!r}")
            if (text in report["listed"]) != should:
                problems.append(f"list_facts {'misses' if should else 'still lists'}: {text!r}")
        exact, worst = compare_banks(report["panel_banks"], report["plugin_banks"], problems)
        if "Only Mentioned" in report["entities"]:
            problems.append("the entity only the deleted fact used is still there")
        print(f"plugin vectors (numpy in the scratch interpreter): {stored['hrr']}")
        print(f"facts stored by the plugin: {len(ids)}; deleted by the panel: {len(doomed)}")
        print(f"recalled by the plugin after the delete and the updates: {sum(report['recalled'].values())} "
              f"(expected {len(texts) - len(doomed) + len(rewrites)}); deleted ones recalled: "
              f"{sum(report['recalled'][t] for t in doomed)}")
        print(f"facts updated by the panel: {len(rewrites)}; entity links as the plugin extracts them; vectors "
              f"against the plugin's encode_fact: largest difference {vector_worst:.3g} rad")
        print(f"banks: {len(report['panel_banks'])} written by the panel; byte-identical to the plugin's own "
              f"rebuild: {exact}; largest difference of a component: {worst:.3g} rad")
        for problem in problems:
            print("DIFFERENCE:", problem)
        print("OK" if not problems else f"{len(problems)} difference(s)")
        return 0 if not problems else 1
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
