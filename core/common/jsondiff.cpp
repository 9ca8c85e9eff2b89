// SPDX-License-Identifier: Apache-2.0
#include "jsondiff.h"

namespace holdpoint {

std::vector<ArgsChange> describeChanges(const Json &from, const Json &to)
{
    std::vector<ArgsChange> out;
    for (const Json &op : Json::diff(from, to)) {
        ArgsChange c;
        const std::string name = op.value("op", std::string());
        c.path = op.value("path", std::string());
        const Json::json_pointer ptr(c.path);
        if (name == "add") {
            c.kind = ArgsChange::Added;
            c.after = op.value("value", Json());
        } else if (name == "remove") {
            c.kind = ArgsChange::Removed;
            c.before = from.contains(ptr) ? from.at(ptr) : Json();
        } else {
            c.kind = ArgsChange::Changed;
            c.before = from.contains(ptr) ? from.at(ptr) : Json();
            c.after = op.value("value", Json());
        }
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace holdpoint
