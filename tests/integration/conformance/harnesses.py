"""Each connector's conformance harness: how to run it in a pipeline, feed it and read what it
delivered. The generic tests (test_*_conformance.py) run over SOURCES and SINKS; a connector is
added to the suite by adding its class here (docs/adding-a-connector.md).

A source harness offers records with ids 1..TOTAL in two halves, one per run, says how the second
run ends, and maps a row the file sink wrote to its id (`id_of`). A sink harness receives the `values`
source's GENERATED rows (ids 1..TOTAL) and reads back the ids it delivered. `bad_*` build a
pipeline with one bad record among good ones, or are None when the connector has none (the
`values` source cannot be fed one; the `file` and `values` sinks never reject a record)."""
import json
import os
import re
import time

TOTAL = 40


def unique(prefix):
    return f"{prefix}-{os.getpid()}-{time.monotonic_ns() % 10**9}"


def generated(rows=TOTAL, rate=0, bounded=True, transform=""):
    return (f"source:\n  type: values\n  event-set.id: GENERATED\n  generator.rows: {rows}\n"
            f"  generator.payload-bytes: 8\n  generator.rate: {rate}\n"
            f"  generator.bounded: {'true' if bounded else 'false'}\n{transform}")


# ---- sources ---------------------------------------------------------------------------------

class ValuesSource:
    """GENERATED at a bounded rate: the first run is stopped mid-way, the second runs to the end."""
    type = "values"
    bad_record = None

    def __init__(self, request):
        pass

    def prepare(self):
        pass

    def block(self, run):
        # run 1 follows for ever (stopped by SIGTERM); run 2 ends after the last row.
        return generated(rate=20, bounded=run == 2)

    def first_half_delivered(self, ids):
        return len(ids) >= 5

    def between_runs(self):
        pass

    ends_by_itself = True  # the second run ends with its input

    @staticmethod
    def id_of(after):
        return after["id"]


