// SPDX-License-Identifier: Apache-2.0
// End to end with real processes: `holdpoint --headless` on a temporary
// data dir, driven by `holdpoint-ctl` and by protocol clients. The policy
// and its guardrails on the wire: tst_guardrails_e2e.cpp.

#include "common/consoleprocess.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

Json call(const std::string &id, const Json &args = { { "path", "notes.txt" } })
{
    return { { "type", "tool_call" }, { "call_id", id }, { "tool_name", "write_file" },
        { "args", args } };
}

} // namespace

class TestConsoleE2E : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reviewerDecisionsReachTheSubmitter_data();
    void reviewerDecisionsReachTheSubmitter();
    void shortTimeoutDenies();
    void jsonOptionsFromFilesAndStdin();
    void cancelFromTheProtocolAndFromCtl();
    void disconnectThenResume();
    void abandonedAfterGrace();
    void duplicateAndConflictingCallIds();
    void pendingListsTheQueue();
    void filesArePrivateAndCleanExitRemovesThem();
    void agentGroupOpensOnlyTheEndpoint();
    void ctlErrorsExitTwo_data();
    void ctlErrorsExitTwo();
    void secondConsoleOnSameDataDirExitsWithReason();
    void restartAfterKillTakesOverTheDataDir();
    void noEditsSurviveARestart();
};

void TestConsoleE2E::reviewerDecisionsReachTheSubmitter_data()
{
    QTest::addColumn<QStringList>("review"); // ctl arguments after the item id
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("args");
    QTest::newRow("approve") << QStringList { QStringLiteral("approve") } << 0 << "allow"
                             << "approved by a reviewer"
                             << R"({"path":"notes.txt"})";
    QTest::newRow("deny with reason") << QStringList { QStringLiteral("deny"),
        QStringLiteral("--reason"), QStringLiteral("not in this repo") }
                                      << 3 << "deny"
                                      << "not in this repo"
                                      << "";
    QTest::newRow("edit") << QStringList { QStringLiteral("edit"), QStringLiteral("--args"),
        QStringLiteral(R"({"path":"safe/notes.txt"})") }
                          << 0 << "modify"
                          << "approved with edited arguments by a reviewer"
                          << R"({"path":"safe/notes.txt"})";
    QTest::newRow("halt") << QStringList { QStringLiteral("halt"), QStringLiteral("--reason"),
        QStringLiteral("stop now") }
                          << 4 << "halt"
                          << "stop now"
                          << "";
}

void TestConsoleE2E::reviewerDecisionsReachTheSubmitter()
{
    QFETCH(QStringList, review);
    QFETCH(int, exitCode);
    QFETCH(QString, decision);
    QFETCH(QString, reason);
    QFETCH(QString, args);

    ConsoleProcess console;
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto submit = console.startCtl(
        { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("write_file"),
            QStringLiteral("--args"), QStringLiteral(R"({"path":"notes.txt"})"),
            QStringLiteral("--agent"), QStringLiteral("e2e-agent") });
    const Json escalated = reviewer->next("escalated");
    QVERIFY(escalated.is_object());
    QCOMPARE(escalated["item"]["agent"]["name"], Json("e2e-agent"));
    const QString id = QString::fromStdString(escalated["item"]["id"].get<std::string>());

    QStringList ctlArgs { review.first(), id };
    ctlArgs += review.mid(1);
    const CtlResult reviewed = console.ctl(ctlArgs);
    QCOMPARE(reviewed.exitCode, 0);
    QCOMPARE(
        reviewed.json()["decision"], Json(decision == u"deny" ? "deny" : decision.toStdString()));

    const CtlResult submitted = finish(*submit);
    QCOMPARE(submitted.exitCode, exitCode);
    const Json d = submitted.json();
    QCOMPARE(d["type"], Json("decision"));
    QCOMPARE(d["decision"], Json(decision.toStdString()));
    QCOMPARE(d["reason"], Json(reason.toStdString()));
    QVERIFY(d["decided_by"].get<std::string>().starts_with("human:"));
    if (args.isEmpty())
        QVERIFY(!d.contains("args"));
    else
        QCOMPARE(d["args"], Json::parse(args.toStdString()));
    QVERIFY(
        submitted.err.contains(QByteArray("waiting for a reviewer (item " + id.toUtf8() + ")")));
}

