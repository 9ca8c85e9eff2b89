// SPDX-License-Identifier: Apache-2.0
// Load and faults against a real headless console: 256 agent sessions
// making 400 calls each with random disconnects, cancels and duplicate
// call_ids, a reviewer deciding escalations, a client that never reads, a
// thousand bad handshakes and a connection flood past the cap, all at once.
// Then: every call got exactly one decision, the audit log holds exactly
// those, its chain verifies, and the console's memory is back near where
// it started.

#include "audit/auditfile.h"
#include "common/consoleprocess.h"
#include "common/rawws.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// VmRSS: resident now; VmHWM: the most it has been.
qint64 memoryKiB(qint64 pid, const QByteArray &field = "VmRSS:")
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(field))
            return line.mid(field.size()).trimmed().split(' ').first().toLongLong();
    return -1;
}

qint64 residentKiB(qint64 pid)
{
    return memoryKiB(pid);
}

// Sanitized builds run slower and keep freed memory in quarantine: they
// run a smaller load and only report memory.
// GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool Sanitized = true;
#elif defined(__has_feature)
constexpr bool Sanitized = __has_feature(address_sanitizer);
#else
constexpr bool Sanitized = false;
#endif

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok ? v : fallback;
}

} // namespace

class TestLoad : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void loadAndFaults();
};

