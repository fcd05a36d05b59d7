from __future__ import annotations

from pathlib import Path

import pytest

from notifier.kinds.pod import Pod, PodStatus
from notifier.kinds.registry import decode_object
from notifier.objects import Kind, ObjectKey, ObjectMeta, key_of
from notifier.state import SeenRecord, encode_object
from tests.unit.state.helpers import open_store


def pod(name: str, phase: str, version: str) -> Pod:
    meta = ObjectMeta(name=name, namespace="default", uid=f"uid-{name}", resource_version=version)
    return Pod(metadata=meta, status=PodStatus(phase=phase))


def record(store_seen: object, obj: Pod) -> None:
    store_seen.record_seen(  # type: ignore[attr-defined]
        Kind.POD,
        key_of(obj),
        uid=obj.metadata.uid,
        resource_version=obj.metadata.resource_version,
        encoded=encode_object(obj),
    )


def test_objects_round_trip_through_their_encoding() -> None:
    original = pod("web-1", "Running", "42")

    assert decode_object(encode_object(original)) == original


def test_records_survive_a_restart(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    record(first.seen, pod("web-1", "Running", "42"))
    first.close()

    second = open_store(tmp_path / "s.db")
    found = second.seen.last_seen(Kind.POD, ObjectKey("default/web-1"))
    second.close()

    assert found is not None
    assert (found.uid, found.resource_version) == ("uid-web-1", "42")
    assert decode_object(found.encoded) == pod("web-1", "Running", "42")


def test_reads_see_writes_before_they_are_committed(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    key = ObjectKey("default/web-1")

    record(store.seen, pod("web-1", "Pending", "1"))
    record(store.seen, pod("web-1", "Running", "2"))
    seen_at_once = store.seen.last_seen(Kind.POD, key)
    store.seen.forget_seen(Kind.POD, key)
    forgotten_at_once = store.seen.last_seen(Kind.POD, key)
    store.flush()
    forgotten_later = store.seen.last_seen(Kind.POD, key)
    store.close()

    assert seen_at_once is not None and seen_at_once.resource_version == "2"
    assert forgotten_at_once is None and forgotten_later is None


def test_all_seen_lists_one_kind_with_pending_writes(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    record(store.seen, pod("a", "Running", "1"))
    record(store.seen, pod("b", "Running", "1"))
    store.seen.record_seen(
        Kind.DEPLOYMENT, ObjectKey("default/a"), uid="d", resource_version="9", encoded=b"{}"
    )
    store.flush()
    store.seen.forget_seen(Kind.POD, ObjectKey("default/b"))
    record(store.seen, pod("c", "Failed", "3"))

    pods = store.seen.all_seen(Kind.POD)
    store.close()

    assert sorted(pods) == ["default/a", "default/c"]
    assert pods[ObjectKey("default/c")] == SeenRecord(
        "uid-c", "3", encode_object(pod("c", "Failed", "3"))
    )


def test_records_are_read_in_batches_with_pending_writes_over_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("notifier.state.seen.BATCH", 2)
    store = open_store(tmp_path / "s.db")
    for name in "abcde":
        record(store.seen, pod(name, "Running", "1"))
    store.flush()
    store.seen.forget_seen(Kind.POD, ObjectKey("default/c"))  # pending: gone
    record(store.seen, pod("d", "Failed", "2"))  # pending: newer
    record(store.seen, pod("f", "Running", "1"))  # pending: new

    found = list(store.seen.iter_seen(Kind.POD))
    store.close()

    keys = [key for key, _ in found]
    assert sorted(keys) == ["default/a", "default/b", "default/d", "default/e", "default/f"]
    assert len(keys) == len(set(keys))
    assert dict(found)[ObjectKey("default/d")].resource_version == "2"


def test_the_baseline_mark_is_kept_across_restarts_and_set_once(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    assert first.seen.baseline_at() is None  # a new file: a first start
    first.seen.mark_baseline(100.0)
    first.seen.mark_baseline(200.0)
    first.close()

    second = open_store(tmp_path / "s.db")
    assert second.seen.baseline_at() == 100.0
    second.close()


def test_scope_marks_are_kept_across_restarts_and_forgotten_on_request(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    assert first.seen.baselines() == frozenset()
    first.seen.mark_baseline(100.0, ["Pod/*", "Job/shop"])
    first.close()

    second = open_store(tmp_path / "s.db")
    assert second.seen.baselines() == {"Pod/*", "Job/shop"}
    second.seen.forget_baseline("Job/shop")
    second.close()

    third = open_store(tmp_path / "s.db")
    assert third.seen.baselines() == {"Pod/*"} and third.seen.baseline_at() == 100.0
    third.close()


def _seen(obj: Pod) -> SeenRecord:
    meta = obj.metadata
    return SeenRecord(meta.uid, meta.resource_version, encode_object(obj))


def test_a_batch_records_and_forgets_in_one_write_read_back_at_once(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    record(store.seen, pod("old", "Running", "1"))
    store.flush()
    a, b = pod("a", "Pending", "2"), pod("b", "Running", "3")
    store.seen.write_all(
        [(Kind.POD, key_of(a), _seen(a)), (Kind.POD, key_of(b), _seen(b)),
         (Kind.POD, ObjectKey("default/old"), None)]
    )  # fmt: skip
    at_once = store.seen.all_seen(Kind.POD)
    store.close()
    reopened = open_store(tmp_path / "s.db")
    after_restart = reopened.seen.all_seen(Kind.POD)
    reopened.close()

    assert sorted(at_once) == sorted(after_restart) == ["default/a", "default/b"]
    assert decode_object(after_restart[ObjectKey("default/b")].encoded) == b


def test_a_later_write_of_a_key_is_not_undone_by_an_earlier_batch_settling(
    tmp_path: Path,
) -> None:
    store = open_store(tmp_path / "s.db")
    first, second = pod("a", "Pending", "1"), pod("a", "Running", "2")
    store.seen.write_all([(Kind.POD, key_of(first), _seen(first))])
    record(store.seen, second)
    store.flush()
    found = store.seen.last_seen(Kind.POD, ObjectKey("default/a"))
    store.close()

    assert found is not None and found.resource_version == "2"
