#!/usr/bin/env bash
# make run-otel: the example built with the OTel trait, exporting over OTLP and serving Prometheus
# metrics at once. Without OTLP_ENDPOINT it starts the tests' OTLP receiver on loopback (port 4318)
# and prints what arrived (spans, chains, metric names, the reports' log records); with it, it sends
# to that collector instead. Unless PROMETHEUS_PORT=0, it also starts Debian's Prometheus on that
# port (9090 by default), scraping the example every second, and prints what Prometheus stored.
#
#   OTLP_ENDPOINT=http://127.0.0.1:4318 METRICS_PORT=9464 PROMETHEUS_PORT=9090 scripts/run-otel.sh [task-client options...]
set -euo pipefail
cd "$(dirname "$0")/.."

metrics_port="${METRICS_PORT:-9464}"
prometheus_port="${PROMETHEUS_PORT:-9090}"
endpoint="${OTLP_ENDPOINT:-}"
receiver=""
received=""
prometheus=""
scratch="$(mktemp -d -t rebound-run-otel-XXXXXX)"
cleanup() {
    for pid in $receiver $prometheus; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

if [ -z "$endpoint" ]; then
    received="$(mktemp -t rebound-otlp-XXXXXX.jsonl)"
    .build-venv/bin/python scripts/otlp-receiver.py --port 4318 --output "$received" --lifetime 600 &
    receiver=$!
    endpoint="http://127.0.0.1:4318"
fi

linger=()
if [ "$prometheus_port" != 0 ] && ! command -v prometheus >/dev/null; then
    echo "No prometheus on PATH (scripts/setup.sh --tests installs Debian's): the metrics are served, not scraped." >&2
elif [ "$prometheus_port" != 0 ]; then
    cat >"$scratch/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: task-client
    static_configs: [{targets: ["127.0.0.1:$metrics_port"]}]
YML
    prometheus --config.file="$scratch/prometheus.yml" --storage.tsdb.path="$scratch/prometheus" \
        --web.listen-address="127.0.0.1:$prometheus_port" >"$scratch/prometheus.log" 2>&1 &
    prometheus=$!
    for _ in $(seq 100); do
        python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
            "http://127.0.0.1:$prometheus_port/-/ready" 2>/dev/null && break
        kill -0 "$prometheus" 2>/dev/null || { cat "$scratch/prometheus.log" >&2; exit 1; }
        sleep 0.2
    done
    # The example serves its metrics 3 s past the session, so that the last scrape has them all.
    linger=(--metrics-linger 3)
fi

"${SWIFT:-swift}" run --traits OTel --scratch-path .build-otel task-client \
    --otlp-endpoint "$endpoint" --metrics-port "$metrics_port" "${linger[@]}" "$@"

if [ -n "$prometheus" ]; then
    echo
    echo "Prometheus (http://127.0.0.1:$prometheus_port, stopped now) scraped, last values:"
    python3 - "$prometheus_port" <<'PY'
import json, sys, urllib.parse, urllib.request
port = sys.argv[1]
# Once the example is gone its series are stale: each query takes every series' last sample.
for title, expression in [
    ("attempts by endpoint and outcome", "last_over_time(rebound_attempts_total[10m])"),
    ("recoveries by handler", "last_over_time(rebound_recoveries_total[10m])"),
    ("failed calls by chain", "last_over_time(rebound_failures_total[10m])"),
    ("reported failures by chain", "last_over_time(rebound_nonfatal_total[10m])"),
    ("circuit state (0 closed)", "last_over_time(rebound_circuit_state[10m])"),
]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
    with urllib.request.urlopen(url, timeout=10) as answer:
        result = json.load(answer)["data"]["result"]
    print(f"  {title}:")
    for sample in sorted(result, key=lambda s: sorted(s["metric"].items())):
        labels = ", ".join(f"{k}={v}" for k, v in sorted(sample["metric"].items()) if k not in ("__name__", "job", "instance"))
        print(f"    {labels or '-'}: {sample['value'][1]}")
    if not result:
        print("    none")
PY
fi

if [ -n "$receiver" ]; then
    kill "$receiver"
    wait "$receiver" 2>/dev/null || true
    echo
    echo "The OTLP receiver got (whole decoded output: $received):"
    python3 - "$received" <<'PY'
import collections, json, sys
items = [json.loads(line) for line in open(sys.argv[1])]
spans = collections.Counter((i["name"], i["kind"]) for i in items if i["signal"] == "span")
for (name, kind), count in sorted(spans.items()):
    print(f"  span {name} ({kind}) x{count}")
chains = {i["attributes"]["rebound.chain"] for i in items if i["signal"] == "span" and "rebound.chain" in i["attributes"]}
print("  failed calls' chains:", ", ".join(sorted(chains)) or "none")
print("  metrics:", ", ".join(sorted({i["name"] for i in items if i["signal"] == "metric"})) or "none")
reports = [i for i in items if i["signal"] == "log" and "rebound.chain" in i.get("attributes", {})]
print(f"  report log records: {len(reports)}")
for report in reports:
    attributes = report["attributes"]
    step = attributes.get("rebound.context.step", "?")
    print(f"    {report['severity'].upper()} {report['body']} (step {step}, build {attributes.get('rebound.build')})")
PY
fi
