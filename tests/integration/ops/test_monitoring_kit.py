"""deploy/grafana and deploy/prometheus: every query of the dashboard and every alert expression
parses as PromQL (promql-parser, from PyPI) and names only metrics cdcd exports; a running daemon
serves those metrics; the alert rules are complete (severity, summary)."""
import json
import re
import time

import promql_parser
import pytest
import yaml

import cdcd_process as cdcd
import opslib

DEPLOY = cdcd.REPO / "deploy"
# Grafana's own variables, replaced by what they stand for when Grafana sends the query.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__range": "6h", "$pipeline": ".*"}
# Series Prometheus itself adds to every scrape target.
PROMETHEUS_SERIES = {"up"}


def exported_metrics():
    """The metric names cdcd's code registers (string literals), with a histogram's series."""
    names = set()
    for folder in ("admin", "metrics", "pipeline", "sources", "sinks", "net", "cmd", "state", "kafka_client"):
        for path in (cdcd.REPO / folder).rglob("*.[ch]*"):
            names.update(re.findall(r'"(cdcd_[a-z0-9_]+)"', path.read_text(errors="replace")))
    names |= {n + suffix for n in names for suffix in ("_bucket", "_sum", "_count")}
    return names


def metric_names(expr):
    promql_parser.parse(expr)  # raises ValueError on a malformed expression
    # Identifiers not followed by "(" or inside a label matcher: selectors' metric names.
    without_labels = re.sub(r"\{[^}]*\}", "", expr)
    without_strings = re.sub(r'"[^"]*"', "", without_labels)
    return {n for n in re.findall(r"\b(cdcd_[a-z0-9_]+|up)\b(?!\s*\()", without_strings)}


def dashboard_queries():
    dashboard = json.loads((DEPLOY / "grafana" / "cdcd-dashboard.json").read_text())
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            for var, value in GRAFANA_VARIABLES.items():
                expr = expr.replace(var, value)
            yield panel["title"], expr
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            inner = re.fullmatch(r"label_values\((\w+), *(\w+)\)", var["definition"])
            assert inner, var["definition"]
            yield "variable " + var["name"], inner.group(1)


def alert_rules():
    rules = yaml.safe_load((DEPLOY / "prometheus" / "cdcd-alerts.yml").read_text())
    return [rule for group in rules["groups"] for rule in group["rules"]]


def test_dashboard_queries_parse_and_name_exported_metrics():
    known = exported_metrics() | PROMETHEUS_SERIES
    queries = list(dashboard_queries())
    assert len(queries) >= 14
    for title, expr in queries:
        names = metric_names(expr)
        assert names, (title, expr)
        assert names <= known, f"{title}: {sorted(names - known)} not exported by cdcd"


def test_dashboard_panels_are_complete():
    dashboard = json.loads((DEPLOY / "grafana" / "cdcd-dashboard.json").read_text())
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert {"x", "y", "w", "h"} <= panel["gridPos"].keys()
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24, panel["title"]


def test_alert_rules_parse_name_exported_metrics_and_say_what_to_do():
    known = exported_metrics() | PROMETHEUS_SERIES
    rules = alert_rules()
    assert {r["alert"] for r in rules} >= {"CdcdDown", "CdcdCheckpointNotAdvancing", "CdcdKafkaLagGrowing",
                                            "CdcdRestarting", "CdcdBadRecords"}
    for rule in rules:
        names = metric_names(rule["expr"])
        assert names and names <= known, (rule["alert"], sorted(names - known))
        assert rule["labels"]["severity"] in ("warning", "critical"), rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        if "for" in rule:
            assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["alert"]


def test_a_running_daemon_serves_what_the_dashboard_and_alerts_query(tmp_path):
    wanted = set()
    for _, expr in dashboard_queries():
        wanted |= metric_names(expr)
    for rule in alert_rules():
        wanted |= metric_names(rule["expr"])
    # Only with a Kafka source, after a bad record, or from Prometheus itself:
    wanted -= {"cdcd_kafka_consumer_lag", "cdcd_bad_records_total"} | PROMETHEUS_SERIES
    port = opslib.free_port()
    proc = opslib.start_with_admin(tmp_path, opslib.generated("kit", rate=10_000), port)
    try:
        opslib.wait_ready(port, proc)
        served = set()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not wanted <= served:
            status, body = opslib.get(port, "/metrics")
            assert status == 200, body
            served = {line.split("{")[0].split(" ")[0] for line in body.splitlines() if line and line[0] != "#"}
            time.sleep(0.2)
        assert wanted <= served, sorted(wanted - served)
    finally:
        proc.terminate()
        cdcd.wait_exit(proc, 20)


@pytest.mark.parametrize("bad", ["rate(cdcd_records_out_total[1m]", "sum by (pipeline (x)"])
def test_the_check_catches_a_malformed_query(bad):
    with pytest.raises(ValueError):
        metric_names(bad)


def test_the_check_catches_a_metric_cdcd_does_not_export():
    names = metric_names('sum(rate(cdcd_records_written_total{role="sink"}[1m])) / up')
    assert names == {"cdcd_records_written_total", "up"}
    assert not names <= exported_metrics() | PROMETHEUS_SERIES
