// SPDX-License-Identifier: Apache-2.0
// The console killed with SIGKILL at random moments while an agent process
// streams calls and a reviewer process decides some: nothing acknowledged
// is lost, nothing is queued twice, and the log's chain stays whole.

#include "audit/auditfile.h"
#include "common/consoleprocess.h"

#include <QFile>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

int countLines(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return int(f.readAll().count('\n'));
}

std::vector<Json> readLines(const QString &path)
{
    std::vector<Json> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (!line.isEmpty())
            out.push_back(Json::parse(line.toStdString()));
    }
    return out;
}

} // namespace

class TestCrash : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void killedAtRandomMomentsLosesNothing();
    void aCallAReviewerSawSurvivesAKill();
    void aStandingDecisionAnswersACallOnItsWay();
};

void TestCrash::killedAtRandomMomentsLosesNothing()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QString policy = writeAutoAllowPolicy(tmp.path());
    QVERIFY(!policy.isEmpty());
    const QStringList consoleArgs { QStringLiteral("--policy"), policy, QStringLiteral("--timeout"),
        QStringLiteral("3600"), QStringLiteral("--grace"), QStringLiteral("600") };

    // Every 3rd call escalates; the reviewer decides those with an even
    // number and leaves the odd ones pending.
    const int sessions = 4, calls = 600, every = 3;
    int oddAsks = 0;
    for (int i = every; i <= calls; i += every)
        oddAsks += i % 2;

    auto console = std::make_unique<ConsoleProcess>(data, consoleArgs);
    QVERIFY(console->ready());

    const QString agentOut = tmp.path() + QStringLiteral("/agent.jsonl");
    QProcess agent;
    agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    agent.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
        { QStringLiteral("--data-dir"), data, QStringLiteral("--sessions"),
            QString::number(sessions), QStringLiteral("--calls"), QString::number(calls),
            QStringLiteral("--window"), QStringLiteral("4"), QStringLiteral("--ask-every"),
            QString::number(every), QStringLiteral("--leave-odd-pending"), QStringLiteral("--out"),
            agentOut, QStringLiteral("--prefix"), QStringLiteral("crash") });
    QProcess reviewer;
    reviewer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    reviewer.start(QStringLiteral(HOLDPOINT_LOAD_BIN),
        { QStringLiteral("--role"), QStringLiteral("reviewer"), QStringLiteral("--data-dir"),
            data });
    QVERIFY(agent.waitForStarted(WaitMs));
    QVERIFY(reviewer.waitForStarted(WaitMs));

    // Kill after a random amount of progress, a bounded number of times.
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("seed %u", seed);
    QRandomGenerator rng(seed);
    const int kills = 8;
    int killed = 0;
    for (int k = 0; k < kills; ++k) {
        const int target = countLines(agentOut) + int(rng.bounded(5, 60));
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return countLines(agentOut) >= target
                             || agent.state() == QProcess::NotRunning;
                     },
                     WaitMs * 3),
            "the agent made no progress");
        if (agent.state() == QProcess::NotRunning)
            break;
        console->process().kill(); // SIGKILL
        QVERIFY(console->process().waitForFinished(WaitMs));
        ++killed;
        console = std::make_unique<ConsoleProcess>(data, consoleArgs);
        QVERIFY2(console->ready(), "the console did not come back after SIGKILL");
    }
    qInfo("killed the console %d times", killed);
    QVERIFY(killed >= 1);

    // (waitForFinished is false for a process that has finished already.)
    QVERIFY2(agent.state() == QProcess::NotRunning || agent.waitForFinished(120'000),
        "the agent never got all its decisions");
    QCOMPARE(agent.exitStatus(), QProcess::NormalExit);
    const QByteArray summary = agent.readAllStandardOutput();
    QCOMPARE(agent.exitCode(), 0); // no call got two different answers
    reviewer.kill();
    reviewer.waitForFinished(WaitMs);

    // Every decision the agent received, once each.
    std::map<std::pair<std::string, std::string>, Json> received;
    for (const Json &d : readLines(agentOut))
        QVERIFY(received
                    .emplace(std::pair { d["session"].get<std::string>(),
                                 d["call_id"].get<std::string>() },
                        d)
                    .second);
    QCOMPARE(int(received.size()), sessions * (calls - oddAsks));

    // ... each is in the log, as the same decision, exactly once; and no
    // call was queued twice.
    std::map<std::pair<std::string, std::string>, std::vector<Json>> decisions;
    std::map<std::pair<std::string, std::string>, int> escalations;
    std::map<std::pair<std::string, std::string>, std::string> receivedAt;
    audit::forEachRecord(data + QStringLiteral("/audit"), [&](std::string_view, const Json &r) {
        const std::string event = r["event"];
        const auto key
            = std::pair { r.value("session", std::string()), r.value("call_id", std::string()) };
        if (event == "decision")
            decisions[key].push_back(r);
        else if (event == "escalated")
            ++escalations[key];
        else if (event == "call")
            receivedAt[key]
                = r["ts"]; // received again if a crash came before its answer: the last counts
        return true;
    });
    for (const auto &[key, d] : received) {
        const auto it = decisions.find(key);
        QVERIFY2(
            it != decisions.end(), (key.second + ": delivered but not in the audit log").c_str());
        QCOMPARE(it->second.size(), std::size_t(1));
        QCOMPARE(it->second.front()["decision"], d["decision"]);
        QCOMPARE(it->second.front()["decided_by"], d["decided_by"]);
    }
    for (const auto &[key, n] : escalations)
        QVERIFY2(n == 1, (key.second + " was queued " + std::to_string(n) + " times").c_str());

    // One more kill: every pending call is back, with its original time.
    console->process().kill();
    QVERIFY(console->process().waitForFinished(WaitMs));
    console = std::make_unique<ConsoleProcess>(data, consoleArgs);
    QVERIFY(console->ready());
    const CtlResult pending = console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") });
    QCOMPARE(pending.exitCode, 0);
    const Json items = pending.json();
    QCOMPARE(int(items.size()), sessions * oddAsks);
    std::set<std::pair<std::string, std::string>> seen;
    for (const Json &item : items) {
        const auto key = std::pair { item["session_id"].get<std::string>(),
            item["call_id"].get<std::string>() };
        QVERIFY(seen.insert(key).second);
        QVERIFY(!received.contains(key));
        QCOMPARE(item["tool_name"], Json("ask_op"));
        QCOMPARE(item["received_at"], Json(receivedAt[key]));
    }

    const CtlResult verify = console->ctl({ QStringLiteral("audit"), QStringLiteral("verify") });
    QVERIFY2(verify.exitCode == 0, verify.out.constData());
    qInfo("%s", summary.trimmed().constData());
}

