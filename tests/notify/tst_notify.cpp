// SPDX-License-Identifier: Apache-2.0
// The ntfy notifier against a real HTTP server on loopback, in this
// process: what goes on the wire, what never does, reminders on a manual
// clock, retries, timeouts and the in-flight bound. Every wait is for an
// event (QTRY_*, QSignalSpy), never a sleep.

#include "notify/notification.h"
#include "notify/ntfynotifier.h"
#include "queue/reviewqueue.h"

#include <QFile>
#include <QHash>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

using namespace holdpoint;

namespace {

constexpr TimeMs Start = 1'700'000'000'000;
constexpr TimeMs Minute = 60'000;
const QByteArray Token = "tk_holdpoint_test_7Qx9Zr";
const QString Topic = QStringLiteral("holdpoint-alice");

struct RecordedRequest
{
    QByteArray method;
    QByteArray target;
    QByteArray version;
    QHash<QByteArray, QByteArray> headers; // names lowercased
    QByteArray body;

    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
};

// An HTTP/1.1 server that records each request and answers from a script:
// a status per request in turn, then `otherwise`. Status 0: no answer at
// all, the connection left open.
class RecordingServer final : public QObject
{
public:
    RecordingServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
            }
        });
        // Loopback only: a test server is nobody else's business.
        QVERIFY(m_server.listen(QHostAddress::LocalHost));
    }

    QString topicUrl() const
    {
        return QStringLiteral("http://127.0.0.1:%1/%2").arg(m_server.serverPort()).arg(Topic);
    }
    void answer(std::deque<int> script, int otherwise = 200)
    {
        m_script = std::move(script);
        m_otherwise = otherwise;
    }

    std::vector<RecordedRequest> requests;
    QByteArray received; // every byte any client sent

