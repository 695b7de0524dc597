"""operations.recent.Recent: the one per-process memo of expensive answers."""

from __future__ import annotations

import threading

from operations.recent import Recent


def test_it_keeps_the_most_recently_asked_and_computes_a_miss_once() -> None:
    recent: Recent[str, int] = Recent(2)
    computed: list[str] = []

    def compute(key: str) -> int:
        computed.append(key)
        return len(key)

    assert recent.get("a", lambda: compute("a")) == (1, False)
    assert recent.get("bb", lambda: compute("bb")) == (2, False)
    assert recent.get("a", lambda: compute("a")) == (1, True)  # "a" is now the newest
    recent.get("ccc", lambda: compute("ccc"))
    assert recent.keys() == ["a", "ccc"]  # "bb", the least recently asked, went
    assert computed == ["a", "bb", "ccc"]


def test_a_new_version_replaces_the_old_ones_and_the_size_is_read_at_each_store() -> None:
    size = [3]
    recent: Recent[tuple[int, str], str] = Recent(lambda: size[0])
    recent.put((1, "v1"), "old")
    recent.put((2, "v1"), "other")
    recent.put((1, "v2"), "new", replaces=lambda k: k[0] == 1)
    assert recent.keys() == [(2, "v1"), (1, "v2")]
    size[0] = 1
    recent.put((3, "v1"), "third")
    assert recent.keys() == [(3, "v1")]
    recent.clear()
    assert recent.keys() == []


def test_concurrent_askers_all_get_an_answer() -> None:
    recent: Recent[int, int] = Recent(4)
    answers: list[tuple[int, bool]] = []
    lock = threading.Lock()

    def ask() -> None:
        answer = recent.get(7, lambda: 49)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 8 and all(value == 49 for value, _ in answers)
    assert recent.keys() == [7]
