// SPDX-License-Identifier: Apache-2.0
// holdpoint-load: a separate process that plays many agents, or a reviewer,
// against a running console. The crash test, the load test and the
// throughput benchmark drive the console with it.
//
//   agent:    --sessions N --calls M [--window W] [--ask-every K] [--out FILE]
//             [--disconnect-rate P] [--cancel-rate P] [--duplicate-rate P] [--seed S]
//             Every session sends M calls, W at a time. Call i of a session is
//             tool "ask_op" when K divides i (escalated by the test policy), else
//             "auto_op". A dropped connection is reopened with the same session,
//             and every unanswered call is sent again with its call_id, as an
//             agent that survives a console restart would. Each decision
//             received is appended to FILE as one JSON line. The agent stops
//             once every call has a decision, except ask calls whose number is
//             odd when --leave-odd-pending is given.
//   reviewer: [--out FILE] [--decide-all] decides escalated calls: even
//             call numbers are approved when divisible by 4 and denied
//             otherwise; odd ones stay pending, or with --decide-all are
//             approved. Runs until killed.
//
// Prints a JSON summary on stdout: calls, decisions, seconds, p50/p99/p999 ms.

#include "client/endpointinfo.h"
#include "common/json.h"

#include <QAbstractSocket>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTimer>
#include <QWebSocket>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace holdpoint;

namespace {

struct Options
{
    QString dataDir;
    int sessions = 1;
    int calls = 100;
    int window = 1;
    int askEvery = 0;
    bool leaveOddPending = false;
    bool decideAll = false;
    double disconnectRate = 0;
    double cancelRate = 0;
    double duplicateRate = 0;
    QString out;
    quint32 seed = 1;
    QString prefix = QStringLiteral("load");
};

class Log
{
public:
    explicit Log(const QString &path)
    {
        if (!path.isEmpty()) {
            m_file.setFileName(path);
            m_file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered);
        }
    }
    void write(const Json &j)
    {
        if (m_file.isOpen())
            m_file.write(QByteArray::fromStdString(dumpJson(j) + "\n"));
    }

private:
    QFile m_file;
};

int callNumber(const std::string &callId)
{
    const auto dash = callId.rfind('-');
    return dash == std::string::npos ? -1 : std::atoi(callId.c_str() + dash + 1);
}

// One agent session over one connection, reopened whenever it drops.
class Session : public QObject
{
    Q_OBJECT
public:
    Session(const Options &o, int index, Log *log, std::vector<double> *latencies)
        : m_o(o)
        , m_log(log)
        , m_latencies(latencies)
        , m_rng(o.seed * 7919u + quint32(index))
    {
        m_id = QStringLiteral("%1-s%2").arg(o.prefix).arg(index).toStdString();
        for (int i = 1; i <= o.calls; ++i) {
            const bool ask = o.askEvery > 0 && i % o.askEvery == 0;
            if (ask && o.leaveOddPending && i % 2 == 1)
                ++m_expectedPending;
        }
        connect(&m_ws, &QWebSocket::connected, this, &Session::onConnected);
        connect(&m_ws, &QWebSocket::disconnected, this, &Session::onDisconnected);
        connect(&m_ws, &QWebSocket::textMessageReceived, this, &Session::onText);
        m_retry.setSingleShot(true);
        connect(&m_retry, &QTimer::timeout, this, &Session::open);
    }

    void open()
    {
        QString error;
        if (!readEndpointInfo(m_o.dataDir, false, &m_info, &error)) {
            m_retry.start(50); // the console is restarting
            return;
        }
        m_ws.open(m_info.url);
    }
    bool done() const
    {
        return int(m_decided.size()) + m_expectedPending >= m_o.calls
            && m_pendingIds.size() >= std::size_t(m_expectedPending);
    }
    int decided() const { return int(m_decided.size()); }
    int reconnects() const { return m_reconnects; }
    int conflicts() const { return m_conflicts; }
    int duplicatesAnswered() const { return m_duplicateDecisions; }

Q_SIGNALS:
    void progress();

private:
    std::string callId(int i) const { return m_id + "-c-" + std::to_string(i); }

    void onConnected()
    {
        for (QAbstractSocket *tcp : m_ws.findChildren<QAbstractSocket *>())
            tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        Json hello { { "type", "hello" }, { "protocol", 1 },
            { "token", m_info.agentToken.toStdString() }, { "role", "agent" },
            { "agent", { { "name", "load-agent" }, { "framework", "holdpoint-load" } } },
            { "session_id", m_id } };
        sendJson(hello);
    }

    void onDisconnected()
    {
        m_welcomed = false;
        if (done())
            return;
        ++m_reconnects;
        m_retry.start(20);
    }

    void sendJson(const Json &j) { m_ws.sendTextMessage(QString::fromStdString(dumpJson(j))); }

