"""The region options as the spec's table has them: `oss-region` falls back to `region`
("若未设置，则回退至`region`参数值"), `region` is accepted, and `mns.region` (unused by MNS
signatures) is optional but must agree with the region `mns.endpoint` names."""
import time

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline, run_to_end


def snap_v4(emu, **region_opts):
    return {"scan.startup.mode": "SNAPSHOT", "oss-endpoint": emu.endpoint, "oss-bucket": "b1",
            "oss-enable-v4-signature": "true", **region_opts}


def test_region_is_the_fallback_of_oss_region_for_v4_and_the_region_column(emu, tmp_path):
    emu.create_bucket("b1")
    emu.seed("b1", 3)
    # V4 signs with the region (the emulator checks the credential scope against cn-hangzhou).
    rc, d = run_to_end(tmp_path, pipeline(emu, name="fallback", **snap_v4(emu, region="cn-hangzhou")), tag="fallback")
    assert rc == 0, d.stderr()
    assert [fields(e[3])[2] for e in d.events()] == ["cn-hangzhou"] * 3

    # oss-region wins when both are set.
    rc, d = run_to_end(tmp_path, pipeline(emu, name="both", **snap_v4(emu, **{"oss-region": "cn-hangzhou",
                                                                              "region": "cn-shanghai"})), tag="both")
    assert rc == 0, d.stderr()
    assert len(d.events()) == 3

    # The fallback is really what is signed with: a wrong `region` is refused by OSS.
    rc, d = run_to_end(tmp_path, pipeline(emu, name="wrong", **snap_v4(emu, region="cn-shanghai")), tag="wrong",
                       timeout=60)
    assert rc != 0
    assert "cn-hangzhou" in d.stderr() and d.events() == []


def test_validation_accepts_region_and_names_both_when_neither_is_set(emu, tmp_path):
    base = {"scan.incremental.mode": "POLLING", "oss-endpoint": "http://h", "oss-bucket": "b"}
    ok = cdcd.write_pipeline(tmp_path, pipeline(emu, **base, region="cn-hangzhou"), "ok.yaml")
    res = cdcd.run(["validate", ok])
    assert res.returncode == 0, res.stdout + res.stderr
    bad = cdcd.write_pipeline(tmp_path, pipeline(emu, **base), "bad.yaml")
    res = cdcd.run(["validate", bad])
    assert res.returncode != 0
    assert "`oss-region` is required by scan.incremental.mode POLLING (or `region`, its fallback)" in \
        res.stdout + res.stderr


def test_mns_region_is_optional_and_checked_against_the_endpoint(emu, tmp_path):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=30)
    emu.add_notification("b1", "q1")
    opts = {"mns.endpoint": emu.mns.url, "mns.queue-name": "q1", "mns.polling-wait-time": "1s"}
    d = Daemon(tmp_path, pipeline(emu, **opts)).start()  # no mns.region
    assert cdcd.wait_for(lambda: "consuming MNS queue" in d.stderr(), 20), d.stderr()
    time.sleep(0.5)
    emu.put_objects("b1", [{"key": "k/1", "content": "x"}], notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 1, 20), d.stderr()
    assert d.stop() == 0
    assert fields(d.events()[0][3])[0] == "k/1"

    endpoint = "http://123456.mns.cn-hangzhou.aliyuncs.com"
    for region, ok in (("cn-hangzhou", True), ("cn-beijing", False)):
        y = cdcd.write_pipeline(tmp_path, pipeline(emu, **{"mns.endpoint": endpoint, "mns.region": region,
                                                           "mns.queue-name": "q"}), f"m-{region}.yaml")
        res = cdcd.run(["validate", y])
        assert (res.returncode == 0) == ok, res.stdout + res.stderr
        if not ok:
            assert ("`mns.region` cn-beijing does not match the region cn-hangzhou of `mns.endpoint`"
                    in res.stdout + res.stderr)
            assert f"m-{region}.yaml:" in res.stdout + res.stderr