private:
    void read(QTcpSocket *socket)
    {
        const QByteArray bytes = socket->readAll();
        received += bytes;
        QByteArray &buffer = m_buffers[socket];
        buffer += bytes;
        while (takeRequest(socket, &buffer)) { }
    }

    bool takeRequest(QTcpSocket *socket, QByteArray *buffer)
    {
        const qsizetype end = buffer->indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        RecordedRequest request;
        const QList<QByteArray> lines = buffer->left(end).split('\n');
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        request.method = first.value(0);
        request.target = first.value(1);
        request.version = first.value(2);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                request.headers.insert(
                    lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        const qsizetype length = request.header("Content-Length").toLongLong();
        if (buffer->size() < end + 4 + length)
            return false;
        request.body = buffer->mid(end + 4, length);
        buffer->remove(0, end + 4 + length);
        requests.push_back(std::move(request));

        int status = m_otherwise;
        if (!m_script.empty()) {
            status = m_script.front();
            m_script.pop_front();
        }
        if (status != 0) {
            const QByteArray body
                = status == 200 ? R"({"id":"m1","event":"message"})" : R"({"error":"scripted"})";
            socket->write("HTTP/1.1 " + QByteArray::number(status)
                + " Scripted\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        }
        return true;
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    std::deque<int> m_script;
    int m_otherwise = 200;
};

// A token file with `mode`, in `dir`.
QString writeTokenFile(
    const QTemporaryDir &dir, const QByteArray &content, QFileDevice::Permissions mode)
{
    const QString path = dir.filePath(QStringLiteral("ntfy-token"));
    QFile file(path);
    file.remove();
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        return {};
    file.close();
    file.setPermissions(mode);
    return path;
}

constexpr QFileDevice::Permissions Mode0600 = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions Mode0644
    = Mode0600 | QFileDevice::ReadGroup | QFileDevice::ReadOther;

QueueItem pendingItem(const std::string &id, TimeMs deadline, int risk = 0)
{
    QueueItem item;
    item.id = id;
    item.callId = "call-" + id;
    item.sessionId = "s1";
    item.agent = { "alice-bot", "claude-code" };
    item.toolName = "read_notes";
    item.args = { { "path", "notes.txt" } };
    item.receivedAt = Start;
    item.deadline = deadline;
    item.risk = risk;
    return item;
}

// A notifier on a manual clock, against `server`, with quick retries.
struct Rig
{
    explicit Rig(RecordingServer &server, const QString &pageOrigin = {}, bool withToken = false)
    {
        NtfyOptions options { server.topicUrl(), {}, pageOrigin };
        if (withToken)
            options.tokenFile = writeTokenFile(dir, Token, Mode0600);
        QString error;
        auto parsed = NtfyConfig::fromOptions(options, &error);
        if (!parsed)
            qFatal("ntfy config refused: %s", qPrintable(error));
        config = *parsed;
        config.retryDelayMs = 10;
    }
    NtfyNotifier &start()
    {
        notifier = std::make_unique<NtfyNotifier>(config, &clock);
        return *notifier;
    }

    QTemporaryDir dir;
    ManualClock clock { Start };
    NtfyConfig config;
    std::unique_ptr<NtfyNotifier> notifier;
};

protocol::Decision allow()
{
    protocol::Decision d;
    d.kind = protocol::DecisionKind::Allow;
    d.decidedBy = "human:test";
    return d;
}

} // namespace

class TestNotify : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void config_data();
    void config();
    void pageOriginIsNormalised();
    void reminderTime_data();
    void reminderTime();
    void formatRemaining_data();
    void formatRemaining();
    void publishesOneRequest();
    void priority_data();
    void priority();
    void omitsClickAndAuthorizationWhenNotConfigured();
    void neverSendsArgumentsOrSecrets();
    void marksALookAlikeToolButNamesNoArgument();
    void remindsOnceBeforeTheDeadline();
    void noReminderAfterResolution();
    void retriesThenReportsFailure();
    void recoversAfterOneFailure();
    void doesNotRetryUnauthorized();
    void reportsConnectionRefused();
    void timesOut();
    void dropsBeyondInFlightBound();
    void stopsRetryingOnceResolved();
};

void TestNotify::config_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("token"); // empty: no token file
    QTest::addColumn<bool>("tokenPrivate");
    QTest::addColumn<QString>("pageOrigin");
    QTest::addColumn<QString>("refusal"); // empty: accepted

    const QString https = QStringLiteral("https://ntfy.example.com/holdpoint-alice");
    QTest::newRow("https") << https << QByteArray() << true << QString() << QString();
    QTest::newRow("https, token, page")
        << https << Token << true << QStringLiteral("https://review.example.com") << QString();
    QTest::newRow("http loopback, token") << QStringLiteral("http://127.0.0.1:2586/alerts") << Token
                                          << true << QString() << QString();
    QTest::newRow("path prefix") << QStringLiteral("https://example.com/ntfy/holdpoint_1")
                                 << QByteArray() << true << QString() << QString();
    QTest::newRow("ftp") << QStringLiteral("ftp://ntfy.example.com/holdpoint") << QByteArray()
                         << true << QString() << QStringLiteral("the scheme must be https or http");
    QTest::newRow("file") << QStringLiteral("file:///tmp/holdpoint") << QByteArray() << true
                          << QString() << QStringLiteral("the scheme must be https or http");
    QTest::newRow("ws") << QStringLiteral("wss://ntfy.example.com/holdpoint") << QByteArray()
                        << true << QString() << QStringLiteral("the scheme must be https or http");
    QTest::newRow("no scheme") << QStringLiteral("ntfy.sh/holdpoint") << QByteArray() << true
                               << QString() << QStringLiteral("not an absolute URL");
    QTest::newRow("empty") << QString() << QByteArray() << true << QString()
                           << QStringLiteral("empty");
    QTest::newRow("user:password")
        << QStringLiteral("https://alice:hunter2@ntfy.example.com/holdpoint") << QByteArray()
        << true << QString() << QStringLiteral("user name or password");
    QTest::newRow("no topic") << QStringLiteral("https://ntfy.example.com/") << QByteArray() << true
                              << QString() << QStringLiteral("names no topic");
    QTest::newRow("bad topic") << QStringLiteral("https://ntfy.example.com/a.b") << QByteArray()
                               << true << QString()
                               << QStringLiteral("the topic (its last path segment)");
    QTest::newRow("query") << QStringLiteral("https://ntfy.example.com/holdpoint?auth=hunter2")
                           << QByteArray() << true << QString()
                           << QStringLiteral("no query or fragment");
    QTest::newRow("token 0644") << https << Token << false << QString()
                                << QStringLiteral("are too open");
    QTest::newRow("token over plain http")
        << QStringLiteral("http://ntfy.example.com/holdpoint") << Token << true << QString()
        << QStringLiteral("unencrypted");
    QTest::newRow("empty token") << https << QByteArray(" \n") << true << QString()
                                 << QStringLiteral("it is empty");
    QTest::newRow("two-line token") << https << QByteArray("tk_first\ntk_second\n") << true
                                    << QString() << QStringLiteral("one word of printable ASCII");
    QTest::newRow("page with path")
        << https << QByteArray() << true << QStringLiteral("https://review.example.com/app")
        << QStringLiteral("ntfy page origin");
    QTest::newRow("page javascript")
        << https << QByteArray() << true << QStringLiteral("javascript:alert(1)")
        << QStringLiteral("ntfy page origin");
    QTest::newRow("page with password")
        << https << QByteArray() << true << QStringLiteral("https://a:b@review.example.com")
        << QStringLiteral("ntfy page origin");
}

