"""The covert-channel meter (``python -m sandbox.channels``, issue 43) on the real engine,
at a small size: it finds a channel a sender opens on purpose (the PID counter within a
pooled container, the page cache across containers) and reports about nothing for the
ones the sandbox closes (/tmp's times, reset by the supervisor's clean; the PID counter
across containers, each with a PID namespace of its own)."""

from __future__ import annotations

import pytest

from sandbox import channels
from tests.sandbox.attacks import harness

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def prober() -> channels.Prober:
    with channels.probing(harness.pipe_backend(), label=harness.label("channels")) as found:
        yield found


def test_an_open_counter_carries_every_bit_within_a_container(prober: channels.Prober) -> None:
    found = channels.measure(prober, "pids", "within", handovers=3, bits=8)
    assert (found.handovers, found.exact, found.capacity) == (3, 3, 8.0)
    assert found.per_second(found.work_s) > 0 and found.per_second(found.wall_s) > 0


def test_the_page_cache_carries_across_containers(prober: channels.Prober) -> None:
    found = channels.measure(prober, "pagecache", "across", handovers=2, bits=128)
    assert found.error_rate < 0.25, found.row()  # chance is 0.5
    assert found.capacity > 20


@pytest.mark.parametrize(("channel", "scope"), [("tmptimes", "within"), ("pids", "across")])
def test_a_closed_channel_carries_about_nothing(
    prober: channels.Prober, channel: str, scope: str
) -> None:
    found = channels.measure(prober, channel, scope, handovers=6, bits=8)
    assert found.error_rate > 0.2, found.row()
    assert found.capacity < 2.0 and found.exact <= 1


def test_the_command_refuses_what_it_cannot_measure(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--channels", "dentry,nope"], ["--scopes", "beside"], ["--handovers", "0"],
                 ["--channels", "pids", "--bits", "40"]):  # fmt: skip
        with pytest.raises(SystemExit):
            channels.parse(argv)
    assert "unknown channel 'nope'" in capsys.readouterr().err
