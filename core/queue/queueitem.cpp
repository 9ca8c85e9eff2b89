// SPDX-License-Identifier: Apache-2.0
#include "queueitem.h"
#include "approvals.h"

#include "common/mixedscript.h"
#include "common/visibletext.h"

namespace holdpoint {

std::string_view itemStateName(ItemState state)
{
    switch (state) {
    case ItemState::Pending:
        return "pending";
    case ItemState::Decided:
        return "decided";
    case ItemState::TimedOut:
        return "timed_out";
    case ItemState::Cancelled:
        return "cancelled";
    case ItemState::Abandoned:
        return "abandoned";
    }
    return "pending";
}

unsigned hiddenTextOf(const QueueItem &item)
{
    unsigned flags = hiddenTextOf(std::string_view(item.toolName)) | hiddenTextOfJson(item.args)
        | hiddenTextOfJson(item.context) | hiddenTextOf(std::string_view(item.agent.name))
        | hiddenTextOf(std::string_view(item.agent.framework)) | hiddenTextOfJson(item.annotations);
    if (item.proposedArgs)
        flags |= hiddenTextOfJson(*item.proposedArgs);
    return flags;
}

Json itemToJson(const QueueItem &item)
{
    Json agent { { "name", item.agent.name } };
    if (!item.agent.framework.empty())
        agent["framework"] = item.agent.framework;
    if (!item.agent.user.empty())
        agent["user"] = item.agent.user;
    if (!item.agent.capabilities.all())
        agent["capabilities"] = protocol::capabilitiesToJson(item.agent.capabilities);
    Json j { { "id", item.id }, { "call_id", item.callId }, { "session_id", item.sessionId },
        { "agent", std::move(agent) }, { "tool_name", item.toolName }, { "args", item.args },
        { "context", item.context }, { "annotations", item.annotations }, { "reason", item.reason },
        { "trail", item.trail }, { "warnings", protocol::warningsToJson(item.warnings) },
        { "turn_findings", protocol::turnFindingsToJson(item.turnFindings) },
        { "received_at", formatTimestamp(item.receivedAt) },
        { "deadline", formatTimestamp(item.deadline) }, { "state", itemStateName(item.state) },
        { "agent_connected", item.agentConnected } };
    if (item.turnId)
        j["turn_id"] = *item.turnId;
    putApprovalFields(j, item);
    if (item.team) {
        Json team { { "host", item.team->host }, { "gateway", item.team->gateway },
            { "online", item.team->online } };
        if (!item.team->editingBy.empty())
            team["being_edited_by"] = item.team->editingBy;
        j["team"] = std::move(team);
    }
    if (item.proposedArgs) {
        j["proposed_args"] = *item.proposedArgs;
        j["patch"] = item.patch;
    }
    if (!item.redactions.empty()) {
        Json kinds = Json::array();
        for (const auto &r : item.redactions)
            kinds.push_back({ { "placeholder", r.placeholder }, { "kind", r.kind } });
        j = maskJson(j, item.redactions);
        j["redacted"] = std::move(kinds);
    }
    // What a person cannot see or would misread (common/visibletext.h):
    // every surface warns of it and shows such characters escaped. The
    // fields themselves stay exactly the agent's.
    const unsigned hidden = hiddenTextOf(item);
    if (hidden != 0)
        j["hidden_characters"] = hiddenTextJson(hidden);
    // The names that mix scripts and their look-alike letters, so the page
    // (which has no ICU) marks what the console marks. Read from the fields
    // as sent, secrets already masked: a masked value lends no name.
    if (hidden & HiddenMixedScript) {
        Json names = Json::array();
        for (const char *field :
            { "tool_name", "args", "context", "annotations", "proposed_args" }) {
            if (const auto it = j.find(field); it != j.end())
                addMixedScriptJson(names, *it);
        }
        addMixedScriptJson(names, j["agent"]);
        if (!names.empty())
            j["mixed_script"] = std::move(names);
    }
    return j;
}

} // namespace holdpoint
