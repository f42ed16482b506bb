#!/usr/bin/env bash
# Fetches libcurl 8 as Debian 12's bookworm-backports ships it (the libcurl of Debian 13) into
# .build-libcurl8/, without installing it, and prints the directory that holds libcurl.so.4.
#
#   LD_LIBRARY_PATH=$(scripts/libcurl8.sh) swift test --skip-build
#
# The library keeps libcurl's ABI (libcurl.so.4), so what was built against Debian 12's libcurl
# 7.88 runs on it unchanged: `make test-libcurl8` runs the tests that way. Downloaded once; delete
# .build-libcurl8/ to fetch the newest again.
set -euo pipefail
cd "$(dirname "$0")/.."

root="$PWD/.build-libcurl8"
lib="$root/usr/lib/x86_64-linux-gnu"
if [ ! -e "$lib/libcurl.so.4" ]; then
    scripts/debian-package.sh bookworm-backports libcurl4 "$root"
fi

version=$(python3 -c '
import ctypes, sys
curl = ctypes.CDLL(sys.argv[1] + "/libcurl.so.4")
curl.curl_version.restype = ctypes.c_char_p
print(curl.curl_version().decode())' "$lib")
case "$version" in
    *libcurl/8.*) ;;
    *)
        echo "libcurl8.sh: expected libcurl 8 in $lib, found: $version" >&2
        exit 1
        ;;
esac
echo "libcurl8.sh: $lib: $version" >&2
echo "$lib"
