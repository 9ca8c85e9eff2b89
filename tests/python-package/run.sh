#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The Python adapter suite (tests/python) against the installed holdpoint
# wheel, not the source tree. Builds the sdist and wheel with
# resources/packaging/python-dist.sh and checks them (check_dist.py, and
# test_check_dist.py that the check can fail), as well as a wheel built from
# the sdist alone; installs the wheel offline into a virtual environment on
# Debian's python3 (--system-site-packages, for python3-websockets); and runs
# the suite there from an empty directory with no PYTHONPATH.
# tests/python/test_installed.py fails unless holdpoint comes from the venv at
# HOLDPOINT_VERSION.
#
# Needs HOLDPOINT_VERSION (CMake's project version), HOLDPOINT_BIN and
# HOLDPOINT_CTL_BIN, and Debian's python3, python3-websockets, python3-build,
# python3-setuptools, python3-wheel and python3-venv. Temporary files are
# removed on exit.
set -euo pipefail

: "${HOLDPOINT_VERSION:?set HOLDPOINT_VERSION to the CMake project version}"
: "${HOLDPOINT_BIN:?set HOLDPOINT_BIN to the built holdpoint}"
: "${HOLDPOINT_CTL_BIN:?set HOLDPOINT_CTL_BIN to the built holdpoint-ctl}"
python=/usr/bin/python3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/holdpoint-python-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# pip only ever installs the one wheel file: no index, no version check, no
# cache or configuration from this user's home.
unset PYTHONPATH PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
export PYTHONDONTWRITEBYTECODE=1

echo "== build $HOLDPOINT_VERSION"
PYTHON=$python "$root/resources/packaging/python-dist.sh" "$work/dist" "$HOLDPOINT_VERSION"

echo "== check the sdist and wheel"
"$python" "$here/check_dist.py" "$work/dist" "$HOLDPOINT_VERSION" "$root/resources/integrations/python"
HOLDPOINT_DIST=$work/dist "$python" "$here/test_check_dist.py"

echo "== install the wheel into a venv"
if ! "$python" -m venv --system-site-packages "$work/venv"; then
    echo "cannot create a venv with $python: install Debian's python3-venv" >&2
    exit 1
fi
venv_python=$work/venv/bin/python
"$work/venv/bin/pip" install --no-index --no-deps "$work/dist/holdpoint-$HOLDPOINT_VERSION-py3-none-any.whl"
"$work/venv/bin/pip" show holdpoint
# The sdist alone builds the same package.
"$work/venv/bin/pip" wheel --no-index --no-deps --no-build-isolation --wheel-dir "$work/from-sdist" \
    "$work/dist/holdpoint-$HOLDPOINT_VERSION.tar.gz"
cp "$work/dist/holdpoint-$HOLDPOINT_VERSION.tar.gz" "$work/from-sdist/"
"$python" "$here/check_dist.py" "$work/from-sdist" "$HOLDPOINT_VERSION" "$root/resources/integrations/python"
# --no-deps: websockets is Debian's, from the system site; it must satisfy the
# wheel's requirement.
"$venv_python" - <<'PY'
import importlib.metadata
import sys

from packaging.requirements import Requirement

for line in importlib.metadata.requires("holdpoint") or []:
    requirement = Requirement(line)
    if requirement.marker is not None:
        continue  # an extra's
    installed = importlib.metadata.version(requirement.name)
    if not requirement.specifier.contains(installed, prereleases=True):
        sys.exit(f"{requirement.name} {installed} does not satisfy holdpoint's {requirement}")
    print(f"{requirement.name} {installed} satisfies {requirement}")
PY

echo "== the Python adapter suite against the installed wheel"
mkdir "$work/cwd"
cd "$work/cwd"
HOLDPOINT_EXPECT_INSTALLED=1 "$venv_python" -W error::ResourceWarning -m unittest discover -v -s "$root/tests/python"
