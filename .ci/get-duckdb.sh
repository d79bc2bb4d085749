#!/bin/sh
# .ci/get-duckdb.sh [DIR]: libduckdb.so (linux-x64) for cutap export
# --format parquet and its tests, from the npm package
# @duckdb/node-bindings-linux-x64, pinned by version and sha256; into DIR
# (default .duckdb, ignored by git). Prints the library's path. npm's own
# cache is reused, so a second run downloads nothing.
set -eu
V=1.5.6-r.1
SHA=1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff
D=${1:-.duckdb}
mkdir -p "$D" && cd "$D"
T=duckdb-node-bindings-linux-x64-$V.tgz
if [ ! -f libduckdb.so ] || [ ! -f "$T" ]; then
    [ -f "$T" ] || npm pack --silent "@duckdb/node-bindings-linux-x64@$V" >/dev/null
    echo "$SHA  $T" | sha256sum -c - >/dev/null || { echo "get-duckdb: $T: sha256 mismatch" >&2; rm -f "$T"; exit 1; }
    tar xzf "$T" package/libduckdb.so && mv package/libduckdb.so . && rmdir package
fi
echo "$PWD/libduckdb.so"