// @FILE and @- for arguments larger than one command-line argument may be
// (128 KiB on Linux): a 300 KB non-ASCII call submitted from a file, edited
// from stdin, arrives byte for byte.
void TestConsoleE2E::jsonOptionsFromFilesAndStdin()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    QTemporaryDir dir;
    std::string text;
    while (text.size() < 300 * 1024)
        text += "ノート été 🧪 ĉ\u0301 \"q\" ";
    const Json args { { "path", "notes.txt" }, { "content", text } };
    const QString argsFile = dir.filePath(QStringLiteral("args.json"));
    {
        QFile f(argsFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(dumpJson(args)));
    }
    auto submit = console.startCtl({ QStringLiteral("submit"), QStringLiteral("--tool"),
        QStringLiteral("write_file"), QStringLiteral("--args"), u'@' + argsFile });
    const Json escalated = reviewer->next("escalated");
    QVERIFY(escalated.is_object());
    QVERIFY(escalated["item"]["args"] == args);
    const QString id = QString::fromStdString(escalated["item"]["id"].get<std::string>());

    const Json edited { { "path", "safe/notes.txt" }, { "content", text + "✓" } };
    QProcess edit;
    edit.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), console.dataDir(), QStringLiteral("edit"), id,
            QStringLiteral("--args"), QStringLiteral("@-") });
    edit.write(QByteArray::fromStdString(dumpJson(edited)));
    edit.closeWriteChannel();
    const CtlResult reviewed = finish(edit);
    QVERIFY2(reviewed.exitCode == 0, reviewed.err.constData());

    const CtlResult submitted = finish(*submit);
    QCOMPARE(submitted.exitCode, 0);
    QVERIFY(submitted.json()["args"] == edited);

    // A file that is not there: a clear usage error, nothing sent.
    const CtlResult missing = console.ctl({ QStringLiteral("submit"), QStringLiteral("--tool"),
        QStringLiteral("bash"), QStringLiteral("--args"),
        QStringLiteral("@") + dir.filePath(QStringLiteral("none.json")) });
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("--args: cannot read "), missing.err.constData());
}

void TestConsoleE2E::shortTimeoutDenies()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    const CtlResult r = console.ctl({ QStringLiteral("submit"), QStringLiteral("--tool"),
        QStringLiteral("bash"), QStringLiteral("--args"), QStringLiteral(R"({"command":"ls"})"),
        QStringLiteral("--timeout"), QStringLiteral("0.3") });
    QCOMPARE(r.exitCode, 3);
    const Json d = r.json();
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["decided_by"], Json("timeout"));
    QCOMPARE(d["code"], Json("timeout"));
    QCOMPARE(d["reason"], Json("timed out after 0 s waiting for a reviewer"));
    QVERIFY(console.ctl({ QStringLiteral("pending") }).out.startsWith("no pending calls"));
}

void TestConsoleE2E::cancelFromTheProtocolAndFromCtl()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);

    auto agent = console.agent();
    QVERIFY(agent);
    agent->send(call("c1"));
    QVERIFY(agent->next("pending").is_object());
    QVERIFY(reviewer->next("escalated").is_object());
    agent->send({ { "type", "cancel" }, { "call_id", "c1" } });
    const Json d = agent->next("decision");
    QCOMPARE(d["decision"], Json("deny"));
    QCOMPARE(d["code"], Json("cancelled"));
    QCOMPARE(d["decided_by"], Json("agent"));
    QCOMPARE(reviewer->next("resolved")["state"], Json("cancelled"));

    // holdpoint-ctl cancels its call when interrupted, then reports the deny.
    auto submit = console.startCtl(
        { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("bash"),
            QStringLiteral("--args"), QStringLiteral(R"({"command":"make"})") });
    QCOMPARE(reviewer->next("escalated")["item"]["tool_name"], Json("bash"));
    ::kill(pid_t(submit->processId()), SIGINT);
    const CtlResult r = finish(*submit);
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(r.json()["code"], Json("cancelled"));
    QCOMPARE(reviewer->next("resolved")["state"], Json("cancelled"));
}

void TestConsoleE2E::disconnectThenResume()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto first = console.agent(std::string("sess-1"));
    QVERIFY(first);
    first->send(call("c1"));
    const std::string id = first->next("pending")["id"].get<std::string>();
    QCOMPARE(reviewer->next("escalated")["item"]["id"], Json(id));
    first->abort();

    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const Json items
                = console.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
            return items.is_array() && items.size() == 1
                && items[0]["agent_connected"] == Json(false);
        }(),
        WaitMs);

    auto second = console.agent(std::string("sess-1"));
    QVERIFY(second);
    second->send(call("c1"));
    QCOMPARE(second->next("pending")["id"], Json(id)); // the same item, re-attached
    QVERIFY(reviewer->noneOf("escalated"));

    QCOMPARE(console.ctl({ QStringLiteral("approve"), QString::fromStdString(id) }).exitCode, 0);
    QCOMPARE(second->next("decision")["decision"], Json("allow"));
}

