// SPDX-License-Identifier: Apache-2.0
#pragma once

// QCOMPARE for Json values: prints both documents on a mismatch. qfloat16
// must be complete before QTest's overload set meets a Json argument.

#include "common/json.h"

#include <QTest>
#include <QtCore/qfloat16.h>

namespace QTest {

inline bool qCompare(const holdpoint::Json &actual, const holdpoint::Json &expected,
    const char *actualExpr, const char *expectedExpr, const char *file, int line)
{
    const std::string a = holdpoint::dumpJson(actual);
    const std::string e = holdpoint::dumpJson(expected);
    return compare_helper(
        actual == expected, "Compared JSON values are not the same",
        [&] { return qstrdup(a.c_str()); }, [&] { return qstrdup(e.c_str()); }, actualExpr,
        expectedExpr, file, line);
}

} // namespace QTest