    void sendCall(int i)
    {
        const bool ask = m_o.askEvery > 0 && i % m_o.askEvery == 0;
        Json call { { "type", "tool_call" }, { "call_id", callId(i) },
            { "tool_name", ask ? "ask_op" : "auto_op" },
            { "args", { { "n", i }, { "session", m_id } } } };
        if (!m_sentAt.contains(i))
            m_sentAt[i].start();
        sendJson(call);
    }

    void fill()
    {
        while (m_welcomed && int(m_inFlight.size()) < m_o.window && m_next <= m_o.calls) {
            const int i = m_next++;
            m_inFlight.insert(i);
            sendCall(i);
            if (m_o.duplicateRate > 0 && m_rng.generateDouble() < m_o.duplicateRate)
                sendCall(i); // the same call_id again: must get the same item or decision
            if (m_o.cancelRate > 0 && m_rng.generateDouble() < m_o.cancelRate)
                sendJson(Json { { "type", "cancel" }, { "call_id", callId(i) } });
        }
    }

    void onText(const QString &text)
    {
        const Json m = Json::parse(text.toStdString(), nullptr, false);
        const std::string type = m.value("type", std::string());
        if (type == "welcome") {
            m_welcomed = true;
            // Everything unanswered goes again, with its call_id.
            for (int i : m_inFlight)
                sendCall(i);
            for (int i : m_pendingIds)
                sendCall(i);
            fill();
            return;
        }
        if (type == "pending") {
            const int n = callNumber(m.value("call_id", std::string()));
            if (m_o.leaveOddPending && n % 2 == 1) {
                if (m_pendingIds.insert(n).second) {
                    // Left for the reviewer never to decide: frees its slot.
                    m_inFlight.erase(n);
                    fill();
                    Q_EMIT progress();
                }
            }
            return;
        }
        if (type == "error" && m.value("code", std::string()) == "call_id_conflict")
            ++m_conflicts;
        if (type != "decision")
            return;
        const std::string id = m.value("call_id", std::string());
        const int n = callNumber(id);
        if (m_decided.contains(n)) {
            ++m_duplicateDecisions; // a duplicate's answer: must be the same decision
            if (m_decided[n] != m.value("decision", std::string()))
                ++m_conflicts;
            return;
        }
        m_decided[n] = m.value("decision", std::string());
        m_pendingIds.erase(n);
        m_inFlight.erase(n);
        if (auto it = m_sentAt.find(n); it != m_sentAt.end())
            m_latencies->push_back(double(it->second.nsecsElapsed()) / 1e6);
        m_log->write(Json { { "session", m_id }, { "call_id", id },
            { "decision", m.value("decision", std::string()) },
            { "decided_by", m.value("decided_by", std::string()) },
            { "code", m.value("code", std::string()) } });
        if (m_o.disconnectRate > 0 && m_rng.generateDouble() < m_o.disconnectRate) {
            m_ws.abort(); // reconnects and re-sends
            return;
        }
        fill();
        Q_EMIT progress();
    }

    const Options &m_o;
    Log *m_log;
    std::vector<double> *m_latencies;
    QRandomGenerator m_rng;
    std::string m_id;
    EndpointInfo m_info;
    QWebSocket m_ws;
    QTimer m_retry;
    bool m_welcomed = false;
    int m_next = 1;
    int m_expectedPending = 0;
    int m_reconnects = 0;
    int m_conflicts = 0;
    int m_duplicateDecisions = 0;
    std::set<int> m_inFlight;
    std::set<int> m_pendingIds;
    std::map<int, std::string> m_decided;
    std::map<int, QElapsedTimer> m_sentAt;
};

class Reviewer : public QObject
{
    Q_OBJECT
public:
    Reviewer(const Options &o, Log *log)
        : m_o(o)
        , m_log(log)
    {
        connect(&m_ws, &QWebSocket::connected, this, [this] {
            for (QAbstractSocket *tcp : m_ws.findChildren<QAbstractSocket *>())
                tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            sendJson(Json { { "type", "hello" }, { "protocol", 1 },
                { "token", m_info.reviewerToken.toStdString() }, { "role", "reviewer" },
                { "agent", { { "name", "load-reviewer" } } } });
        });
        connect(&m_ws, &QWebSocket::disconnected, this, [this] { m_retry.start(20); });
        connect(&m_ws, &QWebSocket::textMessageReceived, this, &Reviewer::onText);
        m_retry.setSingleShot(true);
        connect(&m_retry, &QTimer::timeout, this, &Reviewer::open);
    }
    void open()
    {
        QString error;
        if (!readEndpointInfo(m_o.dataDir, true, &m_info, &error)) {
            m_retry.start(50);
            return;
        }
        m_ws.open(m_info.url);
    }

private:
    void sendJson(const Json &j) { m_ws.sendTextMessage(QString::fromStdString(dumpJson(j))); }
    void consider(const Json &item)
    {
        const int n = callNumber(item.value("call_id", std::string()));
        if (n < 0 || (n % 2 == 1 && !m_o.decideAll))
            return;
        const bool approve = n % 4 == 0 || n % 2 == 1;
        Json review { { "type", "review" }, { "id", item.value("id", std::string()) },
            { "action", approve ? "approve" : "deny" } };
        if (!approve)
            review["reason"] = "denied by the load reviewer";
        sendJson(review);
    }
    void onText(const QString &text)
    {
        const Json m = Json::parse(text.toStdString(), nullptr, false);
        const std::string type = m.value("type", std::string());
        if (type == "queue") {
            for (const Json &item : m.value("items", Json::array()))
                consider(item);
        } else if (type == "escalated") {
            consider(m["item"]);
        } else if (type == "reviewed") {
            m_log->write(m);
        }
    }