void TestNotify::config()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, token);
    QFETCH(bool, tokenPrivate);
    QFETCH(QString, pageOrigin);
    QFETCH(QString, refusal);

    QTemporaryDir dir;
    NtfyOptions options { url, {}, pageOrigin };
    if (!token.isEmpty())
        options.tokenFile = writeTokenFile(dir, token, tokenPrivate ? Mode0600 : Mode0644);
    QString error;
    const auto config = NtfyConfig::fromOptions(options, &error);
    if (refusal.isEmpty()) {
        QVERIFY2(config, qPrintable(error));
        QCOMPARE(config->token, token.trimmed());
        return;
    }
    QVERIFY(!config);
    QVERIFY2(error.contains(refusal), qPrintable(error));
    // A refusal quotes neither a credential nor the topic.
    QVERIFY2(!error.contains(u"hunter2"), qPrintable(error));
    QVERIFY2(!error.contains(u"holdpoint-alice"), qPrintable(error));
    if (token.trimmed().size() > 2)
        QVERIFY2(!error.toUtf8().contains(token.trimmed()), qPrintable(error));
}

void TestNotify::pageOriginIsNormalised()
{
    QString error;
    const auto config
        = NtfyConfig::fromOptions({ QStringLiteral("https://ntfy.sh/holdpoint"), {},
                                      QStringLiteral("https://review.example.com:8443/") },
            &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->pageOrigin, QStringLiteral("https://review.example.com:8443"));
}

