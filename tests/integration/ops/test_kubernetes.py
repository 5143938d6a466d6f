"""deploy/kubernetes/cdcd.yaml: every manifest validates against Kubernetes' own schemas
(kubernetes-validate, from PyPI; strict: no unknown fields), and the StatefulSet fits the image and
the daemon: its pipeline passes `cdcd validate`, its command line runs and answers the probes'
paths on the port they name, its state directory is the volume, its grace period outlasts the
drain, and it runs as the image's user."""
import re
import subprocess

import kubernetes_validate
import pytest
import yaml

import cdcd_process as cdcd
import opslib

MANIFEST = cdcd.REPO / "deploy" / "kubernetes" / "cdcd.yaml"


def manifests():
    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def by_kind(kind):
    (doc,) = [d for d in manifests() if d["kind"] == kind]
    return doc


def container():
    (c,) = by_kind("StatefulSet")["spec"]["template"]["spec"]["containers"]
    return c


def flag(args, name):
    return args[args.index(name) + 1]


@pytest.mark.parametrize("doc", manifests(), ids=lambda d: d["kind"])
def test_manifest_validates_against_the_kubernetes_schema(doc):
    kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


def test_the_schema_check_catches_a_misspelt_field():
    doc = by_kind("StatefulSet")
    doc["spec"]["template"]["spec"]["terminationGracePeriod"] = 45
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


def test_statefulset_fits_the_image_and_the_drain(tmp_path):
    spec = by_kind("StatefulSet")["spec"]
    pod = spec["template"]["spec"]
    c = container()
    args = c["args"]
    assert args[:2] == ["run", "/etc/cdcd/pipeline.yaml"]
    # The state directory is the persistent volume; the pipeline file comes from the ConfigMap.
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    assert mounts["state"] == flag(args, "--state-dir")
    assert spec["volumeClaimTemplates"][0]["metadata"]["name"] == "state"
    assert mounts["pipeline"] == "/etc/cdcd"
    assert pod["volumes"][0]["configMap"]["name"] == by_kind("ConfigMap")["metadata"]["name"]
    # The probes' port is the admin endpoint's, listening beyond loopback for the kubelet.
    admin = flag(args, "--admin-address")
    assert admin.startswith("0.0.0.0:")
    assert c["ports"][0]["containerPort"] == int(admin.split(":")[1])
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    # SIGKILL comes only after the drain could have finished.
    pipeline = yaml.safe_load(by_kind("ConfigMap")["data"]["pipeline.yaml"])
    drain = int(re.fullmatch(r"(\d+)s", pipeline["pipeline"]["shutdown.timeout"]).group(1))
    assert pod["terminationGracePeriodSeconds"] > drain
    # The image's user (deploy/Dockerfile) owns the volume.
    uid = re.search(r"useradd .*--uid (\d+)", (cdcd.REPO / "deploy" / "Dockerfile").read_text()).group(1)
    assert pod["securityContext"]["runAsUser"] == int(uid) == pod["securityContext"]["fsGroup"]
    assert spec["replicas"] == 1  # one process per state directory


def test_the_configmap_pipeline_runs_with_the_containers_command_line(tmp_path):
    pipeline = cdcd.write_pipeline(tmp_path, by_kind("ConfigMap")["data"]["pipeline.yaml"])
    assert cdcd.run(["validate", pipeline]).returncode == 0
    args = container()["args"]
    port = opslib.free_port()
    # The container's own flags, with paths and the address moved to this machine.
    local = [pipeline if a == "/etc/cdcd/pipeline.yaml" else a for a in args[1:]]
    local[local.index("--state-dir") + 1] = str(tmp_path / "state")
    local[local.index("--admin-address") + 1] = f"127.0.0.1:{port}"
    proc = cdcd.start(["run", *local], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        opslib.wait_ready(port, proc)
        assert opslib.get(port, container()["livenessProbe"]["httpGet"]["path"])[0] == 200
        assert opslib.get(port, container()["readinessProbe"]["httpGet"]["path"])[0] == 200
        proc.terminate()  # as the kubelet does: the drain ends in time, exit 0
        assert cdcd.wait_exit(proc, by_kind("StatefulSet")["spec"]["template"]["spec"]
                              ["terminationGracePeriodSeconds"]) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