    const Options &m_o;
    Log *m_log;
    EndpointInfo m_info;
    QWebSocket m_ws;
    QTimer m_retry;
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    auto opt = [&](const char *name, const char *help, const char *def = nullptr) {
        QCommandLineOption o(QString::fromLatin1(name), QString::fromLatin1(help),
            QStringLiteral("value"), def ? QString::fromLatin1(def) : QString());
        p.addOption(o);
        return o;
    };
    const auto dataDir = opt("data-dir", "The console's data directory.");
    const auto role = opt("role", "agent or reviewer.", "agent");
    const auto sessions = opt("sessions", "Concurrent agent sessions.", "1");
    const auto calls = opt("calls", "Calls per session.", "100");
    const auto window = opt("window", "Calls in flight per session.", "1");
    const auto askEvery = opt("ask-every", "Every K-th call escalates (0: none).", "0");
    const auto out = opt("out", "Append each decision received here, as JSON lines.");
    const auto seed = opt("seed", "Random seed.", "1");
    const auto disconnect
        = opt("disconnect-rate", "Chance to drop the connection after a decision.", "0");
    const auto cancel = opt("cancel-rate", "Chance to cancel a call right after sending it.", "0");
    const auto duplicate = opt("duplicate-rate", "Chance to send a call twice.", "0");
    const auto prefix = opt("prefix", "Session id prefix.", "load");
    const QCommandLineOption leaveOdd(QStringLiteral("leave-odd-pending"),
        QStringLiteral("Do not wait for odd escalated calls."));
    const QCommandLineOption decideAll(
        QStringLiteral("decide-all"), QStringLiteral("Reviewer: decide odd calls too (approve)."));
    p.addOptions({ leaveOdd, decideAll });
    p.process(app);

    Options o;
    o.dataDir = p.value(dataDir);
    o.sessions = p.value(sessions).toInt();
    o.calls = p.value(calls).toInt();
    o.window = std::max(1, p.value(window).toInt());
    o.askEvery = p.value(askEvery).toInt();
    o.out = p.value(out);
    o.seed = p.value(seed).toUInt();
    o.disconnectRate = p.value(disconnect).toDouble();
    o.cancelRate = p.value(cancel).toDouble();
    o.duplicateRate = p.value(duplicate).toDouble();
    o.prefix = p.value(prefix);
    o.leaveOddPending = p.isSet(leaveOdd);
    o.decideAll = p.isSet(decideAll);
    Log log(o.out);

    if (p.value(role) == u"reviewer") {
        Reviewer reviewer(o, &log);
        reviewer.open();
        return app.exec();
    }

    std::vector<double> latencies;
    latencies.reserve(std::size_t(o.sessions) * std::size_t(o.calls));
    std::vector<std::unique_ptr<Session>> all;
    QElapsedTimer clock;
    clock.start();
    auto check = [&] {
        if (std::all_of(all.begin(), all.end(), [](const auto &s) { return s->done(); }))
            app.quit();
    };
    for (int i = 0; i < o.sessions; ++i) {
        all.push_back(std::make_unique<Session>(o, i, &log, &latencies));
        QObject::connect(all.back().get(), &Session::progress, &app, check);
    }
    for (auto &s : all)
        s->open();
    app.exec();
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    int decided = 0, reconnects = 0, conflicts = 0, duplicates = 0;
    for (auto &s : all) {
        decided += s->decided();
        reconnects += s->reconnects();
        conflicts += s->conflicts();
        duplicates += s->duplicatesAnswered();
    }
    const Json summary { { "sessions", o.sessions }, { "decisions", decided },
        { "seconds", seconds }, { "calls_per_s", seconds > 0 ? double(decided) / seconds : 0 },
        { "p50_ms", percentile(latencies, 0.5) }, { "p99_ms", percentile(latencies, 0.99) },
        { "p999_ms", percentile(latencies, 0.999) }, { "reconnects", reconnects },
        { "conflicting_answers", conflicts }, { "duplicate_answers", duplicates } };
    std::printf("%s\n", dumpJson(summary).c_str());
    return conflicts == 0 ? 0 : 1;
}

#include "holdpoint_load.moc"