class KafkaSource:
    """debezium-json messages on a fresh topic: half before the first run, half before the second."""
    type = "kafka"
    MESSAGE = '{"before":null,"after":{"id":%d},"op":"c","source":{"db":"app","table":"t"}}'

    def __init__(self, request):
        self.broker = request.getfixturevalue("kafka_broker")
        self.topic = unique("conformance")

    def prepare(self):
        self.broker.create_topic(self.topic)
        self.broker.produce(self.topic, [self.MESSAGE % i for i in range(1, TOTAL // 2 + 1)])

    def block(self, run, bounded=False):
        return (f"source:\n  type: kafka\n  properties.bootstrap.servers: {self.broker.bootstrap}\n"
                f"  topic: {self.topic}\n  properties.group.id: {self.topic}\n"
                f"  value.format: debezium-json\n  table-id.dynamic.from: value\n"
                f"  table-id.dynamic.fields: source.db,source.table\n"
                f"  scan.startup.mode: earliest-offset\n"
                + ("  scan.bounded.mode: latest-offset\n" if bounded else ""))

    def first_half_delivered(self, ids):
        return len(ids) >= TOTAL // 2

    def between_runs(self):
        self.broker.produce(self.topic,
                            [self.MESSAGE % i for i in range(TOTAL // 2 + 1, TOTAL + 1)])

    ends_by_itself = False

    @staticmethod
    def id_of(after):
        return after["id"]

    def bad_record(self):
        """(source block, the bad record's position as the dead-letter file names it, the ids of
        the good records around it)."""
        self.broker.create_topic(self.topic)
        self.broker.produce(self.topic, [self.MESSAGE % 1, "not json", self.MESSAGE % 3])
        return self.block(1), f"topic {self.topic}, partition 0, offset 1", [1, 3]


class OssSource:
    """Objects k/1..k/TOTAL put into a bucket whose notifications go to an MNS queue."""
    type = "oss-cdc"
    ends_by_itself = False

    def __init__(self, request):
        self.emu = request.getfixturevalue("oss_emulator")
        self.bucket, self.queue = unique("b"), unique("q")
        self.emu.create_bucket(self.bucket)
        self.emu.mns.create_queue(self.queue, visibility_timeout=2)
        self.emu.add_notification(self.bucket, self.queue)

    def put(self, ids):
        self.emu.put_objects(self.bucket, [{"key": f"k/{i}", "content": str(i)} for i in ids], notify=True)

    def prepare(self):
        self.put(range(1, TOTAL // 2 + 1))

    def block(self, run):
        return ("source:\n  type: oss-cdc\n"
                f"  access-key-id: {self.emu.access_key_id}\n"
                f"  access-key-secret: {self.emu.access_key_secret}\n"
                f"  mns.endpoint: {self.emu.mns.url}\n  mns.region: cn-hangzhou\n"
                f"  mns.queue-name: {self.queue}\n  mns.polling-wait-time: 1s\n"
                "  scan.startup.mode: EARLIEST_OFFSET\n")

    def first_half_delivered(self, ids):
        return len(ids) >= TOTAL // 2

    def between_runs(self):
        self.put(range(TOTAL // 2 + 1, TOTAL + 1))

    @staticmethod
    def id_of(after):
        return int(after["key"].split("/")[1])

    def bad_record(self):
        event = {"eventName": "ObjectCreated:PutObject", "eventTime": "2024-01-02T03:04:05.000Z",
                 "region": "cn-hangzhou",
                 "oss": {"bucket": {"name": self.bucket}, "object": {"key": "k/1", "size": 1}}}
        no_key = {"eventName": "ObjectCreated:PutObject",
                  "oss": {"bucket": {"name": self.bucket}, "object": {"size": 1}}}
        third = json.loads(json.dumps(event))
        third["oss"]["object"]["key"] = "k/3"
        sent = self.emu.mns.send(self.queue, json.dumps({"events": [event, no_key, third]}))
        return self.block(1), f"MNS queue {self.queue}, message {sent['message_id']}, event 1", [1, 3]


class DingtalkSource:
    """Documents "doc 1".."doc TOTAL" in one workspace; the second half created between the runs.
    A document that cannot be read is retried, never a bad record: no bad_record."""
    type = "dingtalk-cdc"
    ends_by_itself = False
    bad_record = None

    def __init__(self, request):
        import dingtalk_env
        self.env = dingtalk_env
        self.emu = request.getfixturevalue("dingtalk_emulator")
        workspace = self.emu.create_workspace(unique("Conformance"), owner_id=dingtalk_env.OPERATOR)
        self.workspace, self.root = workspace["workspaceId"], workspace["rootNodeId"]

    def create(self, ids):
        for i in ids:
            self.emu.create_document(self.root, f"doc {i}", blocks=[])

    def prepare(self):
        self.create(range(1, TOTAL // 2 + 1))

    def block(self, run):
        # dingtalk_env's pipeline, without its sink block (the test adds its own).
        text = self.env.pipeline_yaml(self.emu, "unused", [self.workspace])
        return text[text.index("source:"):text.index("sink:")]

    def first_half_delivered(self, ids):
        return len(ids) >= TOTAL // 2

    def between_runs(self):
        self.create(range(TOTAL // 2 + 1, TOTAL + 1))

    @staticmethod
    def id_of(after):
        return int(after["title"].split()[1])


class PostgresSource:
    """Rows of a fresh table: half before the first run (its snapshot), half inserted before the
    second (streamed from the slot)."""
    type = "postgres"

    def __init__(self, request):
        from server import PASSWORD, USER  # tests/services/postgres
        self.pg = request.getfixturevalue("postgres_server")
        self.table = unique("conformance").replace("-", "_")
        self.user, self.password = USER, PASSWORD

    def insert(self, ids):
        self.pg.sql(f"INSERT INTO public.{self.table} (id) SELECT g FROM "
                    f"generate_series({ids.start}, {ids.stop - 1}) g")

    def prepare(self):
        self.pg.sql(f"CREATE TABLE public.{self.table} (id int PRIMARY KEY, v numeric(5, 2))")
        self.insert(range(1, TOTAL // 2 + 1))

    def block(self, run, startup="initial"):
        return (f"source:\n  type: postgres\n  hostname: 127.0.0.1\n  port: {self.pg.port}\n"
                f"  username: {self.user}\n  password: {self.password}\n"
                f"  tables: cdcd.public.{self.table}\n  slot.name: {self.table}\n"
                f"  debezium.publication.name: {self.table}\n"
                f"  debezium.publication.autocreate.mode: filtered\n"
                f"  scan.lsn-commit.checkpoints-num-delay: 0\n  scan.startup.mode: {startup}\n")

    def first_half_delivered(self, ids):
        return len(ids) >= TOTAL // 2

    def between_runs(self):
        self.insert(range(TOTAL // 2 + 1, TOTAL + 1))

    ends_by_itself = False

    @staticmethod
    def id_of(after):
        return after["id"]

    def bad_record(self):
        """A numeric NaN, which no DECIMAL holds, between two good rows, streamed from a slot
        made before them; both runs (fail, then dead-letter) read it from the slot's confirmed
        position (committed-offset), which the failed run never moved past them."""
        self.pg.sql(f"CREATE TABLE public.{self.table} (id int PRIMARY KEY, v numeric(5, 2));"
                    f"CREATE PUBLICATION {self.table} FOR TABLE public.{self.table}")
        self.pg.sql(f"SELECT pg_create_logical_replication_slot('{self.table}', 'pgoutput')")
        self.pg.sql(f"INSERT INTO public.{self.table} VALUES (1, 1), (2, 'NaN'), (3, 3)")
        return (self.block(1, "committed-offset"), f"table public.{self.table} insert", [1, 3])


SOURCES = [ValuesSource, KafkaSource, OssSource, DingtalkSource, PostgresSource]


# ---- sinks -----------------------------------------------------------------------------------

class FileSink:
    type = "file"
    duplicates_visible = True
    bad_record = None

    def __init__(self, request, tmp):
        self.path = tmp / "out.jsonl"

    def block(self):
        return f"sink:\n  type: file\n  path: {self.path}\n"

    def delivered(self, run):
        if not self.path.exists():
            return []
        return [json.loads(line)["after"]["id"] for line in self.path.read_text().splitlines()
                if line]


class ValuesSink:
    type = "values"
    duplicates_visible = True
    bad_record = None
    AFTER = re.compile(r"^DataChangeEvent\{.*after=\[(\d+),", re.M)

    def __init__(self, request, tmp):
        pass

    def block(self):
        return "sink:\n  type: values\n"

    def delivered(self, run):
        # What each run printed to stdout.
        return [int(m) for r in run for m in self.AFTER.findall(r.output())]


class KafkaSink:
    type = "kafka"
    duplicates_visible = True

    def __init__(self, request, tmp):
        self.broker = request.getfixturevalue("kafka_broker")
        self.topic = unique("conformance-sink")
        self.broker.create_topic(self.topic)

    def block(self, extra=""):
        return (f"sink:\n  type: kafka\n  properties.bootstrap.servers: {self.broker.bootstrap}\n"
                f"  topic: {self.topic}\n{extra}")

    def delivered(self, run):
        return [json.loads(r.value)["after"]["id"] for r in self.broker.consume_all(self.topic)
                if r.value]

    def bad_record(self):
        """(pipeline source and sink blocks, the rejected record's id): row 5 outgrows the
        producer's request size."""
        transform = ("transform:\n  - source-table: default_namespace.default_schema.generated\n"
                     "    projection: id, version, IF(id = CAST(5 AS BIGINT), "
                     "RPAD(payload, 20000, 'y'), payload) AS payload\n")
        blocks = generated(rows=10, transform=transform) + self.block(
            "  properties.max.request.size: 10000\n")
        return blocks, 5

    @staticmethod
    def record_id(record):
        """The id of a dead-lettered record (its `record` field)."""
        return json.loads(record)["after"]["id"]

    def failure_names(self, rejected):
        """What the error of a pipeline stopped by the rejected record says to name it."""
        return [f"topic {self.topic}, key ", f'"id":{rejected}']


class VikingdbSink:
    type = "vikingdb"
    duplicates_visible = False  # upserts by primary key: a replay overwrites, it cannot show
    COLLECTION = "default_namespace_default_schema_generated"

    def __init__(self, request, tmp):
        self.emu = request.getfixturevalue("vikingdb_emulator")
        self.emu.reset(credentials=True)
        self.emu.clear_faults()

    def block(self):
        return ("sink:\n  type: vikingdb\n  region: cn-beijing\n"
                f"  control-plane.host: http://{self.emu.host}\n  data-plane.host: {self.emu.host}\n"
                "  data-plane.scheme: http\n  api-key: test-api-key\n  access-key: AKTEST\n"
                "  secret-key: SKTEST\n")

    def delivered(self, run):
        if not self.emu.collections():
            return []
        return [int(r["id"]) for r in self.emu.rows(self.COLLECTION)["rows"]]

    def bad_record(self):
        """Row 5's payload outgrows the emulator's string limit: HTTP 400 for that record only."""
        self.emu.configure(string_max_bytes=100)
        transform = ("transform:\n  - source-table: default_namespace.default_schema.generated\n"
                     "    projection: id, version, IF(id = CAST(5 AS BIGINT), "
                     "RPAD(payload, 200, 'y'), payload) AS payload\n")
        return generated(rows=10, transform=transform) + self.block(), 5

    @staticmethod
    def record_id(record):
        return json.loads(record)["id"]

    def failure_names(self, rejected):
        return [f"collection '{self.COLLECTION}'", f"primary key {rejected}"]


SINKS = [FileSink, ValuesSink, KafkaSink, VikingdbSink]
