#!/usr/bin/env python3
"""Summarises the JSON lines of scripts/benchmark-transport.sh as Markdown tables.

Usage: scripts/benchmark-summary.py RESULTS.jsonl [CLIENTS] [WORKLOADS]

CLIENTS and WORKLOADS are space-separated lists that set the order of the rows and tables (by
default, the order in which they first appear in the results). benchmark-transport.sh calls it
at the end of a run; call it again to summarise a results file kept from an earlier run.
"""
import json, statistics, sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
results_path = sys.argv[1]
runs = [json.loads(line) for line in open(results_path) if line.strip()]
def first_seen(key):
    return list(dict.fromkeys(run[key] for run in runs))
clients = sys.argv[2].split() if len(sys.argv) > 2 else first_seen("client")
workloads = sys.argv[3].split() if len(sys.argv) > 3 else first_seen("workload")

def good(run):
    return run.get("exit") == 0 and run.get("failures") == 0 and run.get("requests", 0) > 0

def median(values):
    return statistics.median(values) if values else None

def fmt(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"

def ratio_text(client, mine, reference, per_round):
    if mine is None or not reference:
        return "–"
    if client == "c":
        return "1.00"
    text = f"{mine / reference:.2f}"
    if len(per_round) > 1:
        text += f" ({min(per_round):.2f}–{max(per_round):.2f})"
    return text

def connections_text(counts):
    counts = [count for count in counts if count is not None]
    if not counts:
        return "–"
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low}–{high}"

steals = [run["steal"] for run in runs if run.get("steal") is not None]
if steals:
    print()
    print(f"CPU time taken by the hypervisor (steal) during the runs: median {median(steals):.0%}, "
          f"highest {max(steals):.0%}. Above a few per cent, ratios move with it; compare within a round.")

# pipeline-ab reports in its own shape (below), not in the per-client tables.
table_clients = [client for client in clients if client != "pipeline-ab"]
# Each metric of the per-client tables: its heading, how to read it from a run, its digits.
METRICS = [
    ("req/s", lambda run: run["rps"], 0),
    ("p50 µs", lambda run: run["p50_us"], 1),
    ("p99 µs", lambda run: run["p99_us"], 1),
    ("MB/s", lambda run: run["mbps"], 1),
    ("peak RSS MiB", lambda run: run["peak_rss_kib"] / 1024, 1),
    ("RSS growth MiB", lambda run: (run["peak_rss_kib"] - run["start_rss_kib"]) / 1024, 1),
    ("CPU µs/req", lambda run: run["cpu_seconds"] / run["requests"] * 1e6, 1),
]

for workload in workloads:
    mine = [run for run in runs if run["workload"] == workload]
    by_client = {client: [run for run in mine if run["client"] == client and good(run)] for client in table_clients}
    c_by_round = {run["round"]: run for run in by_client.get("c", [])}
    print()
    print(f"## {workload}")
    print()
    print("| client | " + " | ".join(f"{name} | ×C" for name, _, _ in METRICS)
          + " | connections | good runs |")
    print("|---|" + "--:|--:|" * len(METRICS) + "--:|--:|")
    for client in table_clients:
        good_runs = by_client[client]
        all_runs = [run for run in mine if run["client"] == client]
        cells = [client]
        for _, value, digits in METRICS:
            mine_median = median([value(run) for run in good_runs])
            c_median = median([value(run) for run in c_by_round.values()])
            # Ratios to C within each round, whose spread shows how much the machine moved.
            per_round = [value(run) / value(c_by_round[run["round"]]) for run in good_runs
                         if run["round"] in c_by_round and value(c_by_round[run["round"]])]
            cells += [fmt(mine_median, digits), ratio_text(client, mine_median, c_median, per_round)]
        cells += [
            connections_text([run.get("connections") for run in good_runs]),
            f"{len(good_runs)}/{len(all_runs)}",
        ]
        print("| " + " | ".join(cells) + " |")

# The pipeline against the bare transport, round by round: the cost of Rebound's API layer.
pairs = [("pipeline", "rebound"), ("pipeline", "rebound-auth"), ("pipeline-loop", "rebound-loop")]
pairs = [(p, b) for p, b in pairs if p in clients and b in clients]
if pairs:
    print()
    print("## pipeline against the bare transport")
    print()
    print("| workload | " + " | ".join(f"{p} / {b}" for p, b in pairs) + " |")
    print("|---|" + "--:|" * len(pairs))
    for workload in workloads:
        cells = []
        for p, b in pairs:
            runs_p = {run["round"]: run for run in runs if run["workload"] == workload and run["client"] == p and good(run)}
            runs_b = {run["round"]: run for run in runs if run["workload"] == workload and run["client"] == b and good(run)}
            ratios = [runs_p[r]["rps"] / runs_b[r]["rps"] for r in runs_p if r in runs_b]
            if not ratios:
                cells.append("–")
                continue
            text = f"{median(ratios):.2f}"
            if len(ratios) > 1:
                text += f" ({min(ratios):.2f}–{max(ratios):.2f})"
            cells.append(text)
        print(f"| {workload} | " + " | ".join(cells) + " |")
    print()
    print("Median of the per-round ratios of requests per second, with their range in brackets.")

# The same comparison in one process, over one transport, in interleaved slices (pipeline-ab).
ab_runs = [run for run in runs if run["client"] == "pipeline-ab" and run.get("exit") == 0 and run.get("failures") == 0]
if "pipeline-ab" in clients:
    print()
    print("## pipeline against rebound-auth, interleaved in one process (pipeline-ab)")
    print()
    print("| workload | pipeline / rebound-auth | rebound-auth req/s | pipeline req/s | rebound-auth CPU µs/req "
          "| pipeline CPU µs/req | good runs |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for workload in workloads:
        good_runs = [run for run in ab_runs if run["workload"] == workload]
        all_runs = [run for run in runs if run["client"] == "pipeline-ab" and run["workload"] == workload]
        ratios = [run["ratio"] for run in good_runs]
        text = "–" if not ratios else f"{median(ratios):.2f}"
        if len(ratios) > 1:
            text += f" ({min(ratios):.2f}–{max(ratios):.2f})"
        print("| " + " | ".join([
            workload,
            text,
            fmt(median([run["bare_rps"] for run in good_runs])),
            fmt(median([run["pipeline_rps"] for run in good_runs])),
            fmt(median([run["bare_cpu_us"] for run in good_runs]), 1),
            fmt(median([run["pipeline_cpu_us"] for run in good_runs]), 1),
            f"{len(good_runs)}/{len(all_runs)}",
        ]) + " |")
    print()
    print("Each run cuts the workload into 20 pairs of slices, in the order AB BA AB …, over one transport;")
    print("its ratio is the median of the pairs' ratios of requests per second. The column gives the median")
    print("of the runs' ratios, with their range over the rounds in brackets.")
print()
print("Medians over the good runs; each ×C is the median over the C client's median, with the range of")
print("the per-round ratios in brackets: above 1 is better for req/s and MB/s, worse for latency, memory")
print("and CPU. MB/s counts response bodies (10^6 bytes); CPU is user + system time")
print("of the whole client process during the measured phase, divided by the requests. RSS growth is the")
print("peak less the peak when main began, before the client existed: it leaves out the runtime and the")
print("libraries loaded, which for transport-benchmark include FoundationNetworking whichever client runs.")
print("Connections are those nginx accepted during the run, warm-up included (the range over the rounds).")
