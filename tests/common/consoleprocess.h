// SPDX-License-Identifier: Apache-2.0
#pragma once

// A real `holdpoint --headless` process on a temporary data dir, with
// helpers to drive it through holdpoint-ctl and protocol clients.

#include "client/endpointinfo.h"
#include "common/testsocket.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

namespace holdpoint::test {

struct CtlResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    Json json() const { return Json::parse(out.toStdString(), nullptr, false); }
};

// Waits for a holdpoint-ctl process and collects what it said.
inline CtlResult finish(QProcess &p)
{
    CtlResult r;
    if (!p.waitForFinished(WaitMs * 3))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

class ConsoleProcess
{
public:
    explicit ConsoleProcess(const QStringList &extra = {})
        : ConsoleProcess(QString(), extra)
    { }
    // On `dataDir` (kept after this object goes), e.g. to restart a console;
    // `env`, when not empty, is the console's environment.
    ConsoleProcess(const QString &dataDir, const QStringList &extra,
        const QProcessEnvironment &env = QProcessEnvironment())
    {
        if (!env.isEmpty())
            m_proc.setProcessEnvironment(env);
        m_data = dataDir.isEmpty() ? m_dir.path() + QStringLiteral("/data") : dataDir;
        m_proc.setProgram(QStringLiteral(HOLDPOINT_BIN));
        m_proc.setArguments(QStringList { QStringLiteral("--headless"), QStringLiteral("--port"),
                                QStringLiteral("0"), QStringLiteral("--data-dir"), m_data }
            + extra);
        m_proc.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_proc.start();
    }
    ~ConsoleProcess()
    {
        if (m_proc.state() != QProcess::NotRunning) {
            m_proc.kill();
            m_proc.waitForFinished(WaitMs);
        }
    }
    // Waits until this console (not one killed before it) has written its
    // endpoint file.
    bool ready()
    {
        QString error;
        return QTest::qWaitFor(
            [&] {
                return m_proc.state() == QProcess::Running
                    && readEndpointInfo(m_data, true, &m_info, &error)
                    && m_info.pid == m_proc.processId();
            },
            WaitMs);
    }
    const EndpointInfo &info() const { return m_info; }
    QString dataDir() const { return m_data; }
    QProcess &process() { return m_proc; }

    QStringList ctlArgs(const QStringList &args) const
    {
        return QStringList { QStringLiteral("--data-dir"), m_data } + args;
    }

    CtlResult ctl(const QStringList &args) const
    {
        QProcess p;
        p.start(QStringLiteral(HOLDPOINT_CTL_BIN), ctlArgs(args));
        return finish(p);
    }

    std::unique_ptr<QProcess> startCtl(const QStringList &args) const
    {
        auto p = std::make_unique<QProcess>();
        p->start(QStringLiteral(HOLDPOINT_CTL_BIN), ctlArgs(args));
        return p;
    }

    std::unique_ptr<TestSocket> reviewer() const
    {
        auto s = std::make_unique<TestSocket>();
        if (!s->hello(m_info.url, m_info.reviewerToken.toStdString(), "reviewer").is_object())
            return nullptr;
        if (!s->next("queue").is_object())
            return nullptr;
        return s;
    }
    std::unique_ptr<TestSocket> agent(
        const std::optional<std::string> &session = std::nullopt) const
    {
        auto s = std::make_unique<TestSocket>();
        if (!s->hello(m_info.url, m_info.agentToken.toStdString(), "agent", session).is_object())
            return nullptr;
        return s;
    }

private:
    QTemporaryDir m_dir;
    QString m_data;
    QProcess m_proc;
    EndpointInfo m_info;
};

// Writes `<dir>/policy.json`: everything asks a person, except the tool
// auto_op, which the rules allow (the load and crash tests' mix). Returns
// its path, or an empty string if it cannot be written.
inline QString writeAutoAllowPolicy(const QString &dir)
{
    const QString path = dir + QStringLiteral("/policy.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(R"({"default": "ask", "guardrails": [{"type": "rules", "rules": [
        {"when": {"tool": "auto_op"}, "action": "allow", "reason": "automatic"}]}]})");
    return f.flush() ? path : QString();
}

} // namespace holdpoint::test
