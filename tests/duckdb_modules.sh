#!/bin/sh
# duckdb_modules.sh DIR PACKAGE@VERSION: installs DuckDB's Node API from the npm registry into
# DIR/node_modules for the slow tier's consumer test (tests/cli/test_tidy_duckdb.sh, which reads
# GT_DUCKDB_MODULES). Debian packages no DuckDB, so npm is where it comes from; the version is
# pinned by the caller (Makefile: DUCKDB_NODE_API). Installed once per version. Without node, npm
# or the registry this says so in one line and succeeds, and the test skips and says why: the
# slow tier never fails for want of a network.
dir=$1 pkg=$2
[ -n "$dir" ] && [ -n "$pkg" ] || { echo "usage: duckdb_modules.sh DIR PACKAGE@VERSION" >&2; exit 2; }
stamp=$dir/installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkg" ] && [ -d "$dir/node_modules/@duckdb/node-api" ]; then
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "duckdb: npm is not installed: the DuckDB consumer test will skip"; exit 0; }
mkdir -p "$dir" || exit 1
rm -f "$stamp"
if npm install --no-audit --no-fund --no-save --prefix "$dir" "$pkg" >"$dir/npm.log" 2>&1; then
	echo "$pkg" >"$stamp"
	echo "duckdb: $pkg installed under $dir/node_modules"
else
	echo "duckdb: npm could not install $pkg (see $dir/npm.log): the DuckDB consumer test will skip"
fi
exit 0
