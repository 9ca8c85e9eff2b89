// SPDX-License-Identifier: Apache-2.0
#pragma once

// The broker over a recording Outbound and a manual clock: what the engine
// tests drive (tests/engine/tst_*.cpp).

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "engine/broker.h"
#include "guardrails/chain.h"
#include "queue/reviewqueue.h"

#include <QSignalSpy>
#include <QTest>

#include <map>

namespace holdpoint::test {

using namespace holdpoint::protocol;

class Recorder final : public Outbound
{
public:
    void send(ConnectionId c, const std::string &text) override
    {
        sent[c].push_back(Json::parse(text));
        raw[c].push_back(text);
    }
    void close(ConnectionId c, CloseCode code, const std::string &) override { closed[c] = code; }

    std::vector<Json> ofType(ConnectionId c, const std::string &type) const
    {
        std::vector<Json> out;
        if (auto it = sent.find(c); it != sent.end())
            for (const auto &j : it->second)
                if (j.value("type", std::string()) == type)
                    out.push_back(j);
        return out;
    }
    Json last(ConnectionId c, const std::string &type) const
    {
        auto all = ofType(c, type);
        return all.empty() ? Json() : all.back();
    }

    std::map<ConnectionId, std::vector<Json>> sent;
    std::map<ConnectionId, std::vector<std::string>> raw;
    std::map<ConnectionId, CloseCode> closed;
};

struct Fixture
{
    explicit Fixture(BrokerConfig config = {})
        : broker(&queue, &clock, &out, withDefaults(std::move(config)))
    { }
    static BrokerConfig withDefaults(BrokerConfig c)
    {
        c.reviewerName = "alice";
        c.serverName = "holdpoint/test";
        return c;
    }

    ConnectionId agent(const std::optional<std::string> &session = std::nullopt,
        const std::string &name = "coder", Capabilities capabilities = {})
    {
        const ConnectionId cid = next++;
        Hello h;
        h.token = "x";
        h.agent = { name, "autogen", capabilities };
        h.sessionId = session;
        broker.onHello(cid, h);
        return cid;
    }
    ConnectionId reviewer()
    {
        const ConnectionId cid = next++;
        Hello h;
        h.token = "x";
        h.role = Role::Reviewer;
        broker.onHello(cid, h);
        return cid;
    }
    void call(ConnectionId cid, const std::string &callId,
        const Json &args = { { "path", "a.txt" } }, const std::string &tool = "write_file",
        std::optional<double> timeoutS = std::nullopt,
        std::optional<std::string> turn = std::nullopt)
    {
        ToolCall c;
        c.callId = callId;
        c.toolName = tool;
        c.args = args;
        c.timeoutS = timeoutS;
        c.turnId = std::move(turn);
        broker.onMessage(cid, Message(std::move(c)));
    }
    std::string itemOf(const std::string &callId) const
    {
        for (int r = 0; r < queue.size(); ++r)
            if (queue.at(r).callId == callId)
                return queue.at(r).id;
        return {};
    }
    ReviewOutcome review(const std::string &id, ReviewAction action, const std::string &reason = {},
        std::optional<Json> args = std::nullopt)
    {
        Review r;
        r.id = id;
        r.action = action;
        r.reason = reason;
        r.args = std::move(args);
        return broker.review(r, broker.consoleReviewer());
    }
    std::string sessionOf(ConnectionId cid) const
    {
        return out.last(cid, "welcome").value("session_id", std::string());
    }

    ManualClock clock { 1'000'000 };
    ReviewQueue queue { &clock };
    Recorder out;
    Broker broker;
    ConnectionId next = 1;
};

// Warns after a failed call, and records the turn markers it sees.
class AfterWatcher final : public Guardrail
{
public:
    std::string_view name() const override { return "watcher"; }
    Verdict beforeCall(const CallView &, const GuardContext &) override { return Verdict::pass(); }
    Verdict afterCall(const CallView &call, const ResultView &result, const GuardContext &) override
    {
        ++afterCalls;
        lastArgs = call.args;
        return result.ok ? Verdict::pass()
                         : Verdict::make(Action::Warn, "failed", call.toolName + " failed");
    }
    void onTurnStart(const std::string &session, const std::string &turn) override
    {
        turns.push_back("start " + session + " " + turn);
    }
    void onTurnEnd(const std::string &session, const std::string &turn) override
    {
        turns.push_back("end " + session + " " + turn);
    }
    int afterCalls = 0;
    Json lastArgs;
    std::vector<std::string> turns;
};

} // namespace holdpoint::test
