#!/usr/bin/env python3
"""A seeded, deterministic corpus of non-fatal reports, in the format JSONLinesReportSink writes.

Usage:
  scripts/generate-report-corpus.py --reports 500000 --sessions 5000 --chains 300 \
      --builds 6 --hosts 20 --torn 100 --seed 1 -o corpus.jsonl

What it writes, exactly:
  - `--reports` valid reports (one per line, keys sorted, as `NonFatalReport.jsonLine()` makes
    them), from `--sessions` sessions. Every session reports at least one chain, so the corpus
    has exactly that many sessions.
  - Chains are drawn from a pool of `--chains` (chain i is the same in every corpus, whatever the
    seed, so two corpora can be compared as current and baseline); every chain of the pool is
    reported at least once when there are enough reports, so the corpus has
    min(--chains, reports) of them, plus RP1 when a session sends a drops report.
  - Each session has one build (of `--builds`, versions from `--first-version` on) and one host (of
    `--hosts`; with `--hosts 0` reports have no `host` field, as files written before it existed).
  - Within a session, a chain's first report is an `occurrence`, later ones `repeats` (at most five
    reports per chain and fifty chains per session, the reporter's default caps); about one
    session in twenty ends with a `drops` report.
  - `--torn` further lines are a report cut short (as a crash leaves one, sealed by a newline),
    spread through the file; they are not reports.
  - Sessions follow each other in time; their reports are contiguous and in order.
  - With `--files N` (N > 1), `--output` is a directory of N files, reports-01.jsonl and on: a
    host's sessions all go to one file (host i to file i mod N), as each machine writes its own.

The same arguments always give the same bytes.
"""

import argparse
import itertools
import json
import os
import random
import sys
import uuid

DOMAINS = [
    ("UserError", "US", ["connectionIssue", "sessionExpired", "notAllowed", "unknown"]),
    ("LogicError", "LO", ["loginFailed", "loadTasksFailed", "saveFailed", "syncFailed"]),
    ("APIError", "AP", ["getTokenFailed", "listTasksFailed", "uploadFailed", "searchFailed"]),
    ("NetworkError", "NE", ["timeout", "cannotConnect", "connectionLost", "dnsFailed"]),
    ("HTTPError", "HT", ["serviceUnavailable", "badGateway", "tooManyRequests", "notFound"]),
    ("JSONError", "JS", ["invalidPayload", "missingField", "typeMismatch", "truncated"]),
    ("DecodingError", "DE", ["keyNotFound", "valueNotFound", "typeMismatch", "dataCorrupted"]),
    ("TaskError", "TA", ["conflict", "gone", "invalidState", "quotaExceeded"]),
]
REASONS = ["The server answered 503.", None, None, "Timed out after 30 s.", None, None, None]
SCREENS = ["login", "tasks", "settings", "upload", "search", "profile"]


def chain_links(index):
    """The links of chain `index`: the same for every seed."""
    rng = random.Random(1_000_003 * (index + 1))
    links = []
    seen = set()
    # 2 links, 3 for every fourth chain; the root's code is the index, so that every index gives a
    # distinct short chain.
    count = 3 if index % 4 == 0 else 2
    for position in range(count):
        domain, short, names = DOMAINS[rng.randrange(len(DOMAINS))]
        if position == count - 1:
            code = 100 + index  # the root's code makes the chain unique
        else:
            code = rng.randrange(1, 60)
        while (short, code) in seen:
            code += 1
        seen.add((short, code))
        link = {
            "code": code,
            "codeName": names[code % len(names)],
            "context": [],
            "domain": domain,
            "shortName": short,
        }
        reason = REASONS[(index + position) % len(REASONS)]
        if reason is not None:
            link["reason"] = reason
        links.append(link)
    return links


def drops_links():
    return [{
        "code": 1,
        "codeName": "reportsDropped",
        "context": [],
        "domain": "ReportingError",
        "reason": "The non-fatal reporter dropped occurrences or its sinks failed.",
        "shortName": "RP",
    }]


def short(links):
    return "-".join(f"{link['shortName']}{link['code']}" for link in links)


def full(links):
    return " - ".join(f"{link['domain']}.{link['codeName']}" for link in links)


def iso(milliseconds):
    seconds, millis = divmod(milliseconds, 1000)
    days, rest = divmod(seconds, 86400)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    # Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year += month <= 2
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


def make_report(build, session, host, sequence, clock, *, kind, chain, full_chain, links, context, file,
                function, line, occurrences):
    """One report as NonFatalReport encodes it; without `host` when there is none."""
    report = {
        "build": build,
        "chain": chain,
        "context": context,
        "error": {"isTruncated": False, "links": links},
        "file": file,
        "fullChain": full_chain,
        "function": function,
        "kind": kind,
        "line": line,
        "occurrences": occurrences,
        "sequence": sequence,
        "session": session,
        "time": iso(clock),
    }
    if host is not None:
        report["host"] = host
    return report


