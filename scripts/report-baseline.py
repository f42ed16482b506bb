#!/usr/bin/env python3
"""The plain Python baseline `scripts/benchmark-report.sh` runs beside `rebound report --json`.

Per line: `json.loads`, then a Counter of occurrences per chain and a set of sessions per chain
(drops reports aside). It checks only that a line is a JSON object with those keys, far less than
`rebound report` checks. Prints one JSON line: reports, invalid lines, chains, sessions, occurrences.

Usage: scripts/report-baseline.py FILE...
"""

import collections
import json
import sys


def main():
    occurrences = collections.Counter()
    sessions = collections.defaultdict(set)
    all_sessions = set()
    reports = 0
    invalid = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as file:
            for line in file:
                if not line.strip():
                    continue
                try:
                    report = json.loads(line)
                    chain, session, count = report["chain"], report["session"], int(report["occurrences"])
                except (ValueError, KeyError, TypeError):
                    invalid += 1
                    continue
                reports += 1
                all_sessions.add(session)
                if report.get("kind") == "drops":
                    continue
                occurrences[chain] += count
                sessions[chain].add(session)
    print(json.dumps({
        "reports": reports,
        "invalidLines": invalid,
        "chains": len(occurrences),
        "sessions": len(all_sessions),
        "occurrences": sum(occurrences.values()),
        "top": [[chain, count, len(sessions[chain])] for chain, count in occurrences.most_common(3)],
    }))


if __name__ == "__main__":
    main()
