"""A host clock more than MNS's 15 minutes off: every request is refused (408 TimeExpired). cdcd
says so, naming the cause and the cure, keeps trying without failing the pipeline, and goes on by
itself once the clocks agree: every notification consumed once, none deleted before its
checkpoint."""
import cdcd_process as cdcd
from oss_helpers import Daemon, pipeline
from test_mns import keys_of, mns_opts, put, setup


def test_a_skewed_clock_is_named_and_the_source_goes_on_once_it_is_right(emu, tmp_path):
    setup(emu)
    put(emu, "a/1", "a/2", "a/3")
    emu.mns.set_clock_offset(3600)  # the server an hour ahead: every request looks an hour old
    try:
        d = Daemon(tmp_path, pipeline(emu, **mns_opts(emu))).start()
        assert cdcd.wait_for(lambda: "TimeExpired" in d.stderr(), 60, 0.1), d.stderr()[-3000:]
        assert "this host's clock is more than 15 minutes from MNS's" in d.stderr(), d.stderr()[-3000:]
        assert d.proc.poll() is None, d.stderr()[-3000:]  # not a failure of the pipeline
        assert len(emu.mns.messages("q1")) == 3  # nothing consumed, nothing deleted
    finally:
        emu.mns.set_clock_offset(0)
    # The clocks agree again: every notification is consumed once, and deleted after the final
    # checkpoint.
    assert d.wait_events(lambda ev: len(ev) >= 3, 60), d.stderr()[-3000:]
    put(emu, "b/1")
    assert d.wait_events(lambda ev: len(ev) >= 4, 30), d.stderr()[-3000:]
    assert d.stop() == 0, d.stderr()[-3000:]
    assert sorted(keys_of(d.events())) == ["a/1", "a/2", "a/3", "b/1"]
    assert emu.mns.messages("q1") == []
