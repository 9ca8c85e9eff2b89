// SPDX-License-Identifier: Apache-2.0
// The host of a precompiled header the Qt Test suites share
// (tests/CMakeLists.txt); it has no code of its own.