// A reviewer is shown a call only once its escalation is on disk: the
// console killed the moment the call appears comes back with it. The audit
// log's record writes are held back 300 ms (tests/tools/slowdisk.c), a
// window in which a call shown at once would be lost.
void TestCrash::aCallAReviewerSawSurvivesAKill()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    QProcessEnvironment slowDisk = QProcessEnvironment::systemEnvironment();
    slowDisk.insert(QStringLiteral("LD_PRELOAD"), QStringLiteral(HOLDPOINT_SLOWDISK_LIB));
    slowDisk.insert(QStringLiteral("HOLDPOINT_SLOWDISK_MS"), QStringLiteral("300"));
    // An ASan console must accept a library loaded before its runtime.
    slowDisk.insert(QStringLiteral("ASAN_OPTIONS"),
        slowDisk.value(QStringLiteral("ASAN_OPTIONS"))
            + QStringLiteral(":verify_asan_link_order=0"));
    {
        ConsoleProcess console(data, {}, slowDisk);
        QVERIFY(console.ready());
        auto reviewer = console.reviewer();
        QVERIFY(reviewer);
        auto agent = console.agent(std::string("s-seen"));
        QVERIFY(agent);
        agent->send(Json { { "type", "tool_call" }, { "call_id", "c1" },
            { "tool_name", "write_file" }, { "args", { { "path", "notes.txt" } } } });
        QVERIFY(reviewer->next("escalated").is_object());
        console.process().kill(); // at once: SIGKILL, no wait for anything else
        QVERIFY(console.process().waitForFinished(WaitMs));
    }
    ConsoleProcess again(data, {});
    QVERIFY(again.ready());
    const Json items = again.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QVERIFY2(items.is_array() && items.size() == 1, items.dump().c_str());
    QCOMPARE(items[0]["call_id"], Json("c1"));
    QCOMPARE(items[0]["session_id"], Json("s-seen"));
}

