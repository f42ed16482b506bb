#!/usr/bin/env bash
# Installs what building and testing Rebound needs on a Debian machine that already has Swift:
# libcurl's headers (libcurl4-openssl-dev); for the TLS tests nginx-light and openssl; for the
# export tests Prometheus and a Python virtual environment (.build-venv) with opentelemetry-proto.
# Safe to run again; it installs only what is missing.
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: Swift is not on PATH; install Swift 6.2 or later first (https://swift.org/install)." >&2
    exit 1
fi

missing=()
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# scripts/check-samples.py type-checks the documentation's Swift samples (make samples, make test).
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ "${1:-}" = "--tests" ]; then
    # The TLS tests start nginx with a certificate made by openssl (HTTP/2, https redirects).
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    # The export tests scrape with Prometheus itself (make test-otel).
    [ -x /usr/bin/prometheus ] || missing+=(prometheus)
fi

if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    # A policy-rc.d that says no keeps freshly installed nginx and Prometheus from starting as
    # system services; the tests start their own on loopback.
    made_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
        $sudo chmod +x /usr/sbin/policy-rc.d
        made_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    [ -z "$made_policy" ] || $sudo rm -f /usr/sbin/policy-rc.d
fi

if [ "${1:-}" = "--tests" ]; then
    # The export tests' OTLP receiver (scripts/otlp-receiver.py) decodes with the official protobuf
    # definitions, from PyPI, in a virtual environment of the repository's own.
    if ! .build-venv/bin/python -c "import opentelemetry.proto" >/dev/null 2>&1; then
        echo "setup: installing opentelemetry-proto in .build-venv"
        python3 -m venv .build-venv
        .build-venv/bin/pip install --quiet --disable-pip-version-check opentelemetry-proto==1.45.2
    fi
fi
