"""/metrics of a running cdcd, parsed as Prometheus exposition (shared by the connector suites)."""
import http.client

from prometheus_client.parser import text_string_to_metric_families


def scrape(port: int):
    """(samples, body): every sample of GET /metrics; raises when the text is not valid exposition."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/metrics")
    resp = conn.getresponse()
    body = resp.read().decode()
    conn.close()
    assert resp.status == 200, body
    assert resp.getheader("Content-Type").startswith("text/plain; version=0.0.4")
    samples = [s for f in text_string_to_metric_families(body) for s in f.samples]
    return samples, body


def total(samples, name: str, **labels) -> float:
    """Sum of the samples `name` whose labels include `labels` (0 when none)."""
    return sum(s.value for s in samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def label_values(samples, name: str, label: str, **labels) -> set:
    return {s.labels[label] for s in samples
            if s.name == name and label in s.labels and all(s.labels.get(k) == v for k, v in labels.items())}


def requests_by_endpoint(samples, **labels) -> dict:
    """{endpoint: {status: count}} of cdcd_http_requests_total."""
    out: dict = {}
    for s in samples:
        if s.name == "cdcd_http_requests_total" and all(s.labels.get(k) == v for k, v in labels.items()):
            out.setdefault(s.labels["endpoint"], {})[s.labels["status"]] = int(s.value)
    return out
