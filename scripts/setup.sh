#!/usr/bin/env bash
# Installs what building and testing Rebound needs on a Debian machine that already has Swift:
# libcurl's headers (libcurl4-openssl-dev), and for the TLS tests nginx-light and openssl.
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
fi

if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    # policy-rc.d keeps a freshly installed nginx from starting as a system service.
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
