// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wire/json.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace holdpoint {

// Parses one JSON text, refusing what would silently change on the way
// through the console:
//  - a key twice in one object (which value counts would be a guess);
//  - an integer that does not fit in 64 bits (it would come back rounded);
//  - a number out of double's range (it would come back as null);
//  - nesting deeper than `maxDepth`.
// On failure returns false and says what and where, e.g.
// `args.id: integer 123456789012345678901234 does not fit in 64 bits; send it as a string`.
// The parser is nlohmann's, which does not recurse.
bool parseStrictJson(std::string_view text, std::size_t maxDepth, Json *out, std::string *error);

} // namespace holdpoint
