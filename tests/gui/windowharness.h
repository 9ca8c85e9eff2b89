// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/testsocket.h"
#include "engine/consolecore.h"
#include "mainwindow.h"
#include "policy/policy.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>

namespace holdpoint::test {

// A console with its window shown and one agent connected, as a reviewer
// meets it; the GUI suites drive it with real key presses.
struct WindowHarness
{
    // `policy` empty: the built-in default (ask). `blockAudit`: a file
    // stands where the audit directory goes, so the log cannot be written.
    explicit WindowHarness(const std::string &policy = {}, bool blockAudit = false)
    {
        ConsoleOptions o;
        o.dataDir = dir.path() + QStringLiteral("/data");
        o.broker.reviewerName = "tester";
        o.audit.retryMs = 50;
        if (!policy.empty()) {
            policyFile = dir.path() + QStringLiteral("/policy.json");
            QFile f(policyFile);
            if (f.open(QIODevice::WriteOnly))
                f.write(QByteArray::fromStdString(policy));
            f.close();
            o.policy = *loadPolicyFiles({ policyFile }).policy;
            o.policyFiles = { policyFile };
        }
        if (blockAudit) {
            QDir().mkpath(o.dataDir);
            QFile blocker(o.dataDir + QStringLiteral("/audit"));
            blocker.open(QIODevice::WriteOnly);
        }
        core = std::make_unique<ConsoleCore>(o);
        QString error;
        started = core->start(&error);
        window = std::make_unique<MainWindow>(core.get());
        window->show();
        window->activateWindow();
        active = QTest::qWaitForWindowActive(window.get());
        agent = std::make_unique<TestSocket>();
        welcomed = agent->hello(QUrl(core->url()), core->agentToken().toStdString()).is_object();
    }
    // Another agent, connected and welcomed as `name`, in a session of its own.
    bool connectAgent(TestSocket &socket, const std::string &name) const
    {
        return socket
            .hello(QUrl(core->url()), core->agentToken().toStdString(), "agent", std::nullopt, name)
            .is_object();
    }
    Json call(const std::string &callId, const std::string &tool, const Json &args,
        const std::string &turn = {}) const
    {
        Json c { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", tool },
            { "args", args } };
        if (!turn.empty())
            c["turn_id"] = turn;
        return c;
    }
    bool submit(const std::string &callId, const std::string &tool, const Json &args,
        const std::string &turn = {})
    {
        const int before = core->queue()->size();
        agent->send(call(callId, tool, args, turn));
        return QTest::qWaitFor([&] { return core->queue()->size() == before + 1; }, WaitMs);
    }
    // The decision the agent got for `callId`.
    Json decisionFor(const std::string &callId)
    {
        if (auto it = decisions.find(callId); it != decisions.end())
            return it->second;
        for (;;) {
            const Json d = agent->next("decision");
            if (d.is_null())
                return d;
            decisions[d["call_id"].get<std::string>()] = d;
            if (d["call_id"] == callId)
                return d;
        }
    }
    template <typename T> T *child(const char *name) const
    {
        return window->findChild<T *>(QString::fromLatin1(name));
    }
    QTableView *view() const { return window->queueView(); }
    void key(Qt::Key k, Qt::KeyboardModifiers m = Qt::NoModifier)
    {
        QTest::keyClick(QApplication::focusWidget(), k, m);
    }

    QTemporaryDir dir;
    QString policyFile;
    std::unique_ptr<ConsoleCore> core;
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<TestSocket> agent;
    std::map<std::string, Json> decisions;
    bool started = false;
    bool welcomed = false;
    bool active = false;
};

} // namespace holdpoint::test