// A person answers the rest of a turn while another call of that turn is on
// its way to them, its escalation still being written: that call gets their
// answer, as one shown a moment earlier would, and no person is asked it
// again. Record writes are held back 1 s (tests/tools/slowdisk.c); the
// agent re-sending the call with other arguments, answered at once with a
// conflict, shows the console has it before the person decides.
void TestCrash::aStandingDecisionAnswersACallOnItsWay()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    QProcessEnvironment slowDisk = QProcessEnvironment::systemEnvironment();
    slowDisk.insert(QStringLiteral("LD_PRELOAD"), QStringLiteral(HOLDPOINT_SLOWDISK_LIB));
    slowDisk.insert(QStringLiteral("HOLDPOINT_SLOWDISK_MS"), QStringLiteral("1000"));
    slowDisk.insert(QStringLiteral("ASAN_OPTIONS"),
        slowDisk.value(QStringLiteral("ASAN_OPTIONS"))
            + QStringLiteral(":verify_asan_link_order=0"));
    ConsoleProcess console(tmp.path() + QStringLiteral("/data"), {}, slowDisk);
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    auto agent = console.agent(std::string("s-turn"));
    QVERIFY(reviewer && agent);
    auto write = [](const char *callId, const char *path) {
        return Json { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", "write_file" },
            { "args", { { "path", path } } }, { "turn_id", "t1" } };
    };
    agent->send(write("c1", "a.txt"));
    const Json first = reviewer->next("escalated");
    QVERIFY(first.is_object());
    agent->send(write("c2", "b.txt"));
    agent->send(write("c2", "other.txt"));
    const Json conflict = agent->next("error");
    QVERIFY2(conflict.value("call_id", std::string()) == "c2", conflict.dump().c_str());

    reviewer->send({ { "type", "review" }, { "id", first["item"]["id"] }, { "action", "approve" },
        { "scope", "turn" } });
    std::map<std::string, Json> decisions;
    for (int i = 0; i < 2; ++i) {
        const Json d = agent->next("decision");
        QVERIFY2(d.is_object(), "an agent's call got no decision");
        decisions[d.value("call_id", std::string())] = d;
    }
    for (const char *callId : { "c1", "c2" }) {
        const Json &d = decisions[callId];
        QVERIFY2(d.value("decision", std::string()) == "allow", d.dump().c_str());
        QVERIFY2(d.value("decided_by", std::string()).rfind("human:", 0) == 0, d.dump().c_str());
    }
    QVERIFY2(
        decisions["c2"].value("reason", std::string()).find("rest of turn t1") != std::string::npos,
        decisions["c2"].dump().c_str());
    // The reviewer was never asked about c2: a round trip on its socket
    // after the decision, and no second escalation before its answer.
    reviewer->send({ { "type", "review" }, { "id", "no-such-item" }, { "action", "approve" } });
    QVERIFY(reviewer->next("error").is_object());
    QVERIFY(reviewer->noneOf("escalated"));
    // And the audit says who decided it, and how.
    const QByteArray lines
        = console
              .ctl({ QStringLiteral("audit"), QStringLiteral("query"), QStringLiteral("--json"),
                  QStringLiteral("--limit"), QStringLiteral("0") })
              .out;
    bool recorded = false;
    for (const QByteArray &line : lines.split('\n')) {
        const Json r = Json::parse(line.toStdString(), nullptr, false);
        recorded = recorded
            || (r.is_object() && r.value("event", std::string()) == "decision"
                && r.value("call_id", std::string()) == "c2"
                && r.value("decided_by", std::string()).rfind("human:", 0) == 0
                && !r.value("via", std::string()).empty());
    }
    QVERIFY2(recorded, lines.constData());
}

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
