"""deploy/compose/compose.yaml: the file validates against the Compose Specification's JSON schema
(vendored in schemas/, checked with jsonschema from PyPI; there is no Docker engine here), its
references hold (depends_on, volumes, the mounted pipeline, the Dockerfile, loopback-only ports,
the topics it creates), the cdcd service fits the image and the drain, its pipeline is the
README's example and passes `cdcd validate` with the service's environment, and the real binary
runs that pipeline with the service's command line against a real Kafka broker (the test suite's,
in place of the kafka service): records go in as Debezium JSON and come out transformed, filtered
and routed as Canal JSON, the container's healthcheck passes, and SIGTERM drains within the
stop grace period."""
import copy
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import uuid

import jsonschema
import pytest
import yaml

import cdcd_process as cdcd
import opslib

sys.path.insert(0, str(cdcd.REPO / "tests" / "services" / "kafka"))
from broker import kafka_broker  # noqa: E402,F401  (session-scoped fixture: a real KRaft broker)

COMPOSE = cdcd.REPO / "deploy" / "compose" / "compose.yaml"
SCHEMA = pathlib.Path(__file__).resolve().parent / "schemas" / "compose-spec.json"
ENTRYPOINT = cdcd.REPO / "deploy" / "docker-entrypoint.sh"
DOCKERFILE = cdcd.REPO / "deploy" / "Dockerfile"
PIPELINE_IN_CONTAINER = "/etc/cdcd/pipeline.yaml"


def compose():
    return yaml.safe_load(COMPOSE.read_text())


# ---- the schema -----------------------------------------------------------------------------

def schema_errors(doc):
    schema = json.loads(SCHEMA.read_text())
    assert schema["$schema"].startswith("https://json-schema.org/draft-07/")
    jsonschema.Draft7Validator.check_schema(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]


def test_compose_file_validates_against_the_compose_spec_schema():
    assert schema_errors(compose()) == []


@pytest.mark.parametrize("break_it", [
    lambda d: d["services"]["cdcd"].update(stop_grace_periode="45s"),  # misspelt key
    lambda d: d["services"]["cdcd"]["depends_on"]["kafka"].update(condition="service_ready"),
    lambda d: d["services"]["kafka"]["healthcheck"].update(test=9092),
    lambda d: d.update(volumes=list(d["volumes"])),
    lambda d: d.update(service=d.pop("services")),
], ids=["misspelt-key", "unknown-condition", "healthcheck-test-not-a-command", "volumes-not-a-mapping",
        "misspelt-top-level-key"])
def test_the_schema_check_catches_a_broken_file(break_it):
    doc = compose()
    break_it(doc)
    assert schema_errors(doc)


# ---- cross-references -----------------------------------------------------------------------

def volume_mounts(service):
    """(type, source, target, read_only) of each of a service's volumes, short or long syntax."""
    for v in service.get("volumes", []):
        if isinstance(v, dict):
            yield v.get("type", "volume"), v.get("source"), v["target"], bool(v.get("read_only"))
            continue
        parts = v.split(":")
        source, target = (parts[0], parts[1]) if len(parts) > 1 else (None, parts[0])
        mode = parts[2].split(",") if len(parts) > 2 else []
        kind = "bind" if source and source.startswith((".", "/", "~")) else "volume"
        yield kind, source, target, "ro" in mode


def published_ports(service):
    """(host_ip, published, target) of each published port, short or long syntax."""
    for p in service.get("ports", []):
        if isinstance(p, dict):
            yield p.get("host_ip"), str(p.get("published")), str(p["target"])
            continue
        parts = str(p).split(":")
        if len(parts) == 3:
            yield parts[0], parts[1], parts[2]
        elif len(parts) == 2:
            yield None, parts[0], parts[1]
        else:
            yield None, None, parts[0]


def dependencies(service):
    deps = service.get("depends_on", {})
    return {name: "service_started" for name in deps} if isinstance(deps, list) else \
        {name: d.get("condition", "service_started") for name, d in deps.items()}


