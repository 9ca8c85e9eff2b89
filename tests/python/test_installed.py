# SPDX-License-Identifier: Apache-2.0
"""Which holdpoint the suite tests.

With HOLDPOINT_EXPECT_INSTALLED=1 (tests/python-package/run.sh sets it) the
suite must be testing the wheel installed in this virtual environment, at
HOLDPOINT_VERSION, and not the source tree: a stray PYTHONPATH or working
directory would otherwise test the checkout and pass whatever the wheel holds.
"""

import importlib.metadata
import os
import sys
import unittest
from pathlib import Path

import holdpoint


@unittest.skipUnless(os.environ.get("HOLDPOINT_EXPECT_INSTALLED") == "1",
                     "HOLDPOINT_EXPECT_INSTALLED=1 is not set: testing whichever holdpoint is importable")
class InstalledPackage(unittest.TestCase):
    def test_imported_from_the_virtual_environment(self):
        self.assertNotEqual(sys.prefix, sys.base_prefix, "not running in a virtual environment")
        prefix = Path(sys.prefix).resolve()
        location = Path(holdpoint.__file__).resolve()
        self.assertTrue(location.is_relative_to(prefix), f"holdpoint comes from {location}, not from under {prefix}")
        self.assertIn("site-packages", location.parts)

    def test_version_is_the_project_version(self):
        expected = os.environ["HOLDPOINT_VERSION"]
        self.assertEqual(importlib.metadata.version("holdpoint"), expected)
        self.assertEqual(holdpoint.__version__, expected)
        distribution = importlib.metadata.distribution("holdpoint")
        self.assertEqual(Path(distribution.locate_file("holdpoint/__init__.py")).resolve(),
                         Path(holdpoint.__file__).resolve())


if __name__ == "__main__":
    unittest.main()