void TestConsoleE2E::abandonedAfterGrace()
{
    ConsoleProcess console({ QStringLiteral("--grace"), QStringLiteral("1") });
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto agent = console.agent(std::string("sess-2"));
    QVERIFY(agent);
    agent->send(call("c1"));
    QVERIFY(agent->next("pending").is_object());
    QVERIFY(reviewer->next("escalated").is_object());
    agent->abort();
    const Json resolved = reviewer->next("resolved");
    QCOMPARE(resolved["state"], Json("abandoned"));
    QCOMPARE(resolved["decision"], Json("deny"));

    auto back = console.agent(std::string("sess-2"));
    QVERIFY(back);
    back->send(call("c1"));
    const Json d = back->next("decision");
    QCOMPARE(d["code"], Json("abandoned"));
    QVERIFY(reviewer->noneOf("escalated"));
}

void TestConsoleE2E::duplicateAndConflictingCallIds()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    auto reviewer = console.reviewer();
    QVERIFY(reviewer);
    auto agent = console.agent();
    QVERIFY(agent);

    agent->send(call("c1"));
    agent->send(call("c1"));
    const std::string id = agent->next("pending")["id"].get<std::string>();
    QCOMPARE(agent->next("pending")["id"], Json(id));
    QVERIFY(reviewer->next("escalated").is_object());

    agent->send(call("c1", { { "path", "other.txt" } }));
    const Json conflict = agent->next("error");
    QCOMPARE(conflict["code"], Json("call_id_conflict"));
    QCOMPARE(conflict["call_id"], Json("c1"));
    const Json items = console.ctl({ QStringLiteral("pending"), QStringLiteral("--json") }).json();
    QCOMPARE(items.size(), std::size_t(1)); // never a second item

    QCOMPARE(console
                 .ctl({ QStringLiteral("deny"), QString::fromStdString(id),
                     QStringLiteral("--reason"), QStringLiteral("nope") })
                 .exitCode,
        0);
    const Json first = agent->next("decision");
    agent->send(call("c1"));
    QCOMPARE(agent->next("decision"), first);
    QVERIFY(reviewer->noneOf("escalated"));
}

void TestConsoleE2E::pendingListsTheQueue()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    QCOMPARE(console.ctl({ QStringLiteral("pending") }).out, QByteArray("no pending calls\n"));
    auto agent = console.agent();
    QVERIFY(agent);
    agent->send(call("c1", { { "path", "a.txt" } }));
    const std::string id = agent->next("pending")["id"].get<std::string>();
    const CtlResult r = console.ctl({ QStringLiteral("pending") });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray::fromStdString(id + "  tester  write_file  {\"path\":\"a.txt\"}\n"));
}

void TestConsoleE2E::filesArePrivateAndCleanExitRemovesThem()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    const QString data = console.dataDir();
    // No group or other bits (0x077 in QFileDevice's layout) on the dir or the files.
    QCOMPARE(QFileInfo(data).permissions() & 0x077, QFileDevice::Permissions(0));
    for (const char *name : { "endpoint.json", "reviewer.token", "console.lock" }) {
        const QFileInfo f(data + u'/' + QLatin1String(name));
        QVERIFY(f.exists());
        QCOMPARE(f.permissions() & 0x077, QFileDevice::Permissions(0));
        QVERIFY(f.permissions() & QFileDevice::ReadOwner);
    }
    console.process().terminate(); // SIGTERM: a clean exit
    QVERIFY(console.process().waitForFinished(WaitMs));
    QCOMPARE(console.process().exitCode(), 0);
    QVERIFY(!QFileInfo::exists(data + QStringLiteral("/endpoint.json")));
    QVERIFY(!QFileInfo::exists(data + QStringLiteral("/reviewer.token")));
}

