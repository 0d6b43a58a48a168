"""The Docker channel's buffers: lines under a cap, and a capped log (no engine needed)."""

from __future__ import annotations

import pytest

from sandbox.buffers import HEAD_BYTES, CappedLog, LineSplitter
from sandbox.channel import LineTooLong


def test_lines_come_out_whole_however_the_bytes_arrive() -> None:
    splitter = LineSplitter(cap=100)
    for piece in (b'{"a"', b":1}\n{", b'"b":2}\n\n', b"tail"):
        splitter.feed(piece)
    assert splitter.next_line() == b'{"a":1}'
    assert splitter.next_line() == b'{"b":2}'
    assert splitter.next_line() == b""
    assert splitter.next_line() is None


def test_a_line_over_the_cap_is_refused_with_its_head_and_the_next_one_kept() -> None:
    splitter = LineSplitter(cap=10)
    data = b"x" * 50 + b"\nok\n"
    data = data[splitter.feed(data) :]  # what fits: the cap and one byte more
    with pytest.raises(LineTooLong) as refused:
        splitter.next_line()
    assert refused.value.head == b"x" * 11
    assert splitter.feed(data) == len(data)
    assert splitter.next_line() == b"ok"


def test_an_endless_line_is_refused_as_soon_as_it_passes_the_cap() -> None:
    splitter = LineSplitter(cap=HEAD_BYTES * 4)
    splitter.feed(b"y" * (HEAD_BYTES * 4 + 1))
    with pytest.raises(LineTooLong) as refused:
        splitter.next_line()
    assert refused.value.head == b"y" * HEAD_BYTES
    splitter.feed(b"y" * 10_000)  # the rest of it is skipped, not kept
    assert splitter.next_line() is None
    splitter.feed(b"yy\nnext\n")
    assert splitter.next_line() == b"next"


def test_a_line_exactly_at_the_cap_passes() -> None:
    splitter = LineSplitter(cap=5)
    splitter.feed(b"12345\n")
    assert splitter.next_line() == b"12345"


def test_the_log_keeps_its_start_and_end_and_counts_the_rest() -> None:
    log = CappedLog(cap=20)
    log.write(b"start-----")
    for _ in range(100):
        log.write(b"middle")
    log.write(b"-----the end")
    text = log.getvalue()
    assert text.startswith(b"start-----")
    assert text.endswith(b"the end")
    assert b"[... 602 bytes dropped ...]" in text


def test_a_short_log_is_kept_whole() -> None:
    log = CappedLog(cap=100)
    log.write(b"hello\n")
    log.write(b"world\n")
    assert log.getvalue() == b"hello\nworld\n"


def test_an_empty_buffer_has_no_line() -> None:
    splitter = LineSplitter(cap=10)
    assert splitter.next_line() is None
    splitter.feed(b"\n")
    assert splitter.next_line() == b""
    assert splitter.next_line() is None
