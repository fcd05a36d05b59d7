"""Giving back freed memory after the start: tried on glibc, skipped quietly elsewhere."""

from __future__ import annotations

import ctypes
import platform

import pytest

from notifier import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_memory_is_given_back_on_glibc() -> None:
    assert heap.give_back_freed_memory() is True


class _LibraryWithoutTrim:
    def __getattr__(self, name: str) -> object:
        raise AttributeError(name)


def test_a_c_library_without_malloc_trim_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _LibraryWithoutTrim())
    assert heap.give_back_freed_memory() is False


def test_no_symbols_to_look_in_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def unloadable(name: object) -> object:
        raise OSError("no such library")

    monkeypatch.setattr(ctypes, "CDLL", unloadable)
    assert heap.give_back_freed_memory() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_mmap_threshold_is_fixed_on_glibc() -> None:
    assert heap.keep_large_buffers_out_of_the_heap() is True


def test_a_c_library_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _LibraryWithoutTrim())
    assert heap.keep_large_buffers_out_of_the_heap() is False


class _RefusingMallopt:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def mallopt(self, option: int, value: int) -> int:
        self.calls.append((option, value))
        return 0  # glibc's answer to an option or value it does not take


def test_a_refused_threshold_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    library = _RefusingMallopt()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: library)
    assert heap.keep_large_buffers_out_of_the_heap() is False
    assert library.calls == [(heap.M_MMAP_THRESHOLD, heap.MMAP_THRESHOLD_BYTES)]