def problems(doc, base=COMPOSE.parent):
    """What in the file points at something that does not exist, or publishes beyond loopback."""
    found = []
    services = doc.get("services", {})
    declared_volumes = set(doc.get("volumes") or {})
    used_volumes = set()
    for name, s in services.items():
        for dep, condition in dependencies(s).items():
            if dep not in services or dep == name:
                found.append(f"{name}: depends_on names no other service: {dep}")
            elif condition == "service_healthy" and "healthcheck" not in services[dep]:
                found.append(f"{name}: waits for {dep} to be healthy, which has no healthcheck")
            elif condition == "service_completed_successfully" and \
                    services[dep].get("restart", "no") in ("always", "unless-stopped"):
                found.append(f"{name}: waits for {dep} to complete, which restarts forever")
        for kind, source, target, _ in volume_mounts(s):
            if kind == "volume" and source:
                used_volumes.add(source)
                if source not in declared_volumes:
                    found.append(f"{name}: volume {source} is not declared")
            elif kind == "bind" and not (base / source).exists():
                found.append(f"{name}: bind-mounted {source} does not exist")
        if "build" in s:
            build = s["build"] if isinstance(s["build"], dict) else {"context": s["build"]}
            context = (base / build.get("context", ".")).resolve()
            if not context.is_dir():
                found.append(f"{name}: build context {context} does not exist")
            elif not (context / build.get("dockerfile", "Dockerfile")).is_file():
                found.append(f"{name}: no Dockerfile at {build.get('dockerfile')} in {context}")
        for host_ip, published, target in published_ports(s):
            if host_ip != "127.0.0.1":
                found.append(f"{name}: port {target} is published on {host_ip or 'every interface'}")
    for unused in declared_volumes - used_volumes:
        found.append(f"volume {unused} is declared and never used")
    return found


def test_references_hold_and_ports_stay_on_loopback():
    assert problems(compose()) == []


def mount_of(doc, service, target):
    """The (kind, source, target, read_only) mounting `target` in `service`."""
    return next(m for m in volume_mounts(doc["services"][service]) if m[2] == target)


BREAKAGES = {
    "unknown-dependency": lambda d: d["services"]["cdcd"]["depends_on"].update(zookeeper={"condition":
                                                                                           "service_started"}),
    "healthy-without-healthcheck": lambda d: d["services"]["kafka"].pop("healthcheck"),
    "completion-of-a-restarting-service": lambda d: d["services"]["create-topics"].update(restart="always"),
    "undeclared-volume": lambda d: d["volumes"].pop("cdcd-state"),
    "unused-volume": lambda d: d["volumes"].update(spare=None),
    "missing-pipeline-file": lambda d: d["services"]["cdcd"].update(volumes=[
        v.replace("./pipeline.yaml", "./pipeline.yml") for v in d["services"]["cdcd"]["volumes"]]),
    "missing-dockerfile": lambda d: d["services"]["cdcd"]["build"].update(dockerfile="Dockerfile"),
    "wrong-context": lambda d: d["services"]["cdcd"]["build"].update(context=".."),
    "port-on-every-interface": lambda d: d["services"]["cdcd"].update(ports=["8081:8081"]),
    "port-on-0.0.0.0": lambda d: d["services"]["kafka"].update(ports=["0.0.0.0:9092:29092"]),
}


@pytest.mark.parametrize("name", BREAKAGES)
def test_the_reference_check_catches_a_broken_file(name):
    doc = copy.deepcopy(compose())
    BREAKAGES[name](doc)
    assert problems(doc), name


# ---- the cdcd service against the image, the drain and the pipeline -------------------------

def flag(args, name):
    return args[args.index(name) + 1]