void TestConsoleE2E::agentGroupOpensOnlyTheEndpoint()
{
    // This process's own group: one a console may always give its files to.
    const struct group *own = getgrgid(getegid());
    QVERIFY(own);
    const QString group = QString::fromLocal8Bit(own->gr_name);
    ConsoleProcess console({ QStringLiteral("--agent-group"), group });
    QVERIFY(console.ready());
    const QString data = console.dataDir();
    struct stat st
    {
    };
    QCOMPARE(::stat(QFile::encodeName(data).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0710));
    QCOMPARE(st.st_gid, own->gr_gid);
    QCOMPARE(
        ::stat(QFile::encodeName(data + QStringLiteral("/endpoint.json")).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0640));
    QCOMPARE(st.st_gid, own->gr_gid);
    for (const char *name : { "reviewer.token", "console.lock" }) {
        QCOMPARE(::stat(QFile::encodeName(data + u'/' + QLatin1String(name)).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
    }
    // An agent that reads the shared endpoint file is served.
    QCOMPARE(console.ctl({ QStringLiteral("pending") }).exitCode, 0);

    // A group that does not exist stops the console before it listens.
    QTemporaryDir other;
    QProcess bad;
    bad.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), other.path(),
            QStringLiteral("--agent-group"), QStringLiteral("no-such-group-hp") });
    QVERIFY(bad.waitForFinished(WaitMs));
    QCOMPARE(bad.exitCode(), 1);
    QCOMPARE(bad.readAllStandardError(),
        QByteArray("holdpoint: --agent-group no-such-group-hp: no such group\n"));
    QVERIFY(!QFileInfo::exists(other.filePath(QStringLiteral("endpoint.json"))));

    // A second console on the same dir, without the group, stops at the
    // lock and changes nothing the running one's agents reach.
    QProcess second;
    second.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), data });
    QVERIFY(second.waitForFinished(WaitMs));
    QCOMPARE(second.exitCode(), 1);
    QCOMPARE(::stat(QFile::encodeName(data).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0710));

    // Never through a symlink: the directory it points to stays as it was.
    QTemporaryDir real;
    QVERIFY(QFile::setPermissions(
        real.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
    const QString link = other.filePath(QStringLiteral("link"));
    QVERIFY(QFile::link(real.path(), link));
    QProcess linked;
    linked.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), link,
            QStringLiteral("--agent-group"), group });
    QVERIFY(linked.waitForFinished(WaitMs));
    QCOMPARE(linked.exitCode(), 1);
    const QByteArray refusal
        = QByteArray("holdpoint: cannot share ").append(QFile::encodeName(link));
    QVERIFY(linked.readAllStandardError().startsWith(refusal));
    QCOMPARE(::stat(QFile::encodeName(real.path()).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0700));
}

void TestConsoleE2E::ctlErrorsExitTwo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList {} << "holdpoint-ctl: no command given";
    QTest::newRow("unknown command") << QStringList { QStringLiteral("frobnicate") }
                                     << "holdpoint-ctl: unknown command \"frobnicate\"";
    QTest::newRow("submit without tool")
        << QStringList { QStringLiteral("submit"), QStringLiteral("--args"), QStringLiteral("{}") }
        << "holdpoint-ctl: submit: --tool NAME is required";
    QTest::newRow("submit bad json")
        << QStringList { QStringLiteral("submit"), QStringLiteral("--tool"), QStringLiteral("x"),
               QStringLiteral("--args"), QStringLiteral("{oops") }
        << "holdpoint-ctl: --args: invalid JSON: parse error at line 1, column 2: syntax error "
           "while parsing object key - invalid literal; last read: '{o'; expected string literal";
    QTest::newRow("submit args not object") << QStringList { QStringLiteral("submit"),
        QStringLiteral("--tool"), QStringLiteral("x"), QStringLiteral("--args"),
        QStringLiteral("[1]") } << "holdpoint-ctl: --args: expected a JSON object, got array";
    QTest::newRow("deny without reason")
        << QStringList { QStringLiteral("deny"), QStringLiteral("abc") }
        << "holdpoint-ctl: deny: --reason TEXT is required; the agent sees it";
    QTest::newRow("approve unknown id")
        << QStringList { QStringLiteral("approve"), QStringLiteral("abc") }
        << "holdpoint-ctl: unknown_item: id: no pending item \"abc\"; it may have been decided, "
           "timed out or cancelled";
    QTest::newRow("edit unchanged needs args") << QStringList { QStringLiteral("edit"),
        QStringLiteral("abc") } << "holdpoint-ctl: edit: --args JSON is required";
}