def line(report):
    return json.dumps(report, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def session_quotas(reports, sessions):
    base, extra = divmod(reports, sessions)
    return [base + (1 if i < extra else 0) for i in range(sessions)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reports", type=int, default=500_000)
    parser.add_argument("--sessions", type=int, default=5_000)
    parser.add_argument("--chains", type=int, default=300)
    parser.add_argument("--builds", type=int, default=6)
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--torn", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first-version", type=int, default=0,
                        help="the first build is 2.<first-version>.0")
    parser.add_argument("--start", type=int, default=1_740_787_200_000,
                        help="the first session's start, in milliseconds since 1970 (2025-03-01)")
    parser.add_argument("--files", type=int, default=1,
                        help="how many files: with more than one, --output is a directory that gets "
                        "reports-01.jsonl and so on, each host's sessions in one file (each session's, "
                        "without hosts)")
    parser.add_argument("-o", "--output", default="-")
    arguments = parser.parse_args()
    if arguments.sessions < 1 or arguments.reports < arguments.sessions:
        parser.error("need at least one session and a report per session")
    if arguments.files < 1 or (arguments.files > 1 and arguments.output == "-"):
        parser.error("--files must be at least 1, and more than one needs a directory as --output")
    if arguments.chains < 1 or arguments.builds < 1 or arguments.hosts < 0 or arguments.torn < 0:
        parser.error("need at least one chain and one build, and no negative counts")

    rng = random.Random(arguments.seed)
    pool = [chain_links(i) for i in range(arguments.chains)]
    encoded_chains = [(short(links), full(links), links) for links in pool]
    # Popularity: a few chains are common, most are rare (Zipf-like weights).
    weights = [1.0 / (rank + 1) ** 0.9 for rank in range(arguments.chains)]
    rng.shuffle(weights)
    builds = [
        {"revision": f"{rng.getrandbits(28):07x}", "version": f"2.{arguments.first_version + i}.0"}
        for i in range(arguments.builds)
    ]
    hosts = [f"host-{i + 1:02d}.fleet" for i in range(arguments.hosts)]

    quotas = session_quotas(arguments.reports, arguments.sessions)
    total_lines = arguments.reports + arguments.torn
    torn_lines = set(rng.sample(range(total_lines), arguments.torn)) if arguments.torn else set()
    # Chains not yet reported: handed out first, so that every chain of the pool appears.
    unreported = list(range(arguments.chains))
    rng.shuffle(unreported)

    population = range(arguments.chains)
    cumulative = list(itertools.accumulate(weights))

    def pick(counts):
        """The chain of a session's next report, within the reporter's caps where possible."""
        open_chains = [c for c, n in counts.items() if n < 5]
        can_add = len(counts) < 50
        if can_add and unreported and unreported[-1] not in counts:
            return unreported.pop()
        if can_add and (not open_chains or rng.random() < 0.3):
            for _ in range(20):
                chosen = rng.choices(population, cum_weights=cumulative)[0]
                if chosen not in counts:
                    return chosen
        if open_chains:
            return rng.choice(open_chains)
        # A small pool used up within the session: more repeats than a reporter would send.
        return rng.choice(list(counts))

    if arguments.files == 1:
        outputs = [sys.stdout if arguments.output == "-" else open(arguments.output, "w", encoding="utf-8")]
    else:
        os.makedirs(arguments.output, exist_ok=True)
        outputs = [
            open(os.path.join(arguments.output, f"reports-{i + 1:02d}.jsonl"), "w", encoding="utf-8")
            for i in range(arguments.files)
        ]
    output = outputs[0]
    written = 0
    clock = arguments.start

    def emit(text):
        nonlocal written
        while written in torn_lines:
            cut = rng.randrange(1, len(text) - 1)
            output.write(text[:cut] + "\n")
            written += 1
        output.write(text + "\n")
        written += 1

    for index, quota in enumerate(quotas):
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
        # Builds follow each other in time: later sessions run later builds.
        build = builds[min(arguments.builds - 1, index * arguments.builds // arguments.sessions)]
        host_index = rng.randrange(len(hosts)) if hosts else index
        host = hosts[host_index] if hosts else None
        output = outputs[host_index % arguments.files]
        clock += rng.randrange(1_000, 60_000)
        sequence = 0
        counts = {}  # chain index -> reports made in this session
        with_drops = quota > 1 and rng.random() < 0.05
        remaining = quota - (1 if with_drops else 0)
        for _ in range(remaining):
            chosen = pick(counts)
            first = chosen not in counts
            counts[chosen] = counts.get(chosen, 0) + 1
            sequence += 1
            clock += rng.randrange(10, 5_000)
            short_chain, full_chain, links = encoded_chains[chosen]
            report = make_report(
                build, session, host, sequence, clock,
                kind="occurrence" if first else "repeats",
                chain=short_chain,
                full_chain=full_chain,
                links=links,
                context=[
                    {"isSensitive": False, "key": "screen", "value": SCREENS[chosen % len(SCREENS)]},
                    {"isSensitive": True, "key": "userEmail", "value": "<redacted>"},
                ] if first else [],
                file=f"App/{links[0]['domain']}Model.swift",
                function="load()",
                line=20 + chosen % 200,
                occurrences=1 if first else rng.randrange(1, 20),
            )
            emit(line(report))
        if with_drops:
            sequence += 1
            clock += rng.randrange(10, 5_000)
            report = make_report(
                build, session, host, sequence, clock,
                kind="drops",
                chain="RP1",
                full_chain="ReportingError.reportsDropped",
                links=drops_links(),
                context=[{"isSensitive": False, "key": "recorded", "value": str(quota * 3)}],
                file="Rebound/NonFatalReporter.swift",
                function="flush()",
                line=0,
                occurrences=rng.randrange(1, 10),
            )
            emit(line(report))
    while written in torn_lines:
        # Torn lines after the last report: cut from the last one.
        output.write(line(report)[: rng.randrange(1, 40)] + "\n")
        written += 1
    for each in outputs:
        if each is not sys.stdout:
            each.close()


if __name__ == "__main__":
    main()