void TestLoad::loadAndFaults()
{
    // HOLDPOINT_LOAD_SESSIONS / _CALLS shrink it for slow builds (sanitizers).
    const int sessions = envInt("HOLDPOINT_LOAD_SESSIONS", Sanitized ? 64 : 256);
    const int calls = envInt("HOLDPOINT_LOAD_CALLS", Sanitized ? 100 : 400);
    const int cap = 400;
    QTemporaryDir tmp;
    const QString data = tmp.path() + QStringLiteral("/data");
    const QString policy = writeAutoAllowPolicy(tmp.path());
    QVERIFY(!policy.isEmpty());
    ConsoleProcess console(data,
        { QStringLiteral("--policy"), policy, QStringLiteral("--max-connections"),
            QString::number(cap), QStringLiteral("--timeout"), QStringLiteral("3600"),
            // Short, so the memory check below sees sessions forgotten;
            // longer than the stalls the deaf client's 24 MB of calls
            // cause under a sanitizer, or an agent still reconnecting
            // finds its session gone and its re-sent call decided again.
            QStringLiteral("--session-retention"), QStringLiteral("5"),
            // The flood's admitted connections must hold their slots while
            // the rest open, not time out for want of a hello.
            QStringLiteral("--hello-timeout-ms"), QStringLiteral("120000") });
    QVERIFY(console.ready());
    const qint64 pid = console.process().processId();

    // The baseline: after a small warm-up (its 800 decisions still remembered).
    {
        QProcess warm;
        warm.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
            { QStringLiteral("--data-dir"), data, QStringLiteral("--sessions"), QStringLiteral("4"),
                QStringLiteral("--calls"), QStringLiteral("200"), QStringLiteral("--prefix"),
                QStringLiteral("warm") });
        QVERIFY(warm.waitForFinished(60'000));
        QCOMPARE(warm.exitCode(), 0);
    }
    const qint64 baseline = residentKiB(pid);
    QVERIFY(baseline > 0);

    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("seed %u, %d sessions x %d calls", seed, sessions, calls);
    const QString agentOut = tmp.path() + QStringLiteral("/agent.jsonl");
    QProcess reviewer;
    reviewer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    reviewer.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
        { QStringLiteral("--role"), QStringLiteral("reviewer"), QStringLiteral("--decide-all"),
            QStringLiteral("--data-dir"), data });
    QProcess agents;
    agents.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    agents.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
        { QStringLiteral("--data-dir"), data, QStringLiteral("--sessions"),
            QString::number(sessions), QStringLiteral("--calls"), QString::number(calls),
            QStringLiteral("--window"), QStringLiteral("2"), QStringLiteral("--ask-every"),
            QStringLiteral("25"), QStringLiteral("--disconnect-rate"), QStringLiteral("0.01"),
            QStringLiteral("--cancel-rate"), QStringLiteral("0.01"),
            QStringLiteral("--duplicate-rate"), QStringLiteral("0.02"), QStringLiteral("--seed"),
            QString::number(seed), QStringLiteral("--out"), agentOut, QStringLiteral("--prefix"),
            QStringLiteral("load") });
    QVERIFY(agents.waitForStarted(WaitMs));

    // Meanwhile: a client that never reads, asking for large answers.
    RawWebSocket deaf;
    QVERIFY(deaf.open(console.info().url.port()));
    QVERIFY(deaf.hello(console.info().agentToken.toStdString()));
    deaf.socket().setReadBufferSize(1024);
    const std::string bulk(600 * 1024, 'x');
    for (int i = 0; i < 40; ++i)
        deaf.sendText(QByteArray::fromStdString(
            dumpJson(Json { { "type", "tool_call" }, { "call_id", "deaf-" + std::to_string(i) },
                { "tool_name", "auto_op" }, { "args", { { "bulk", bulk } } } })));

    // A thousand bad handshakes: wrong tokens and foreign origins.
    int refused = 0;
    for (int round = 0; round < 10; ++round) {
        std::vector<std::unique_ptr<TestSocket>> bad;
        for (int i = 0; i < 50; ++i) {
            auto s = std::make_unique<TestSocket>();
            if (s->open(console.info().url))
                s->send(Json { { "type", "hello" }, { "protocol", 1 }, { "token", "not-the-token" },
                    { "role", "agent" }, { "agent", { { "name", "intruder" } } } });
            bad.push_back(std::move(s));
        }
        for (auto &s : bad)
            refused += QTest::qWaitFor([&] { return s->isClosed(); }, WaitMs) ? 1 : 0;
        for (int i = 0; i < 50; ++i) {
            const RawHandshake r = rawHandshake(quint16(console.info().url.port()),
                "127.0.0.1:" + QByteArray::number(console.info().url.port()),
                "https://evil.example");
            refused += r.statusLine.startsWith("HTTP/1.1 403") ? 1 : 0;
        }
    }
    QCOMPARE(refused, 1000);

    // A flood of connections up to and past the cap: the extra ones are
    // told why and closed; the agents' sessions ride it out (a refused
    // reconnect retries).
    std::vector<std::unique_ptr<RawWebSocket>> flood;
    for (int i = 0; i < cap + 100; ++i) {
        auto r = std::make_unique<RawWebSocket>();
        if (r->open(quint16(console.info().url.port())))
            flood.push_back(std::move(r));
    }
    auto refusedCount = [&] {
        int n = 0;
        for (auto &r : flood)
            n += r->waitFor([](const QByteArray &d) { return d.contains("connection_limit"); }, 0)
                ? 1
                : 0;
        return n;
    };
    if (!QTest::qWaitFor([&] { return refusedCount() >= 100; }, 60'000)) {
        int closed = 0;
        for (auto &r : flood)
            closed += r->socket().state() != QAbstractSocket::ConnectedState ? 1 : 0;
        qWarning("flood: %zu opened, %d refused, %d closed, agents %s; first bytes: %s",
            flood.size(), refusedCount(), closed,
            agents.state() == QProcess::Running ? "running" : "done",
            flood.back()->received().left(80).toHex().constData());
        QFAIL("the connections past the cap were not refused");
    }
    const bool duringLoad = agents.state() == QProcess::Running;
    const int limited = refusedCount();
    qInfo("flood: %zu connections opened, %d refused with connection_limit%s", flood.size(),
        limited, duringLoad ? ", while the agents ran" : "");
    flood.clear();

    QVERIFY2(agents.state() == QProcess::NotRunning || agents.waitForFinished(600'000),
        "the agents never finished");
    QCOMPARE(agents.exitStatus(), QProcess::NormalExit);
    const QByteArray summary = agents.readAllStandardOutput().trimmed();
    qInfo("%s", summary.constData());
    QCOMPARE(agents.exitCode(), 0); // no call got two different answers
    reviewer.kill();
    reviewer.waitForFinished(WaitMs);
    deaf.socket().abort();

    // Every call exactly one decision at the agent...
    std::map<std::pair<std::string, std::string>, std::string> received;
    QFile out(agentOut);
    QVERIFY(out.open(QIODevice::ReadOnly));
    while (!out.atEnd()) {
        const Json d = Json::parse(out.readLine().toStdString());
        QVERIFY(received
                    .emplace(std::pair { d["session"].get<std::string>(),
                                 d["call_id"].get<std::string>() },
                        d["decision"].get<std::string>())
                    .second);
    }
    QCOMPARE(int(received.size()), sessions * calls);

    // ... and exactly those in the audit log, once each.
    const CtlResult verify = console.ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> logged;
    int rejections = 0, dropped = 0, limitedLogged = 0;
    audit::forEachRecord(data + QStringLiteral("/audit"), [&](std::string_view, const Json &r) {
        const std::string event = r["event"];
        if (event == "decision") {
            const std::string session = r.value("session", std::string());
            if (session.rfind("load-", 0) == 0)
                logged[{ session, r["call_id"].get<std::string>() }].push_back(
                    r["decision"].get<std::string>());
        } else if (event == "connection_rejected") {
            ++rejections;
            const std::string why = r.value("why", std::string());
            dropped += why.find("unread") != std::string::npos ? 1 : 0;
            limitedLogged += why.find("connections") != std::string::npos ? 1 : 0;
        }
        return true;
    });
    QCOMPARE(logged.size(), received.size());
    for (const auto &[key, decisions] : logged) {
        QVERIFY2(decisions.size() == 1,
            (key.second + " has " + std::to_string(decisions.size()) + " decisions").c_str());
        QCOMPARE(decisions.front(), received[key]);
    }
    QVERIFY(rejections >= 1000);
    QCOMPARE(dropped, 1); // the client that never read
    QCOMPARE(limitedLogged, limited);

    // Memory: the sessions are forgotten five seconds after they go idle, the
    // console hands what they used back to the system once quiet, and ends
    // near its baseline: within a quarter of what the load took (at least
    // 16 MiB of slack for the allocator's own bookkeeping).
    const qint64 peak = memoryKiB(pid, "VmHWM:");
    const qint64 bound = baseline + std::max<qint64>((peak - baseline) / 4, 16 * 1024);
    const bool settled = QTest::qWaitFor([&] { return residentKiB(pid) <= bound; }, 60'000);
    qInfo("resident memory: baseline %lld KiB, peak %lld KiB, settled %lld KiB (bound %lld KiB)",
        baseline, peak, residentKiB(pid), bound);
    if (!Sanitized)
        QVERIFY2(settled, "the console's memory did not return near its baseline");
}

QTEST_GUILESS_MAIN(TestLoad)
#include "tst_load.moc"
