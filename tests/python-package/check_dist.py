#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the holdpoint sdist and wheel that python-dist.sh built.

    check_dist.py DISTDIR VERSION PACKAGE_SOURCE_DIR

The wheel's METADATA has VERSION, the license, the autogen and crewai extras
and websockets as a dependency; the wheel holds the LICENSE and the holdpoint
package (every module of the source tree, and _version.py saying VERSION)
and nothing else: no tests. The sdist has pyproject.toml and the LICENSE.
Prints each problem and exits 1 if there is any.
"""

import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path


def check_wheel(wheel: Path, version: str, modules: set, problems: list) -> None:
    dist_info = f"holdpoint-{version}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata_name = f"{dist_info}/METADATA"
        if metadata_name not in names:
            problems.append(f"{wheel.name}: no {metadata_name} (among {sorted(names)})")
            return
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
        version_file = archive.read("holdpoint/_version.py").decode() if "holdpoint/_version.py" in names else ""
    if metadata["Name"] != "holdpoint":
        problems.append(f"METADATA Name is {metadata['Name']!r}, not 'holdpoint'")
    if metadata["Version"] != version:
        problems.append(f"METADATA Version is {metadata['Version']!r}, not {version!r}")
    if metadata["License"] != "Apache-2.0":
        problems.append(f"METADATA License is {metadata['License']!r}, not 'Apache-2.0'")
    if "License :: OSI Approved :: Apache Software License" not in metadata.get_all("Classifier", []):
        problems.append("METADATA has no Apache license classifier")
    extras = set(metadata.get_all("Provides-Extra", []))
    for extra in ("autogen", "crewai"):
        if extra not in extras:
            problems.append(f"METADATA does not provide the extra {extra!r} (it has {sorted(extras)})")
    requires = metadata.get_all("Requires-Dist", [])
    if not any(r.split(";")[0].strip().startswith("websockets") and ";" not in r for r in requires):
        problems.append(f"METADATA does not require websockets (Requires-Dist: {requires})")
    if f'__version__ = "{version}"' not in version_file:
        problems.append(f"holdpoint/_version.py does not say {version!r}: {version_file!r}")

    if f"{dist_info}/LICENSE" not in names:
        problems.append(f"the wheel has no {dist_info}/LICENSE")
    expected = {f"holdpoint/{m}" for m in modules | {"_version.py"}}
    package = {n for n in names if not n.startswith(f"{dist_info}/")}
    if package != expected:
        problems.append(f"the wheel holds {sorted(package - expected)} it should not, "
                        f"and lacks {sorted(expected - package)}")


def check_sdist(sdist: Path, version: str, problems: list) -> None:
    top = f"holdpoint-{version}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        license_member = archive.extractfile(f"{top}/LICENSE") if f"{top}/LICENSE" in names else None
        license_text = license_member.read().decode() if license_member else ""
    for needed in ("pyproject.toml", "LICENSE", "PKG-INFO", "holdpoint/__init__.py", "holdpoint/_version.py"):
        if f"{top}/{needed}" not in names:
            problems.append(f"the sdist has no {top}/{needed}")
    if license_text and "Apache License" not in license_text:
        problems.append("the sdist's LICENSE is not the Apache License")
    if any("/tests/" in n or n.endswith("/tests") for n in names):
        problems.append("the sdist holds tests")


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    distdir, version, source = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    modules = {p.name for p in (source / "holdpoint").glob("*.py")} - {"_version.py"}
    problems = []
    wheels = sorted(distdir.glob("*.whl"))
    sdists = sorted(distdir.glob("*.tar.gz"))
    if [w.name for w in wheels] != [f"holdpoint-{version}-py3-none-any.whl"]:
        problems.append(f"expected one holdpoint-{version}-py3-none-any.whl in {distdir}, found {[w.name for w in wheels]}")
    elif not modules:
        problems.append(f"no modules in {source / 'holdpoint'}")
    else:
        check_wheel(wheels[0], version, modules, problems)
    if [s.name for s in sdists] != [f"holdpoint-{version}.tar.gz"]:
        problems.append(f"expected one holdpoint-{version}.tar.gz in {distdir}, found {[s.name for s in sdists]}")
    else:
        check_sdist(sdists[0], version, problems)
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
