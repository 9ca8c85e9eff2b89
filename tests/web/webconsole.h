// SPDX-License-Identifier: Apache-2.0
#pragma once

// A real console with the reviewer page on loopback, a real agent to submit
// calls, and paired devices: what the web suites test against.

#include "engine/consolecore.h"
#include "policy/policy.h"
#include "web/webclient.h"
#include "web/webserver.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace holdpoint::test {

inline constexpr TimeMs Start = 1'800'000'000'000;

struct WebConsole
{
    explicit WebConsole(WebConfig config = {})
        : clock(Start)
    {
        ConsoleOptions o;
        o.dataDir = dir.path() + QStringLiteral("/data");
        o.broker.reviewerName = "owner";
        policyFile = dir.path() + QStringLiteral("/policy.json");
        QFile f(policyFile);
        if (f.open(QIODevice::WriteOnly))
            f.write(R"({"default": "ask"})");
        f.close();
        o.policy = *loadPolicyFiles({ policyFile }).policy;
        o.policyFiles = { policyFile };
        core = std::make_unique<ConsoleCore>(o, &clock);
        QString error;
        started = core->start(&error);
        config.sessionsFile = o.dataDir + QStringLiteral("/web-sessions.json");
        web = std::make_unique<WebServer>(core.get(), config);
        started = started && web->start(&error);
        if (!started)
            qWarning("%s", qPrintable(error));
        origin = web->origin().toUtf8();
    }
    quint16 port() const { return web->port(); }

    using Device = holdpoint::test::Device;
    HttpReply redeem(const std::string &code, const QByteArray &from = {})
    {
        return http(port(), "POST", "/api/pair",
            QByteArray::fromStdString(dumpJson({ { "code", code } })),
            { { "Origin", from.isEmpty() ? origin : from } });
    }
    // Paired without the HTTP round trip (tested on its own), so fixtures
    // do not spend the pairing rate limit.
    Device pairDevice(const std::string &reviewer = "owner")
    {
        PairingRefusal refusal;
        const auto redeemed = web->sessions()->redeem(
            web->sessions()->pair(reviewer, "test").code, "test", &refusal);
        Device d;
        d.cookie = "__Host-holdpoint=" + (redeemed ? redeemed->token : QByteArray());
        d.key = redeemed ? redeemed->deviceKey : QByteArray();
        const HttpReply me = http(port(), "GET", "/api/me", {}, d.headers());
        d.csrf = QByteArray::fromStdString(me.json().value("csrf", std::string()));
        return d;
    }
    HttpReply post(
        const Device &d, const QByteArray &path, const Json &body, const QByteArray &from = {})
    {
        return http(port(), "POST", path, QByteArray::fromStdString(dumpJson(body)),
            d.headers(
                { { "Origin", from.isEmpty() ? origin : from }, { "X-CSRF-Token", d.csrf } }));
    }
    // The agent submits a call that waits for a person; returns its item.
    Json submit(const std::string &callId, const Json &args = { { "path", "/tmp/x" } })
    {
        if (!agent) {
            agent = std::make_unique<TestSocket>();
            agent->hello(QUrl(core->url()), core->agentToken().toStdString());
        }
        const int before = core->queue()->size();
        agent->send({ { "type", "tool_call" }, { "call_id", callId }, { "tool_name", "write_file" },
            { "args", args } });
        if (!QTest::qWaitFor([&] { return core->queue()->size() == before + 1; }, WaitMs))
            return {};
        if (reader.cookie.isEmpty())
            reader = pairDevice();
        const HttpReply items = http(port(), "GET", "/api/items", {}, reader.headers());
        const Json listed = items.json();
        for (const Json &item : listed["items"])
            if (item["call_id"] == callId)
                return item;
        return {};
    }
    Json review(const Device &d, const Json &item, Json body)
    {
        body["version"] = item["version"];
        return post(d,
            "/api/items/" + QByteArray::fromStdString(item["id"].get<std::string>()) + "/review",
            body)
            .json();
    }

    QTemporaryDir dir;
    ManualClock clock;
    QString policyFile;
    std::unique_ptr<ConsoleCore> core;
    std::unique_ptr<WebServer> web;
    std::unique_ptr<TestSocket> agent;
    Device reader; // what submit() reads the items with
    QByteArray origin;
    bool started = false;
};

} // namespace holdpoint::test