void TestNotify::reminderTime_data()
{
    QTest::addColumn<TimeMs>("left");
    QTest::addColumn<TimeMs>("expected"); // after now; -1: none

    QTest::newRow("10 min: a minute before") << 10 * Minute << 9 * Minute;
    QTest::newRow("an hour: a minute before") << 60 * Minute << 59 * Minute;
    QTest::newRow("2 min: both rules agree") << 2 * Minute << Minute;
    QTest::newRow("90 s: halfway") << TimeMs(90'000) << TimeMs(45'000);
    QTest::newRow("20 s: halfway") << TimeMs(20'000) << TimeMs(10'000);
    QTest::newRow("19 s: none") << TimeMs(19'000) << TimeMs(-1);
    QTest::newRow("past: none") << TimeMs(-5'000) << TimeMs(-1);
}

void TestNotify::reminderTime()
{
    QFETCH(TimeMs, left);
    QFETCH(TimeMs, expected);
    const TimeMs at = holdpoint::reminderTime(Start, Start + left);
    QCOMPARE(at, expected < 0 ? NoDeadline : Start + expected);
    QCOMPARE(holdpoint::reminderTime(Start, NoDeadline), NoDeadline);
}

void TestNotify::formatRemaining_data()
{
    QTest::addColumn<TimeMs>("ms");
    QTest::addColumn<QString>("expected");
    QTest::newRow("negative") << TimeMs(-1) << QStringLiteral("0 s");
    QTest::newRow("under a second") << TimeMs(999) << QStringLiteral("0 s");
    QTest::newRow("seconds") << TimeMs(45'500) << QStringLiteral("45 s");
    QTest::newRow("a minute") << Minute << QStringLiteral("1 min");
    QTest::newRow("minutes and seconds") << TimeMs(270'000) << QStringLiteral("4 min 30 s");
    QTest::newRow("hours") << 120 * Minute << QStringLiteral("2 h");
    QTest::newRow("hours and minutes") << 125 * Minute << QStringLiteral("2 h 5 min");
}

void TestNotify::formatRemaining()
{
    QFETCH(TimeMs, ms);
    QFETCH(QString, expected);
    QCOMPARE(holdpoint::formatRemaining(ms), expected);
}

void TestNotify::publishesOneRequest()
{
    RecordingServer server;
    Rig rig(server, QStringLiteral("https://review.example.com"), true);
    NtfyNotifier &notifier = rig.start();
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);
    QSignalSpy failed(&notifier, &Notifier::failed);

    QueueItem item = pendingItem("a1b2c3", Start + 5 * Minute, 80);
    item.toolName = "Bash";
    item.annotations = { { "destructiveHint", true } };
    item.trail = Json::array({ { { "guardrail", "shell_rules" }, { "action", "ask" },
        { "code", "rm_rf" }, { "reason", "matched rm -rf" } } });
    notifier.itemAdded(item);

    QTRY_COMPARE(delivered.size(), 1);
    QCOMPARE(delivered.at(0).at(0).toString(), QStringLiteral("a1b2c3"));
    QCOMPARE(delivered.at(0).at(1).toBool(), false);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(server.requests.size(), std::size_t(1));
    const RecordedRequest &r = server.requests.front();
    QCOMPARE(r.method, QByteArray("POST"));
    QCOMPARE(r.target, "/" + Topic.toLatin1());
    QCOMPARE(r.version, QByteArray("HTTP/1.1"));
    QCOMPARE(r.header("Title"), QByteArray("Holdpoint: alice-bot wants to run Bash"));
    QCOMPARE(r.header("Priority"), QByteArray("5"));
    QCOMPARE(r.header("Tags"), QByteArray("rotating_light,holdpoint,destructive"));
    QCOMPARE(r.header("Click"), QByteArray("https://review.example.com/#item=a1b2c3"));
    QCOMPARE(r.header("Authorization"), "Bearer " + Token);
    QVERIFY(r.header("Content-Type").startsWith("text/plain"));
    const QString body = QString::fromUtf8(r.body);
    QVERIFY2(body.contains(u"alice-bot (claude-code) wants to run Bash."), qPrintable(body));
    QVERIFY2(body.contains(u"Risk 80/100, urgent: destructive tool."), qPrintable(body));
    QVERIFY2(body.contains(u"Why: shell_rules asks (rm_rf)."), qPrintable(body));
    QVERIFY2(body.contains(u"Decide within 5 min."), qPrintable(body));
    QVERIFY2(body.contains(u"Item a1b2c3"), qPrintable(body));
    QCOMPARE(notifier.inFlight(), 0);
}

void TestNotify::priority_data()
{
    QTest::addColumn<int>("risk");
    QTest::addColumn<bool>("destructive");
    QTest::addColumn<QByteArray>("priority");
    QTest::addColumn<QByteArray>("firstTag");
    QTest::newRow("routine") << 0 << false << QByteArray("3")
                             << QByteArray("hourglass_flowing_sand");
    QTest::newRow("destructive hint") << 0 << true << QByteArray("4") << QByteArray("warning");
    QTest::newRow("risk 45") << 45 << false << QByteArray("4") << QByteArray("warning");
    QTest::newRow("risk 75") << 75 << false << QByteArray("5") << QByteArray("rotating_light");
}

void TestNotify::priority()
{
    QFETCH(int, risk);
    QFETCH(bool, destructive);
    QFETCH(QByteArray, priority);
    QFETCH(QByteArray, firstTag);
    RecordingServer server;
    Rig rig(server);
    NtfyNotifier &notifier = rig.start();
    QueueItem item = pendingItem("p1", NoDeadline, risk);
    if (destructive)
        item.annotations = { { "destructiveHint", true } };
    notifier.itemAdded(item);
    QTRY_COMPARE(server.requests.size(), std::size_t(1));
    QCOMPARE(server.requests[0].header("Priority"), priority);
    QCOMPARE(server.requests[0].header("Tags").split(',').value(0), firstTag);
    QVERIFY(QString::fromUtf8(server.requests[0].body).contains(u"No deadline"));
}

void TestNotify::omitsClickAndAuthorizationWhenNotConfigured()
{
    RecordingServer server;
    Rig rig(server);
    NtfyNotifier &notifier = rig.start();
    // A name outside ASCII travels as an RFC 2047 encoded word, which ntfy decodes.
    QueueItem item = pendingItem("n1", Start + 10 * Minute);
    item.agent.name = "Zoë";
    notifier.itemAdded(item);
    QTRY_COMPARE(server.requests.size(), std::size_t(1));
    const RecordedRequest &r = server.requests.front();
    QVERIFY(!r.headers.contains("click"));
    QVERIFY(!r.headers.contains("authorization"));
    const QByteArray title = r.header("Title");
    QVERIFY2(title.startsWith("=?UTF-8?B?") && title.endsWith("?="), title.constData());
    QCOMPARE(QString::fromUtf8(QByteArray::fromBase64(title.mid(10, title.size() - 12))),
        QStringLiteral("Holdpoint: Zoë wants to run read_notes"));
}

void TestNotify::neverSendsArgumentsOrSecrets()
{
    RecordingServer server;
    Rig rig(server, QStringLiteral("https://review.example.com"), true);
    NtfyNotifier &notifier = rig.start();
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);

    const std::string secret = "sk-live-HOLDPOINT-SECRET-9f8e7d6c";
    QueueItem item = pendingItem("s3cr", Start + 10 * Minute, 90);
    item.toolName = "Bash";
    item.agent.framework = "claude-code " + secret; // the agent echoed it somewhere shown
    item.args = { { "command",
                      "curl -H 'Authorization: Bearer " + secret + "' https://ARG-MARKER.example" },
        { "path", "/home/alice/.ssh/ARG-PATH-MARKER" } };
    item.context = { { "cwd", "/home/alice/CONTEXT-MARKER" },
        { "transcript", "CONTEXT-TRANSCRIPT-MARKER" } };
    item.proposedArgs = Json { { "command", "PROPOSED-MARKER" } };
    item.patch = Json::array(
        { { { "op", "replace" }, { "path", "/command" }, { "value", "PATCH-MARKER" } } });
    item.editedArgs = Json { { "command", "EDITED-MARKER" } };
    item.redactions = { { secret, "[SECRET:api_key:1]", "api_key" } };
    // Free text that quotes the arguments, as guardrails' reasons may.
    item.reason = "path /home/alice/.ssh/ARG-PATH-MARKER is protected";
    item.trail = Json::array(
        { { { "guardrail", "secrets" }, { "action", "ask" }, { "code", "secret_detected" },
              { "reason", "found " + secret + " in REASON-MARKER" } },
            { { "guardrail", "protected_paths" }, { "action", "ask" }, { "code", "protected_path" },
                { "reason", "path /home/alice/.ssh/ARG-PATH-MARKER is protected" } } });
    item.warnings = { { "loop_detection", "exact_failure", "WARNING-MARKER repeated" } };
    notifier.itemAdded(item);
    QTRY_COMPARE(delivered.size(), 1);
    rig.clock.advance(9 * Minute); // and the reminder
    QTRY_COMPARE(delivered.size(), 2);
    QCOMPARE(server.requests.size(), std::size_t(2));

    const QByteArray everything = server.received;
    for (const char *marker : { "HOLDPOINT-SECRET", "ARG-MARKER", "ARG-PATH-MARKER", ".ssh",
             "CONTEXT-MARKER", "CONTEXT-TRANSCRIPT-MARKER", "PROPOSED-MARKER", "PATCH-MARKER",
             "EDITED-MARKER", "REASON-MARKER", "WARNING-MARKER", "curl" })
        QVERIFY2(!everything.contains(marker), marker);
    // What it does say: who, which tool, and why in the guardrails' words.
    for (const RecordedRequest &r : server.requests) {
        const QString body = QString::fromUtf8(r.body);
        QVERIFY2(body.contains(u"alice-bot") && body.contains(u"Bash"), qPrintable(body));
        QVERIFY2(body.contains(u"secrets in the arguments (api_key)"), qPrintable(body));
        QVERIFY2(body.contains(u"a protected path"), qPrintable(body));
        QVERIFY2(body.contains(u"Why: secrets asks (secret_detected)."), qPrintable(body));
        QVERIFY2(body.contains(u"[SECRET:api_key:1]"), qPrintable(body)); // the masked framework
    }
}

void TestNotify::remindsOnceBeforeTheDeadline()
{
    RecordingServer server;
    Rig rig(server, QStringLiteral("https://review.example.com"));
    // The real queue, which times items out on the same clock.
    ReviewQueue queue(&rig.clock);
    NtfyNotifier &notifier = rig.start();
    connectNotifier(&queue, &notifier);
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);

    queue.enqueue(pendingItem("r1", Start + 10 * Minute));
    QTRY_COMPARE(delivered.size(), 1);
    QCOMPARE(notifier.armedReminders(), 1);

    // Due at deadline - 60 s: nothing a minute earlier. The manual clock
    // fires alarms inside advance(), so a publish would be in flight now.
    rig.clock.advance(8 * Minute);
    QCOMPARE(notifier.inFlight(), 0);
    QCOMPARE(notifier.armedReminders(), 1);

    rig.clock.advance(Minute);
    QCOMPARE(notifier.inFlight(), 1);
    QCOMPARE(notifier.armedReminders(), 0);
    QTRY_COMPARE(delivered.size(), 2);
    QCOMPARE(delivered.at(1).at(1).toBool(), true);
    const RecordedRequest &reminder = server.requests.at(1);
    QCOMPARE(reminder.header("Title"),
        QByteArray("Holdpoint reminder: alice-bot still waits to run read_notes"));
    QCOMPARE(reminder.header("Priority"), QByteArray("4")); // one step above the first message's 3
    QVERIFY(reminder.header("Tags").split(',').contains("reminder"));
    QCOMPARE(reminder.header("Click"), QByteArray("https://review.example.com/#item=r1"));
    QVERIFY2(QString::fromUtf8(reminder.body).contains(u"Decide within 1 min."),
        reminder.body.constData());

    // The deadline passes (the queue times the item out) and time goes on:
    // nothing more about r1. A sentinel item's message, sent last, proves
    // the pipe is empty behind it.
    rig.clock.advance(Minute);
    QVERIFY(!queue.find("r1"));
    rig.clock.advance(30 * Minute);
    QCOMPARE(notifier.inFlight(), 0);
    queue.enqueue(pendingItem("sentinel", NoDeadline));
    QTRY_COMPARE(delivered.size(), 3);
    QCOMPARE(server.requests.size(), std::size_t(3));
    QCOMPARE(server.requests.back().header("Click"),
        QByteArray("https://review.example.com/#item=sentinel"));
}

void TestNotify::noReminderAfterResolution()
{
    RecordingServer server;
    Rig rig(server, QStringLiteral("https://review.example.com"));
    ReviewQueue queue(&rig.clock);
    NtfyNotifier &notifier = rig.start();
    connectNotifier(&queue, &notifier);
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);

    queue.enqueue(pendingItem("decided", Start + 10 * Minute));
    queue.enqueue(pendingItem("waiting", Start + 20 * Minute));
    QTRY_COMPARE(delivered.size(), 2);
    QCOMPARE(notifier.armedReminders(), 2);

    QVERIFY(queue.resolve("decided", ItemState::Decided, allow()));
    QCOMPARE(notifier.armedReminders(), 1);
    rig.clock.advance(12 * Minute); // past the decided item's reminder time and deadline
    QCOMPARE(notifier.inFlight(), 0);
    rig.clock.advance(7 * Minute); // the other item's reminder
    QTRY_COMPARE(delivered.size(), 3);
    QCOMPARE(delivered.at(2).at(0).toString(), QStringLiteral("waiting"));
    const auto aboutDecided = std::count_if(server.requests.begin(), server.requests.end(),
        [](const RecordedRequest &r) { return r.header("Click").endsWith("#item=decided"); });
    QCOMPARE(aboutDecided, 1);
}

