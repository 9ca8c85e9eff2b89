// SPDX-License-Identifier: Apache-2.0
// `holdpoint-ctl COMMAND --help`, `-h` and `--version` for every command, as
// a person types them, and as an agent CLI would run a hook that has them.

#include <QProcess>
#include <QRegularExpression>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run ctl(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(HOLDPOINT_CTL_BIN), args);
    p.closeWriteChannel(); // stdin is a pipe, as under an agent CLI
    p.waitForFinished(30'000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

// On a terminal: script(1) gives the command a pseudo-terminal for stdin.
Run ctlOnATerminal(const QStringList &args)
{
    QStringList quoted;
    for (const QString &a : args)
        quoted << u'\'' + a + u'\'';
    QProcess p;
    p.start(QStringLiteral("script"),
        { QStringLiteral("-qec"), QStringLiteral(HOLDPOINT_CTL_BIN) + u' ' + quoted.join(u' '),
            QStringLiteral("/dev/null") });
    p.waitForFinished(30'000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

} // namespace

class TestCtlHelp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyCommandHasHelp_data();
    void everyCommandHasHelp();
    void versionAfterACommand();
    void unknownCommandHelpIsAnError();
    void aHookGivesHelpOnlyToAPersonAtATerminal_data();
    void aHookGivesHelpOnlyToAPersonAtATerminal();
};

void TestCtlHelp::everyCommandHasHelp_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<QString>("entry"); // a line of its own entry
    const QList<std::pair<const char *, const char *>> rows {
        { "submit", "  submit --tool NAME --args JSON" },
        { "pending", "  pending [--json]" },
        { "approve ID", "  approve ID [--reason TEXT]" },
        { "deny ID", "  deny ID --reason TEXT" },
        { "edit ID", "  edit ID --args JSON" },
        { "halt ID", "  halt ID [--reason TEXT]" },
        { "web pair", "  web pair [--no-qr]" },
        { "web sessions", "  web sessions [--json]" },
        { "web revoke ID", "  web revoke ID" },
        { "reviewer add NAME", "  reviewer add NAME" },
        { "reviewer list", "  reviewer list [--json]" },
        { "reviewer remove NAME", "  reviewer remove NAME" },
        { "mcp-proxy", "  mcp-proxy [--server-name NAME]" },
        { "audit verify", "  audit verify [--json]" },
        { "audit query", "  audit query [--agent A]" },
        { "audit export", "  audit export [--format jsonl|csv]" },
        { "insights", "  insights [--since T] [--data-dir DIR | --team URL] [--json]" },
        { "team init", "  team init [URL]" },
        { "team reviewer add", "  team reviewer add NAME --role LOGIN" },
        { "policy check", "  policy check FILE..." },
    };
    for (const auto &[command, entry] : rows) {
        for (const char *flag : { "--help", "-h" }) {
            QStringList args = QString::fromLatin1(command).split(u' ');
            args << QLatin1String(flag);
            QTest::addRow("%s %s", command, flag) << args << QString::fromLatin1(entry);
        }
    }
}

// Each command answers with its own entry, and does nothing else: no
// console is running, and none is needed.
void TestCtlHelp::everyCommandHasHelp()
{
    QFETCH(QStringList, command);
    QFETCH(QString, entry);
    const Run r = ctl(
        QStringList { QStringLiteral("--data-dir"), QStringLiteral("/nonexistent") } + command);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.isEmpty());
    QVERIFY2(r.out.startsWith("Usage: holdpoint-ctl "), r.out.constData());
    QVERIFY2(r.out.contains(QByteArray("\n" + entry.toUtf8())), r.out.constData());
    // and a description at its column (25), on the entry's line or under it
    static const QRegularExpression description(QStringLiteral("\n[^\n]{24} \\S"));
    QVERIFY2(QString::fromUtf8(r.out).contains(description), r.out.constData());
}

void TestCtlHelp::versionAfterACommand()
{
    for (const QStringList &args : { QStringList { QStringLiteral("--version") },
             QStringList { QStringLiteral("submit"), QStringLiteral("--version") },
             QStringList { QStringLiteral("audit"), QStringLiteral("verify"),
                 QStringLiteral("--version") } }) {
        const Run r = ctl(args);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("holdpoint-ctl " HOLDPOINT_VERSION "\n"));
    }
}

void TestCtlHelp::unknownCommandHelpIsAnError()
{
    const Run r = ctl({ QStringLiteral("bogus"), QStringLiteral("--help") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith("holdpoint-ctl: unknown command \"bogus\""), r.err.constData());
}

void TestCtlHelp::aHookGivesHelpOnlyToAPersonAtATerminal_data()
{
    QTest::addColumn<QString>("hook");
    QTest::newRow("claude-code") << QStringLiteral("claude-code");
    QTest::newRow("codex") << QStringLiteral("codex");
    QTest::newRow("gemini") << QStringLiteral("gemini");
}

// A person typing `hook codex --help` gets the usage and 0. An agent CLI
// running a hook configured with --help must not get 0, which would let its
// call run: the call is blocked (2), with the usage as the reason.
void TestCtlHelp::aHookGivesHelpOnlyToAPersonAtATerminal()
{
    QFETCH(QString, hook);
    const QStringList args { QStringLiteral("hook"), hook, QStringLiteral("--help") };
    const QByteArray entry = QByteArray("\n  hook " + hook.toUtf8() + " [--fail-open]");

    const Run person = ctlOnATerminal(args);
    QCOMPARE(person.exitCode, 0);
    QVERIFY2(person.out.contains("Usage: holdpoint-ctl "), person.out.constData());
    QVERIFY2(person.out.contains(entry), person.out.constData());
    QVERIFY2(!person.out.contains("Holdpoint blocked this call"), person.out.constData());

    const Run agent = ctl(args);
    QCOMPARE(agent.exitCode, 2);
    QVERIFY(agent.out.isEmpty());
    QVERIFY2(agent.err.startsWith(QByteArray("Holdpoint blocked this call: `hook " + hook.toUtf8()
                 + " --help` answers a person at a terminal")),
        agent.err.constData());
    QVERIFY2(agent.err.contains(entry), agent.err.constData());
}

QTEST_GUILESS_MAIN(TestCtlHelp)
#include "tst_ctlhelp.moc"
