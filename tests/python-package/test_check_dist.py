# SPDX-License-Identifier: Apache-2.0
"""check_dist.py can fail: it passes the sdist and wheel python-dist.sh built
(HOLDPOINT_DIST, at HOLDPOINT_VERSION) and refuses copies of that wheel with
one thing wrong each. Run by run.sh after the build."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent / "resources" / "integrations" / "python"
DIST = Path(os.environ["HOLDPOINT_DIST"])
VERSION = os.environ["HOLDPOINT_VERSION"]
WHEEL = f"holdpoint-{VERSION}-py3-none-any.whl"
METADATA = f"holdpoint-{VERSION}.dist-info/METADATA"


def check(distdir: Path, version: str = VERSION) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "check_dist.py"), str(distdir), version, str(SOURCE)],
                          capture_output=True, text=True)


class CheckDist(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)
        shutil.copy(DIST / f"holdpoint-{VERSION}.tar.gz", self.dir)

    def doctored(self, change) -> Path:
        """A copy of the built wheel, each member passed through change(name, data),
        which returns None to drop it."""
        with zipfile.ZipFile(DIST / WHEEL) as source, zipfile.ZipFile(self.dir / WHEEL, "w") as target:
            for name in source.namelist():
                kept = change(name, source.read(name))
                if kept is not None:
                    target.writestr(name, kept)
        return self.dir

    def refused(self, distdir: Path, needle: str, version: str = VERSION):
        result = check(distdir, version)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(needle, result.stderr)

    def test_passes_the_built_dist(self):
        result = check(DIST)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_refuses_another_version(self):
        self.refused(DIST, "expected one holdpoint-", version=VERSION + ".1")

    def test_refuses_metadata_with_another_version(self):
        self.refused(self.doctored(lambda n, d: d.replace(f"Version: {VERSION}\n".encode(), b"Version: 0.0.1\n", 1)
                                   if n == METADATA else d), "METADATA Version is '0.0.1'")

    def test_refuses_a_missing_extra(self):
        self.refused(self.doctored(lambda n, d: d.replace(b"Provides-Extra: crewai\n", b"") if n == METADATA else d),
                     "extra 'crewai'")

    def test_refuses_a_missing_license(self):
        self.refused(self.doctored(lambda n, d: None if n.endswith(".dist-info/LICENSE") else d), "no holdpoint-")

    def test_refuses_tests_in_the_wheel(self):
        self.doctored(lambda n, d: d)
        with zipfile.ZipFile(self.dir / WHEEL, "a") as wheel:
            wheel.writestr("tests/test_adapters.py", "")
        self.refused(self.dir, "'tests/test_adapters.py'")

    def test_refuses_a_missing_module(self):
        self.refused(self.doctored(lambda n, d: None if n == "holdpoint/client.py" else d), "'holdpoint/client.py'")


if __name__ == "__main__":
    unittest.main()
