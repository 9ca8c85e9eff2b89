// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/json.h"

#include <string>
#include <vector>

namespace holdpoint {

// One difference between two argument objects, as a person reads it.
struct ArgsChange
{
    enum Kind
    {
        Added,
        Removed,
        Changed
    } kind
        = Changed;
    std::string path; // JSON pointer, e.g. /timeout or /edits/0/path
    Json before; // Removed, Changed
    Json after; // Added, Changed
};

// What turns `from` into `to`, path by path (RFC 6902 operations, each
// with the value it replaces).
std::vector<ArgsChange> describeChanges(const Json &from, const Json &to);

} // namespace holdpoint
