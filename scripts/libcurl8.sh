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
    apt_dir="$root/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main" \
        >"$apt_dir/sources.list"
    apt_options=(
        -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
        -o Debug::NoLocking=1 -o APT::Sandbox::User=root
    )
    apt-get "${apt_options[@]}" -q update >&2
    (cd "$apt_dir" && apt-get "${apt_options[@]}" -q download libcurl4/bookworm-backports >&2)
    dpkg-deb -x "$apt_dir"/libcurl4_*.deb "$root"
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
