// SPDX-License-Identifier: Apache-2.0
// Hot reload of policy files on a running console: a valid edit takes effect
// for the next call, an invalid one keeps the previous policy.

#include "common/testsocket.h"
#include "engine/consolecore.h"
#include "guardrails/chain.h"
#include "policy/policywatcher.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

void writeFile(const QString &path, const QByteArray &content)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
}

// How editors that save safely do it: a new file renamed over the old one.
void replaceFile(const QString &path, const QByteArray &content)
{
    const QString tmp = path + QStringLiteral(".tmp");
    writeFile(tmp, content);
    QVERIFY(::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) == 0);
}

} // namespace

class TestPolicyReload : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void validEditTakesEffectInvalidEditIsRefused();
    void watcherFollowsRenamedFiles();
};

void TestPolicyReload::validEditTakesEffectInvalidEditIsRefused()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("policy.json"));
    writeFile(file, R"({"default":"allow"})");
    ConsoleOptions o;
    o.dataDir = dir.filePath(QStringLiteral("data"));
    o.policyFiles = { file };
    PolicyResult initial = loadPolicyFiles(o.policyFiles);
    QVERIFY(initial.policy);
    o.policy = *initial.policy;
    ConsoleCore core(o);
    QString error;
    QVERIFY2(core.start(&error), qPrintable(error));
    TestSocket agent;
    QVERIFY(agent.hello(QUrl(core.url()), core.agentToken().toStdString()).is_object());
    int n = 0;
    auto decide = [&] {
        const std::string id = "c" + std::to_string(++n);
        agent.send({ { "type", "tool_call" }, { "call_id", id }, { "tool_name", "bash" },
            { "args", { { "command", "make" } } } });
        return agent.next("decision")["decision"];
    };
    QCOMPARE(decide(), Json("allow"));

    QSignalSpy reloaded(&core, &ConsoleCore::policyReloaded);
    QSignalSpy failed(&core, &ConsoleCore::policyReloadFailed);
    writeFile(file,
        R"js({"default":"deny","guardrails":[{"type":"rules","rules":[{"match":"Bash(ls*)","action":"allow","reason":"ok"}]}]})js");
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 1, WaitMs);
    QCOMPARE(core.policy().chain->size(), 2); // the built-in self_guard, then the file's rules
    QCOMPARE(std::string(core.policy().chain->entries().at(0).guardrail->name()),
        std::string("self_guard"));
    agent.send({ { "type", "tool_call" }, { "call_id", "x1" }, { "tool_name", "Bash" },
        { "args", { { "command", "ls" } } } });
    QCOMPARE(agent.next("decision")["decided_by"], Json("guardrail:rules"));
    QCOMPARE(decide(), Json("deny")); // make is not ls: the new default

    writeFile(file, R"({"default":"allow","guardrails":[{"type":"rulez"}]})");
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, WaitMs);
    QCOMPARE(failed.at(0).at(0).toString(),
        file
            + QStringLiteral(": guardrails[0].type: unknown value \"rulez\" (expected one of: "
                             "rules, protected_paths, loop_detection, rate_limit, annotations, "
                             "secrets, hidden_characters)"));
    QCOMPARE(core.lastPolicyError(), failed.at(0).at(0).toString());
    QCOMPARE(decide(), Json("deny")); // the previous policy is still in force
    QCOMPARE(reloaded.count(), 1);

    writeFile(file, R"({"default":"allow"})");
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 2, WaitMs);
    QVERIFY(core.lastPolicyError().isEmpty());
    QCOMPARE(decide(), Json("allow"));
}

void TestPolicyReload::watcherFollowsRenamedFiles()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("p.json"));
    writeFile(file, R"({"default":"ask"})");
    PolicyWatcher watcher({ file });
    QSignalSpy reloaded(&watcher, &PolicyWatcher::reloaded);
    replaceFile(file, R"({"default":"deny"})");
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 1, WaitMs);
    QCOMPARE(reloaded.at(0).at(0).value<Policy>().defaultAction, DefaultAction::Deny);
    // Still watched after the rename: a second safe save is seen too.
    replaceFile(file, R"({"default":"allow"})");
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 2, WaitMs);
    QCOMPARE(reloaded.at(1).at(0).value<Policy>().defaultAction, DefaultAction::Allow);
    // A directory event for an unrelated file finds the policy unchanged and
    // reloads nothing; reload() is what such an event runs.
    writeFile(dir.filePath(QStringLiteral("other.txt")), "x");
    watcher.reload();
    QCOMPARE(reloaded.count(), 2);
}

QTEST_GUILESS_MAIN(TestPolicyReload)
#include "tst_policyreload.moc"
