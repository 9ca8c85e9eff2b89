#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the holdpoint Python package (resources/integrations/python) into an
# sdist and a wheel in OUTDIR, offline:
#
#   resources/packaging/python-dist.sh OUTDIR VERSION
#
# VERSION is CMake's project version (the one source of the version). The
# package is copied into a temporary staging directory with the top-level
# LICENSE; VERSION is stamped into the staged pyproject.toml and a
# holdpoint/_version.py there, and python3 -m build --no-isolation builds from
# it, so the source tree is never written to. Needs Debian's python3-build,
# python3-setuptools and python3-wheel (no package index is used). PYTHON
# overrides the interpreter (default /usr/bin/python3, Debian's, which has
# those packages; the python3 first on PATH may be another build).
set -euo pipefail

if [[ $# -ne 2 || -z $1 || -z $2 ]]; then
    echo "usage: $0 OUTDIR VERSION" >&2
    exit 2
fi
outdir=$1
version=$2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
package=$root/resources/integrations/python
python=${PYTHON:-}
if [[ -z $python ]]; then
    if [[ -x /usr/bin/python3 ]]; then python=/usr/bin/python3; else python=python3; fi
fi

staging=$(mktemp -d "${TMPDIR:-/tmp}/holdpoint-python-dist.XXXXXX")
trap 'rm -rf "$staging"' EXIT

# Only what the package is made of: no __pycache__, build/ or *.egg-info a
# checkout may hold.
mkdir "$staging/holdpoint"
cp "$package/pyproject.toml" "$package/README.md" "$staging/"
cp "$package"/holdpoint/*.py "$staging/holdpoint/"
rm -f "$staging/holdpoint/_version.py"
cp "$root/LICENSE" "$staging/LICENSE"

# Stamp VERSION (refused unless PEP 440) over the one line `version = "..."`
# in [project], and into holdpoint/_version.py for holdpoint.__version__.
"$python" - "$staging" "$version" <<'PY'
import re
import sys
from pathlib import Path

from packaging.version import InvalidVersion, Version

staging, version = Path(sys.argv[1]), sys.argv[2]
try:
    Version(version)
except InvalidVersion:
    sys.exit(f"python-dist.sh: {version!r} is not a PEP 440 version")
pyproject = staging / "pyproject.toml"
text, count = re.subn(r'^version = "[^"\n]*"$', f'version = "{version}"', pyproject.read_text(), flags=re.M)
if count != 1:
    sys.exit(f"python-dist.sh: expected one version line in pyproject.toml, found {count}")
pyproject.write_text(text)
(staging / "holdpoint" / "_version.py").write_text(
    "# SPDX-License-Identifier: Apache-2.0\n"
    "# Written by resources/packaging/python-dist.sh from CMake's project version.\n"
    f'__version__ = "{version}"\n')
PY

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
# No package index is reachable or wanted: --no-isolation builds with the
# installed setuptools and wheel, and fails if they are missing.
(cd "$staging" && "$python" -m build --no-isolation --sdist --wheel --outdir "$outdir" .)