def seconds(duration: str) -> float:
    """A Go (Compose) or cdcd duration such as 45s, 1m30s, 500ms."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(ms|h|m|s)", duration)
    assert parts and re.fullmatch(r"(?:\d+(?:\.\d+)?\s*(?:ms|h|m|s))+", duration.replace(" ", "")), duration
    return sum(float(n) * units[u] for n, u in parts)


def pipeline_file(doc=None):
    kind, source, _, _ = mount_of(doc or compose(), "cdcd", PIPELINE_IN_CONTAINER)
    assert kind == "bind"
    return (COMPOSE.parent / source).resolve()


def pipeline():
    return yaml.safe_load(pipeline_file().read_text())


def entrypoint_default(variable):
    return re.search(rf'{variable}="\$\{{{variable}:-([^}}]*)\}}"', ENTRYPOINT.read_text()).group(1)


def test_cdcd_service_fits_the_image_and_the_drain():
    doc = compose()
    s = doc["services"]["cdcd"]
    assert s["build"] == {"context": "../..", "dockerfile": "deploy/Dockerfile"}
    assert (cdcd.REPO / "deploy" / "Dockerfile.dockerignore").exists()  # keeps build/ out of the context
    assert dependencies(s) == {"kafka": "service_healthy", "create-topics": "service_completed_successfully"}
    args = s["command"]
    assert args[:2] == ["run", PIPELINE_IN_CONTAINER]
    # The pipeline is mounted read-only from the repository, the state directory is a named volume
    # at the image's VOLUME.
    assert pipeline_file(doc).is_relative_to(cdcd.REPO) and mount_of(doc, "cdcd", PIPELINE_IN_CONTAINER)[3]
    state = flag(args, "--state-dir")
    kind, source, _, read_only = mount_of(doc, "cdcd", state)
    assert kind == "volume" and source in doc["volumes"] and not read_only
    assert re.search(rf"^VOLUME {re.escape(state)}$", DOCKERFILE.read_text(), re.M)
    # The admin endpoint listens on the container's interfaces, on the port published (on the
    # host's loopback), and is the address the entrypoint's healthcheck probes.
    admin = flag(args, "--admin-address")
    host, port = admin.rsplit(":", 1)
    assert host == "0.0.0.0"
    assert [(h, t) for h, _, t in published_ports(s)] == [("127.0.0.1", port)]
    assert s.get("environment", {}).get("CDCD_ADMIN_ADDRESS", entrypoint_default("CDCD_ADMIN_ADDRESS")) == admin
    assert s["healthcheck"]["test"] == ["CMD", "docker-entrypoint.sh", "healthcheck"]
    assert re.search(r"^COPY deploy/docker-entrypoint.sh /usr/local/bin/", DOCKERFILE.read_text(), re.M)
    # SIGTERM drains; SIGKILL comes only after the drain could have finished.
    assert s.get("stop_signal", "SIGTERM") == "SIGTERM"
    drain = seconds(pipeline()["pipeline"].get("shutdown.timeout", "30s"))
    assert seconds(s["stop_grace_period"]) > drain


def created_topics(doc):
    command = " ".join(doc["services"]["create-topics"]["command"])
    return re.findall(r"--topic\s+(\S+)", command), set(re.findall(r"--bootstrap-server\s+(\S+)", command))


def test_kafka_service_and_the_topics_fit_the_pipeline():
    doc = compose()
    kafka = doc["services"]["kafka"]
    env = kafka["environment"]
    # The official image, at the version the test broker runs.
    version = re.search(r'KAFKA_VERSION="\$\{KAFKA_VERSION:-([^}]+)\}"',
                        (cdcd.REPO / "tests" / "services" / "kafka" / "env.sh").read_text()).group(1)
    assert kafka["image"] == f"apache/kafka:{version}" == doc["services"]["create-topics"]["image"]
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}  # KRaft, one node
    assert kafka["healthcheck"]["test"][1].startswith("/opt/kafka/bin/")
    # cdcd and create-topics use the broker's advertised in-network listener.
    advertised = {a.split("://")[1] for a in env["KAFKA_ADVERTISED_LISTENERS"].split(",")}
    bootstrap = doc["services"]["cdcd"]["environment"]["KAFKA_BOOTSTRAP_SERVERS"]
    assert bootstrap in advertised and bootstrap.split(":")[0] == "kafka"
    topics, servers = created_topics(doc)
    assert servers == {bootstrap}
    # The topics are the source's and the one the route's sink table is written to.
    p = pipeline()
    assert p["source"]["properties.bootstrap.servers"] == p["sink"]["properties.bootstrap.servers"] == \
        "${KAFKA_BOOTSTRAP_SERVERS}"
    assert "topic" not in p["sink"]  # so the Kafka sink writes each table to the topic named like it
    assert sorted(topics) == sorted([p["source"]["topic"], *{r["sink-table"] for r in p["route"]}])
    assert env.get("KAFKA_AUTO_CREATE_TOPICS_ENABLE") == "false"


def readme_kafka_example():
    blocks = re.findall(r"^```yaml\n(.*?)^```", (cdcd.REPO / "README.md").read_text(), re.M | re.S)
    examples = [d for d in map(yaml.safe_load, blocks)
                if isinstance(d, dict) and d.get("source", {}).get("type") == "kafka"]
    assert examples, "README.md shows no Kafka pipeline"
    return examples[0]


# What the Compose pipeline may change or add to the README's example: the address, the start
# offset of a new group and the drain (written out for stop_grace_period).
CHANGED = {("source", "properties.bootstrap.servers"), ("sink", "properties.bootstrap.servers")}
ADDED = {("source", "properties.auto.offset.reset"), ("pipeline", "shutdown.timeout")}


def flat(pipeline_doc):
    """{(block, key) or (block, rule index, key): value} of a pipeline."""
    out = {}
    for block, value in pipeline_doc.items():
        if isinstance(value, list):
            out.update({(block, i, k): v for i, rule in enumerate(value) for k, v in rule.items()})
        else:
            out.update({(block, k): v for k, v in value.items()})
    return out


def test_the_pipeline_is_the_readmes_example():
    readme, ours = flat(readme_kafka_example()), flat(pipeline())
    assert set(ours) - set(readme) == ADDED
    assert set(readme) - set(ours) == set()
    assert {k for k in readme if readme[k] != ours[k]} == CHANGED


def service_environment(bootstrap=None):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in compose()["services"]["cdcd"]["environment"].items()})
    if bootstrap:
        env["KAFKA_BOOTSTRAP_SERVERS"] = bootstrap
    return env


def test_the_pipeline_passes_cdcd_validate_with_the_services_environment():
    result = cdcd.run(["validate", pipeline_file()], env=service_environment())
    assert result.returncode == 0, result.stderr
    # The environment is what resolves it: without the variable the same file is refused.
    env = {k: v for k, v in service_environment().items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    result = cdcd.run(["validate", pipeline_file()], env=env)
    assert result.returncode != 0 and "KAFKA_BOOTSTRAP_SERVERS" in result.stderr


# ---- the pipeline, run as the service runs it, against a real broker ------------------------

def order(i, run, amount, status):
    return json.dumps({"before": None, "after": {"id": i, "run": run, "status": status, "amount": amount},
                       "op": "c", "source": {"db": "shop", "table": "orders"}})


def test_the_service_runs_the_pipeline_against_a_real_broker(kafka_broker, tmp_path):
    doc = compose()
    s = doc["services"]["cdcd"]
    topics, _ = created_topics(doc)
    existing = kafka_broker.list_topics()
    for topic in topics:  # what create-topics does: --if-not-exists
        if topic not in existing:
            kafka_broker.create_topic(topic)
    p = pipeline()
    source_topic, (output_topic,) = p["source"]["topic"], {r["sink-table"] for r in p["route"]}

    # The service's command line, with the container's paths and address moved to this machine.
    port = opslib.free_port()
    args = [str(pipeline_file()) if a == PIPELINE_IN_CONTAINER else a for a in s["command"]]
    args[args.index("--state-dir") + 1] = str(tmp_path / "state")
    container_admin = flag(args, "--admin-address")
    args[args.index("--admin-address") + 1] = f"127.0.0.1:{port}"
    log = tmp_path / "cdcd.log"
    with open(log, "w") as stderr:
        proc = cdcd.start(args, env=service_environment(kafka_broker.bootstrap), stdout=subprocess.DEVNULL,
                          stderr=stderr)
    try:
        assert cdcd.wait_for(lambda: proc.poll() is not None or opslib.get(port, "/readyz")[0] == 200, 60) \
            and proc.poll() is None, log.read_text()
        # The container's healthcheck: the entrypoint probes the admin address (0.0.0.0 on loopback).
        probe = subprocess.run([str(ENTRYPOINT), "healthcheck"], capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, CDCD_ADMIN_ADDRESS=f"{container_admin.rsplit(':', 1)[0]}:{port}"))
        assert probe.returncode == 0, probe.stderr

        run = uuid.uuid4().hex
        sent = [(1, 50, "new"), (2, 150.5, "paid"), (3, 100, "paid"), (4, 250, "shipped"), (5, 99.5, "new"),
                (6, 101, "paid")]
        kafka_broker.produce(source_topic, [order(i, run, amount, status) for i, amount, status in sent])

        def ours():
            out = []
            for r in kafka_broker.consume_all(output_topic):
                value = json.loads(r.value)
                out += [(value, row) for row in value["data"] if row.get("run") == run]
            return out
        expected = [(i, status) for i, amount, status in sent if amount > 100]  # the README's filter
        got = cdcd.wait_for(lambda: len(ours()) >= len(expected) and ours(), 60, interval=0.5)
        assert got, f"nothing relayed to {output_topic}:\n{log.read_text()[-3000:]}"
        # Written in order on one partition: the filtered rows would have arrived before the last one.
        assert [(row["id"], row["status"]) for _, row in got] == expected
        for value, row in got:
            assert row["status_upper"] == row["status"].upper()  # the README's projection
            assert (value["database"], value["table"], value["type"]) == ("ods", "orders", "INSERT")  # its route

        # `docker compose stop`: SIGTERM, the drain with a final checkpoint, exit 0 in the grace period.
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, seconds(s["stop_grace_period"])) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "final checkpoint" in log.read_text()
