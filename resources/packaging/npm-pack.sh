#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the holdpoint npm package's tarball: usage npm-pack.sh OUTDIR VERSION.
#
# Stages a copy of resources/integrations/js (package.json, README.md and the
# committed dist/) with the top-level LICENSE in a temporary directory, stamps
# VERSION into the copy's package.json (CMake's project version is the one
# source of the version), runs `npm pack` there into OUTDIR and prints the
# tarball's path. The source tree is only read, and nothing is fetched: the
# package has no build step and no pack scripts.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 OUTDIR VERSION" >&2
    exit 2
fi
outdir=$1
version=$2
# npm would take more than this (a leading v, build metadata); the project's
# version is plain MAJOR.MINOR.PATCH, optionally with a pre-release.
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
    echo "npm-pack.sh: '$version' is not a version like 1.2.3" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
package=$root/resources/integrations/js
for path in "$package/package.json" "$package/README.md" "$package/dist" "$root/LICENSE"; do
    [ -e "$path" ] || { echo "npm-pack.sh: $path is missing" >&2; exit 1; }
done
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

stage=$(mktemp -d "${TMPDIR:-/tmp}/holdpoint-npm-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp "$package/package.json" "$package/README.md" "$root/LICENSE" "$stage/"
cp -R "$package/dist" "$stage/dist"

cd "$stage"
npm pkg set "version=$version"
# --json: the tarball's name without npm's notices; --offline: packing a
# folder needs no registry, and must not wait for one.
tarball=$(npm pack --offline --json --pack-destination "$outdir" | node -e '
    let text = "";
    process.stdin.on("data", (d) => { text += d; });
    process.stdin.on("end", () => { process.stdout.write(JSON.parse(text)[0].filename); });')
echo "$outdir/$tarball"
