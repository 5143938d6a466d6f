"""A host clock more than OSS's 15 minutes off: every request is refused (403
RequestTimeTooSkewed). cdcd says so, naming the cause and the cure, keeps trying without failing
the pipeline, and goes on by itself once the clocks agree: nothing lost, nothing wedged."""
import cdcd_process as cdcd
from oss_helpers import Daemon, pipeline


def test_a_skewed_clock_is_named_and_the_source_goes_on_once_it_is_right(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 50, prefixes=["s/"])
    emu.set_clock_offset(3600)  # the server an hour ahead: every request looks an hour old
    try:
        d = Daemon(tmp_path, pipeline(emu, **{
            "scan.incremental.mode": "POLLING", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
            "oss-bucket": "b1", "scan.startup.mode": "SNAPSHOT"})).start()
        assert cdcd.wait_for(lambda: "RequestTimeTooSkewed" in d.stderr(), 60, 0.1), d.stderr()[-3000:]
        assert "this host's clock is more than 15 minutes from OSS's" in d.stderr(), d.stderr()[-3000:]
        assert d.proc.poll() is None, d.stderr()[-3000:]  # not a failure of the pipeline
    finally:
        emu.set_clock_offset(0)
    # The clocks agree again: the snapshot is read to its end, every object once.
    assert d.wait(60) == 0, d.stderr()[-3000:]
    assert len(d.events()) == 50
