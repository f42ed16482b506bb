#!/usr/bin/env bash
# Fetches one Debian package from another suite and unpacks it into a directory, without
# installing it: apt with a private sources list, lists and cache under DIR/apt.
#
#   scripts/debian-package.sh SUITE PACKAGE DIR
#
# scripts/libcurl8.sh takes libcurl 8 from bookworm-backports; scripts/instructions.sh takes
# valgrind from trixie.
set -euo pipefail

suite=$1
package=$2
root=$3
apt_dir="$root/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
    >"$apt_dir/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root
)
apt-get "${apt_options[@]}" -q update >&2
(cd "$apt_dir" && apt-get "${apt_options[@]}" -q download "$package/$suite" >&2)
dpkg-deb -x "$apt_dir/${package}"_*.deb "$root"
