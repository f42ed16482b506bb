#!/usr/bin/env python3
"""An OTLP/HTTP receiver for the export tests: decodes what arrives with the official protobuf
definitions (PyPI's opentelemetry-proto) and writes it as JSON lines, flattened for the tests.

    otlp-receiver.py --output FILE [--port 0] [--lifetime 600]

It listens on 127.0.0.1, prints `listening PORT` once it does, and answers POST /v1/traces,
/v1/metrics and /v1/logs (application/x-protobuf, optionally gzip) with an empty success. Each span,
metric data point and log record becomes one line of FILE:

    {"signal": "span", "name": "GET", "kind": "SPAN_KIND_CLIENT", "traceId": "…", "spanId": "…",
     "parentSpanId": "…", "status": "STATUS_CODE_ERROR", "attributes": {"k": "v"},
     "events": [{"name": "…", "attributes": {}}], "resource": {"service.name": "…"}}
    {"signal": "metric", "name": "…", "unit": "s", "type": "histogram", "attributes": {},
     "count": 3, "sum": 0.1, "bounds": [0.005, …], "bucketCounts": [0, …], "value": null, "resource": {}}
    {"signal": "log", "body": "…", "severity": "ERROR", "severityNumber": 17, "traceId": "…",
     "spanId": "…", "attributes": {}, "resource": {}}

Attribute values are written as strings (arrays joined with ","). A request whose body is larger
than 16 MiB gets 413; anything that does not decode gets 400 and a line {"signal": "error", …}.
It exits on SIGTERM or after --lifetime seconds, whichever comes first, so that a test that dies
never leaves it running.
"""

import argparse
import gzip
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

MAX_BODY = 16 * 1024 * 1024


def value_text(value):
    kind = value.WhichOneof("value")
    if kind is None:
        return ""
    if kind == "array_value":
        return ",".join(value_text(v) for v in value.array_value.values)
    if kind == "kvlist_value":
        return json.dumps(attributes(value.kvlist_value.values), sort_keys=True)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    return str(getattr(value, kind))


def attributes(pairs):
    return {pair.key: value_text(pair.value) for pair in pairs}


def spans(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                yield {
                    "signal": "span",
                    "name": span.name,
                    "kind": trace_pb2.Span.SpanKind.Name(span.kind),
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "status": trace_pb2.Status.StatusCode.Name(span.status.code),
                    "attributes": attributes(span.attributes),
                    "events": [{"name": e.name, "attributes": attributes(e.attributes)} for e in span.events],
                    "resource": resource,
                }


def points(metric):
    kind = metric.WhichOneof("data")
    if kind == "histogram":
        for p in metric.histogram.data_points:
            yield kind, p, {"count": p.count, "sum": p.sum, "bounds": list(p.explicit_bounds),
                            "bucketCounts": list(p.bucket_counts), "value": None}
    elif kind in ("sum", "gauge"):
        for p in getattr(metric, kind).data_points:
            number = p.as_int if p.WhichOneof("value") == "as_int" else p.as_double
            yield kind, p, {"count": None, "sum": None, "bounds": [], "bucketCounts": [], "value": number}
    elif kind == "exponential_histogram":
        for p in metric.exponential_histogram.data_points:
            yield kind, p, {"count": p.count, "sum": p.sum, "bounds": [], "bucketCounts": [], "value": None}


def metrics(request):
    for resource_metrics in request.resource_metrics:
        resource = attributes(resource_metrics.resource.attributes)
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                for kind, point, fields in points(metric):
                    yield {"signal": "metric", "name": metric.name, "unit": metric.unit, "type": kind,
                           "attributes": attributes(point.attributes), **fields, "resource": resource}


def logs(request):
    for resource_logs in request.resource_logs:
        resource = attributes(resource_logs.resource.attributes)
        for scope in resource_logs.scope_logs:
            for record in scope.log_records:
                yield {
                    "signal": "log",
                    "body": value_text(record.body),
                    "severity": record.severity_text,
                    "severityNumber": record.severity_number,
                    "traceId": record.trace_id.hex(),
                    "spanId": record.span_id.hex(),
                    "attributes": attributes(record.attributes),
                    "resource": resource,
                }


ROUTES = {
    "/v1/traces": (trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse, spans),
    "/v1/metrics": (metrics_service_pb2.ExportMetricsServiceRequest, metrics_service_pb2.ExportMetricsServiceResponse, metrics),
    "/v1/logs": (logs_service_pb2.ExportLogsServiceRequest, logs_service_pb2.ExportLogsServiceResponse, logs),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--lifetime", type=float, default=600)
    options = parser.parse_args()
    output = open(options.output, "a", encoding="utf-8")
    lock = threading.Lock()

    def write(items):
        with lock:
            for item in items:
                output.write(json.dumps(item, sort_keys=True) + "\n")
            output.flush()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            route = ROUTES.get(self.path)
            if route is None:
                return self.answer(404, b"")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.answer(413, b"")
            body = self.rfile.read(length)
            try:
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request_type, response_type, flatten = route
                request = request_type()
                request.ParseFromString(body)
                write(flatten(request))
            except Exception as error:  # noqa: BLE001 - anything undecodable is the sender's fault
                write([{"signal": "error", "path": self.path, "error": str(error)}])
                return self.answer(400, b"")
            self.answer(200, response_type().SerializeToString())

        def answer(self, status, body):
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    # Every line is flushed as it is written, so SIGTERM may end the process at once, whatever
    # connections a client keeps open. A test process may have SIGTERM blocked, and a child
    # inherits the mask.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    timer = threading.Timer(options.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
    output.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
