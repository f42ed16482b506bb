#!/usr/bin/env bash
# make run-otel: the example built with the OTel trait, exporting over OTLP and serving Prometheus
# metrics at once. Without OTLP_ENDPOINT it starts the tests' OTLP receiver on loopback (port 4318)
# and prints what arrived (spans, chains, metric names, the reports' log records); with it, it sends
# to that collector instead.
#
#   OTLP_ENDPOINT=http://127.0.0.1:4318 METRICS_PORT=9464 scripts/run-otel.sh [task-client options...]
set -euo pipefail
cd "$(dirname "$0")/.."

metrics_port="${METRICS_PORT:-9464}"
endpoint="${OTLP_ENDPOINT:-}"
receiver=""
received=""
if [ -z "$endpoint" ]; then
    received="$(mktemp -t rebound-otlp-XXXXXX.jsonl)"
    .build-venv/bin/python scripts/otlp-receiver.py --port 4318 --output "$received" --lifetime 600 &
    receiver=$!
    trap 'kill "$receiver" 2>/dev/null || true' EXIT
    endpoint="http://127.0.0.1:4318"
fi

"${SWIFT:-swift}" run --traits OTel --scratch-path .build-otel task-client \
    --otlp-endpoint "$endpoint" --metrics-port "$metrics_port" "$@"

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