void TestNotify::retriesThenReportsFailure()
{
    RecordingServer server;
    server.answer({}, 500);
    Rig rig(server, {}, true);
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);

    notifier.itemAdded(pendingItem("f500", Start + 10 * Minute));
    QTRY_COMPARE(failed.size(), 1);
    QCOMPARE(server.requests.size(), std::size_t(3)); // the first try and two retries
    QCOMPARE(delivered.size(), 0);
    QCOMPARE(notifier.inFlight(), 0);
    const QString why = failed.at(0).at(0).toString();
    QVERIFY2(why.contains(u"HTTP 500 after 3 attempts"), qPrintable(why));
    QVERIFY2(why.contains(u"item f500"), qPrintable(why));
    QVERIFY2(why.contains(u"127.0.0.1"), qPrintable(why));
    QVERIFY2(!why.contains(QString::fromLatin1(Token)), qPrintable(why));
    QVERIFY2(!why.contains(Topic), qPrintable(why));
    for (const RecordedRequest &r : server.requests)
        QCOMPARE(r.header("Authorization"), "Bearer " + Token);
}

void TestNotify::recoversAfterOneFailure()
{
    RecordingServer server;
    server.answer({ 503 });
    Rig rig(server);
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    QSignalSpy delivered(&notifier, &NtfyNotifier::delivered);
    notifier.itemAdded(pendingItem("flaky", NoDeadline));
    QTRY_COMPARE(delivered.size(), 1);
    QCOMPARE(server.requests.size(), std::size_t(2));
    QCOMPARE(server.requests[0].body, server.requests[1].body);
    QCOMPARE(failed.size(), 0);
}