void TestConsoleE2E::ctlErrorsExitTwo()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    ConsoleProcess console;
    QVERIFY(console.ready());
    const CtlResult r = console.ctl(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith(message.toUtf8()), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void TestConsoleE2E::secondConsoleOnSameDataDirExitsWithReason()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    QProcess second;
    second.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), console.dataDir() });
    QVERIFY(second.waitForFinished(WaitMs));
    QCOMPARE(second.exitCode(), 1);
    QVERIFY(second.readAllStandardError().startsWith("holdpoint: another console (pid "));

    // No console at all: holdpoint-ctl says where it looked.
    QTemporaryDir empty;
    QProcess ctl;
    ctl.start(QStringLiteral(HOLDPOINT_CTL_BIN),
        { QStringLiteral("--data-dir"), empty.path(), QStringLiteral("pending") });
    QVERIFY(ctl.waitForFinished(WaitMs));
    QCOMPARE(ctl.exitCode(), 2);
    QVERIFY(ctl.readAllStandardError().startsWith(
        QByteArray("holdpoint-ctl: no console found: cannot read " + empty.path().toUtf8())));
}

void TestConsoleE2E::restartAfterKillTakesOverTheDataDir()
{
    ConsoleProcess console;
    QVERIFY(console.ready());
    const QUrl oldUrl = console.info().url;
    const qint64 oldPid = console.info().pid;
    QCOMPARE(oldPid, console.process().processId());
    console.process().kill(); // SIGKILL: no cleanup, stale lock and endpoint file
    QVERIFY(console.process().waitForFinished(WaitMs));
    QVERIFY(QFileInfo::exists(console.dataDir() + QStringLiteral("/endpoint.json")));

    const CtlResult dead = console.ctl({ QStringLiteral("pending") });
    QCOMPARE(dead.exitCode, 2);
    QCOMPARE(dead.err,
        QByteArray("holdpoint-ctl: cannot connect to the console at " + oldUrl.toString().toUtf8()
            + ": Connection refused\n"));

    QProcess again;
    again.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    again.start(QStringLiteral(HOLDPOINT_BIN),
        { QStringLiteral("--headless"), QStringLiteral("--data-dir"), console.dataDir() });
    EndpointInfo fresh;
    QString error;
    QVERIFY(QTest::qWaitFor(
        [&] {
            return readEndpointInfo(console.dataDir(), true, &fresh, &error) && fresh.pid != oldPid;
        },
        WaitMs));
    QCOMPARE(fresh.pid, again.processId());
    const CtlResult alive = console.ctl({ QStringLiteral("pending") });
    QCOMPARE(alive.exitCode, 0);
    QCOMPARE(alive.out, QByteArray("no pending calls\n"));
    again.terminate();
    QVERIFY(again.waitForFinished(WaitMs));
}

void TestConsoleE2E::noEditsSurviveARestart()
{
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data"));
    auto console = std::make_unique<ConsoleProcess>(data, QStringList {});
    QVERIFY(console->ready());
    {
        TestSocket codex;
        QVERIFY(codex.open(console->info().url));
        codex.send(Json { { "type", "hello" }, { "protocol", 1 },
            { "token", console->info().agentToken.toStdString() },
            { "agent", { { "name", "codex" } } },
            { "capabilities", { { "modify", false }, { "halt", false } } },
            { "session_id", "s-codex" } });
        QVERIFY(codex.next("welcome").is_object());
        codex.send(Json { { "type", "tool_call" }, { "call_id", "c1" }, { "tool_name", "shell" },
            { "args", { { "command", "make" } } } });
        QVERIFY(codex.next("pending").is_object());
    }
    console->process().kill();
    QVERIFY(console->process().waitForFinished(WaitMs));
    console = std::make_unique<ConsoleProcess>(data, QStringList {});
    QVERIFY(console->ready());

    const CtlResult pending = console->ctl({ QStringLiteral("pending"), QStringLiteral("--json") });
    QCOMPARE(pending.exitCode, 0);
    const Json items = pending.json();
    QCOMPARE(items.size(), std::size_t(1));
    QCOMPARE(items[0]["agent"]["capabilities"], Json({ { "modify", false }, { "halt", false } }));
    const QString id = QString::fromStdString(items[0]["id"].get<std::string>());
    const CtlResult edit = console->ctl({ QStringLiteral("edit"), id, QStringLiteral("--args"),
        QStringLiteral(R"({"command":"make -j2"})") });
    QCOMPARE(edit.exitCode, 2);
    QVERIFY2(edit.err.contains("cannot take edited arguments"), edit.err.constData());
    QCOMPARE(console
                 ->ctl({ QStringLiteral("deny"), id, QStringLiteral("--reason"),
                     QStringLiteral("not now") })
                 .exitCode,
        0);
}

QTEST_GUILESS_MAIN(TestConsoleE2E)
#include "tst_console_e2e.moc"
