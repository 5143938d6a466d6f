"""`pipeline.local-time-zone: systemDefault` (the default) is the machine's zone as glibc reads
it: TZ naming a zone id or a zoneinfo file, with or without a leading ':', else /etc/timezone or
/etc/localtime. TZ=':/etc/localtime', which systemd units and container images set, refused every
pipeline ('invalid time zone id: /etc/localtime')."""
import datetime
import os
import shutil

import cdcd_process as cdcd

ZONEINFO = "/usr/share/zoneinfo"


def _minute_column(tmp_path, tz):
    yaml = cdcd.write_pipeline(tmp_path, """
source:
  type: values
  event-set.id: SINGLE_SPLIT_SINGLE_TABLE
sink:
  type: values
transform:
  - source-table: default_namespace.default_schema.table1
    projection: col1, DATE_FORMAT(LOCALTIMESTAMP, 'yyyy-MM-dd HH:mm') AS minute
pipeline:
  name: system-zone
""")
    before = datetime.datetime.now(datetime.timezone.utc)
    done = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"], env={**os.environ, "TZ": tz})
    after = datetime.datetime.now(datetime.timezone.utc)
    assert done.returncode == 0, done.stderr
    first = next(line for line in done.stdout.splitlines() if line.startswith("DataChangeEvent"))
    minute = first.split("after=[1, ")[1].split("]")[0]
    return minute, before, after, done.stderr


def _minutes_at(offset, before, after):
    return {(t + offset).strftime("%Y-%m-%d %H:%M") for t in (before, after)}


def test_tz_naming_etc_localtime_is_the_zone_it_links_to(tmp_path):
    minute, before, after, stderr = _minute_column(tmp_path, ":/etc/localtime")
    assert "warning" not in stderr
    local = datetime.datetime.now().astimezone().utcoffset()  # this process reads the same zone
    assert minute in _minutes_at(local, before, after)


def test_tz_naming_a_link_to_a_zoneinfo_file_is_that_zone(tmp_path):
    link = tmp_path / "localtime"
    link.symlink_to(f"{ZONEINFO}/Asia/Kolkata")
    minute, before, after, _ = _minute_column(tmp_path, f":{link}")
    assert minute in _minutes_at(datetime.timedelta(hours=5, minutes=30), before, after)


def test_tz_naming_a_copy_of_a_zoneinfo_file_is_the_zone_with_its_bytes(tmp_path):
    copy = tmp_path / "localtime"
    shutil.copyfile(f"{ZONEINFO}/Asia/Kolkata", copy)
    minute, before, after, _ = _minute_column(tmp_path, str(copy))
    assert minute in _minutes_at(datetime.timedelta(hours=5, minutes=30), before, after)


def test_a_tz_that_names_no_zone_runs_in_utc_with_a_warning_naming_it(tmp_path):
    minute, before, after, stderr = _minute_column(tmp_path, "Nowhere/Land")
    assert "TZ='Nowhere/Land' names no time zone" in stderr
    assert minute in _minutes_at(datetime.timedelta(0), before, after)
