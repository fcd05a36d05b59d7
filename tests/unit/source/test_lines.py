"""_split_lines: watch events (one JSON object per line) out of arbitrary network chunks."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from notifier.source.client import _split_lines

ADDED = (
    b'{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1",'
    b'"namespace":"shop","uid":"5f0e2c1a","resourceVersion":"184201"},"status":{"phase":"Pending"}}}'
)
MODIFIED = (
    b'{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1",'
    b'"namespace":"shop","uid":"5f0e2c1a","resourceVersion":"184203"},"status":{"phase":"Running"}}}'
)
BOOKMARK = (
    b'{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1",'
    b'"metadata":{"resourceVersion":"184250","creationTimestamp":null}}}'
)


def _split(*chunks: bytes) -> list[bytes]:
    return list(_split_lines(iter(chunks)))


def test_one_event_per_chunk() -> None:
    assert _split(ADDED + b"\n", MODIFIED + b"\n") == [ADDED, MODIFIED]


def test_an_event_split_across_chunks_comes_out_whole() -> None:
    assert _split(ADDED[:10], ADDED[10:100], ADDED[100:] + b"\n") == [ADDED]


def test_several_events_in_one_chunk() -> None:
    assert _split(ADDED + b"\n" + MODIFIED + b"\n" + BOOKMARK + b"\n") == [
        ADDED,
        MODIFIED,
        BOOKMARK,
    ]


def test_a_chunk_ending_mid_event_after_a_complete_one() -> None:
    stream = ADDED + b"\n" + MODIFIED + b"\n"
    cut = len(ADDED) + 1 + 30
    assert _split(stream[:cut], stream[cut:]) == [ADDED, MODIFIED]


def test_a_newline_arriving_alone() -> None:
    assert _split(ADDED, b"\n", MODIFIED, b"\n") == [ADDED, MODIFIED]


def test_blank_lines_are_skipped() -> None:
    assert _split(b"\n" + ADDED + b"\n\n\n" + MODIFIED + b"\n\n") == [ADDED, MODIFIED]


def test_a_trailing_line_without_newline_is_yielded_when_the_stream_ends() -> None:
    assert _split(ADDED + b"\n" + MODIFIED[:40], MODIFIED[40:]) == [ADDED, MODIFIED]


def test_a_truncated_trailing_line_is_passed_on_for_the_decoder_to_reject() -> None:
    assert _split(ADDED + b"\n" + MODIFIED[:40]) == [ADDED, MODIFIED[:40]]


def test_trailing_whitespace_is_not_an_event() -> None:
    assert _split(ADDED + b"\n", b"  ") == [ADDED]


def test_no_chunks_no_lines() -> None:
    assert _split() == []
    assert _split(b"", b"") == []


def test_an_event_is_yielded_before_the_next_chunk_is_read() -> None:
    """A watch must not sit on a complete event while the server is quiet."""
    reads: list[bytes] = []

    def network() -> Iterator[bytes]:
        for chunk in (ADDED + b"\n" + MODIFIED[:20], MODIFIED[20:] + b"\n"):
            reads.append(chunk)
            yield chunk

    lines = _split_lines(network())
    assert next(lines) == ADDED
    assert len(reads) == 1
    assert next(lines) == MODIFIED
    assert len(reads) == 2


@settings(max_examples=150, deadline=None)
@given(
    events=st.lists(st.sampled_from([ADDED, MODIFIED, BOOKMARK]), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_any_chunking_of_a_stream_yields_the_same_events(
    events: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(event + b"\n" for event in events)
    bounds = [0, *sorted(c for c in cuts if c <= len(stream)), len(stream)]
    chunks = [stream[a:b] for a, b in itertools.pairwise(bounds)]
    assert _split(*chunks) == events
