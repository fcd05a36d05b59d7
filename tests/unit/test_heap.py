"""Giving back freed memory after the start: tried on glibc, skipped quietly elsewhere."""

from __future__ import annotations

import ctypes
import platform

import pytest

from notifier.service import heap


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
