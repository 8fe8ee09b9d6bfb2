"""The embedded coordination store forgets a key once it expired even if nobody reads
it again: what strangers leave behind (a wrong-key count per source address, kept ten
minutes) does not pile up in the server's memory (docs/performance.md, "The embedded
store")."""

from __future__ import annotations

from loreweaver.wire import stores
from loreweaver.wire.stores import ProcessMemory


def test_ten_thousand_strangers_counts_are_forgotten_once_they_expire(monkeypatch):
    memory = ProcessMemory()
    now = [1000.0]
    monkeypatch.setattr(stores.time, "monotonic", lambda: now[0])
    for n in range(10_000):
        memory.incr(f"badkey:10.0.{n // 256}.{n % 256}", 600)
    assert len(memory) == 10_000

    now[0] += 601  # every count has expired; nobody reads them again
    memory.set("presence", {"a": 1}, None)
    for n in range(7_000):  # the next strangers, as the keys double since the last sweep
        memory.incr(f"badkey:10.1.{n // 256}.{n % 256}", 600)

    assert len(memory) == 7_000 + 1, "the expired counts are gone, the live keys kept"
    assert memory.get("presence") == {"a": 1}
    assert memory.get("badkey:10.1.0.7") == 1