void TestNotify::doesNotRetryUnauthorized()
{
    // The same request would be refused again: say so at once.
    RecordingServer server;
    server.answer({}, 401);
    Rig rig(server, {}, true);
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    notifier.itemAdded(pendingItem("u401", NoDeadline));
    QTRY_COMPARE(failed.size(), 1);
    const QString why = failed.at(0).at(0).toString();
    QVERIFY2(why.contains(u"HTTP 401 (check the token file"), qPrintable(why));
    QVERIFY2(!why.contains(u"attempts"), qPrintable(why));
    QCOMPARE(server.requests.size(), std::size_t(1));
}

void TestNotify::reportsConnectionRefused()
{
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    QString error;
    auto config = NtfyConfig::fromOptions(
        { QStringLiteral("http://127.0.0.1:%1/holdpoint-alice").arg(port), {}, {} }, &error);
    QVERIFY2(config, qPrintable(error));
    config->retryDelayMs = 10;
    ManualClock clock(Start);
    NtfyNotifier notifier(*config, &clock);
    QSignalSpy failed(&notifier, &Notifier::failed);
    notifier.itemAdded(pendingItem("refused", NoDeadline));
    QCOMPARE(notifier.inFlight(), 1); // never blocks: the publish is under way
    QTRY_COMPARE(failed.size(), 1);
    QVERIFY2(failed.at(0).at(0).toString().contains(u"connection refused after 3 attempts"),
        qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(notifier.inFlight(), 0);
}

void TestNotify::timesOut()
{
    RecordingServer server;
    server.answer({}, 0); // reads the request, never answers
    Rig rig(server);
    rig.config.timeoutMs = 200;
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    notifier.itemAdded(pendingItem("silent", NoDeadline));
    QTRY_COMPARE(failed.size(), 1);
    const QString why = failed.at(0).at(0).toString();
    QVERIFY2(why.contains(u"no answer within 200 ms after 3 attempts"), qPrintable(why));
    QCOMPARE(server.requests.size(), std::size_t(3));
    QCOMPARE(notifier.inFlight(), 0);
}

void TestNotify::dropsBeyondInFlightBound()
{
    RecordingServer server;
    server.answer({}, 0);
    Rig rig(server);
    rig.config.maxInFlight = 2;
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    for (const char *id : { "d1", "d2", "d3", "d4" })
        notifier.itemAdded(pendingItem(id, NoDeadline));
    QCOMPARE(notifier.inFlight(), 2);
    QCOMPARE(notifier.droppedCount(), 2);
    // Both drops in one report.
    QTRY_COMPARE(failed.size(), 1);
    const QString why = failed.at(0).at(0).toString();
    QVERIFY2(why.contains(u"2 notification(s) dropped, 2 already in flight (2 dropped in all)"),
        qPrintable(why));
    QTRY_COMPARE(server.requests.size(), std::size_t(2));
    // Gone with requests hanging: no crash, no late signal.
    rig.notifier.reset();
    QCoreApplication::processEvents();
}

void TestNotify::stopsRetryingOnceResolved()
{
    RecordingServer server;
    server.answer({}, 500);
    Rig rig(server);
    rig.config.retryDelayMs = 100;
    NtfyNotifier &notifier = rig.start();
    QSignalSpy failed(&notifier, &Notifier::failed);
    const QueueItem item = pendingItem("moot", NoDeadline);
    notifier.itemAdded(item);
    QTRY_COMPARE(server.requests.size(), std::size_t(1));
    notifier.itemResolved(item);
    QTRY_COMPARE(notifier.inFlight(), 0);
    QCOMPARE(server.requests.size(), std::size_t(1));
    QCOMPARE(failed.size(), 0);
}

// A tool named with a Cyrillic е: the title marks it and the body warns;
// the look-alike host in the arguments is warned of, never named (a
// notification carries no argument).
void TestNotify::marksALookAlikeToolButNamesNoArgument()
{
    QueueItem item = pendingItem("look", Start + 10 * Minute);
    item.toolName = "r\u0435ad_file";
    item.args = { { "url", "https://p\u0430ypal.com/ARG-MARKER" } };
    const Notification n = describePendingItem(item, Start, false);
    QVERIFY2(n.title.contains(QStringLiteral("r⟨е U+0435 CYRILLIC⟩ad_file")), qPrintable(n.title));
    QVERIFY2(n.body.contains(QStringLiteral("LOOK-ALIKE LETTERS OF ANOTHER SCRIPT IN A NAME")),
        qPrintable(n.body));
    QVERIFY2(
        !n.body.contains(QStringLiteral("ypal")) && !n.body.contains(QStringLiteral("ARG-MARKER")),
        qPrintable(n.body));
    QVERIFY(n.labels.contains(QStringLiteral("hidden characters")));
}

QTEST_GUILESS_MAIN(TestNotify)
#include "tst_notify.moc"
