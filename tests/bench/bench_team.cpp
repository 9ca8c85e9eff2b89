// SPDX-License-Identifier: Apache-2.0
// The team scenario: `holdpoint --team` gateways and a reviewer console on a
// PostgreSQL cluster this run starts for itself (fsync on), each figure next
// to the same figure for one console alone, measured in the same run.

#include "bench.h"
#include "peer.h"

#include "common/pgcluster.h"
#include "team/teamdb.h"

#include <pqxx/pqxx>

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QTimer>
#include <QWebSocket>

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace holdpoint::bench {

namespace {

// An agent on `agentHost` and a reviewer on `reviewerHost` (the same console
// alone, or a gateway and a second console in the team).
struct Pair
{
    Peer agent;
    Peer reviewer;
    std::vector<double> escalationMs; // call sent → the reviewer sees it
    std::vector<double> decisionMs; // approve sent → the agent has the decision
    int calls = 0;
};

// One escalated call, approved by the reviewer; false with `error` set when
// a step does not happen within 10 s.
bool escalateAndApprove(Pair &p, QString *error)
{
    const std::string callId = "e" + std::to_string(++p.calls);
    p.agent.send(Json { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", "deploy" },
        { "args", { { "target", "staging" }, { "build", p.calls } } } });
    const auto sent = SteadyClock::now();
    const std::optional<Message> escalated = p.reviewer.next("escalated", 10'000);
    if (!escalated) {
        *error = QStringLiteral("escalation %1 never reached the reviewer")
                     .arg(QString::fromStdString(callId));
        return false;
    }
    p.escalationMs.push_back(msBetween(sent, escalated->at));
    const std::string id = escalated->json["item"].value("id", std::string());
    p.reviewer.send(Json { { "type", "review" }, { "id", id }, { "action", "approve" } });
    const auto approved = SteadyClock::now();
    const std::optional<Message> decision = p.agent.next("decision", 10'000);
    if (!decision || decision->json.value("decision", std::string()) != "allow") {
        *error = QStringLiteral("the approval of %1 never reached the agent")
                     .arg(QString::fromStdString(id));
        return false;
    }
    p.decisionMs.push_back(msBetween(approved, decision->at));
    p.agent.clear();
    p.reviewer.clear();
    return true;
}

struct Burst
{
    double offeredPerSecond = 0;
    double visiblePerSecond = 0;
    std::vector<double> lagMs; // call sent → the reviewer console sees it
    double drainMs = 0; // last call sent → the last one seen
};

// `rate` escalations a second for `seconds`, spread over agents on every
// gateway, counted as they reach a reviewer on `console`.
Burst burst(const std::vector<std::unique_ptr<Child>> &gateways, const Child &console, int rate,
    double seconds, QString *error)
{
    Burst b;
    constexpr int agentsPerGateway = 4;
    std::vector<std::unique_ptr<Peer>> agents;
    for (const auto &g : gateways) {
        for (int i = 0; i < agentsPerGateway; ++i) {
            auto agent = std::make_unique<Peer>();
            if (!agent->connectAs(g->url, g->agentToken, "agent", error))
                return b;
            agent->onMessage = [](const Message &) {}; // pending notices, not needed
            agents.push_back(std::move(agent));
        }
    }
    const int total = int(rate * seconds);
    std::map<std::string, SteadyClock::time_point> sentAt;
    std::vector<SteadyClock::time_point> seenAt;
    seenAt.reserve(std::size_t(total));
    QEventLoop loop;
    Peer reviewer;
    if (!reviewer.connectAs(console.url, console.reviewerToken, "reviewer", error))
        return b;
    SteadyClock::time_point start;
    reviewer.onMessage = [&](const Message &m) {
        if (m.json.value("type", std::string()) != "escalated")
            return;
        const auto it = sentAt.find(m.json["item"].value("call_id", std::string()));
        if (it == sentAt.end())
            return;
        b.lagMs.push_back(msBetween(it->second, m.at));
        seenAt.push_back(m.at);
        if (int(seenAt.size()) == total)
            loop.quit();
    };

    // Paced by the clock, not by the timer's count, so a late tick catches up.
    start = SteadyClock::now();
    int sent = 0;
    QTimer pace;
    pace.setTimerType(Qt::PreciseTimer);
    QObject::connect(&pace, &QTimer::timeout, &loop, [&] {
        const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
        const int due = std::min(total, int(elapsed * rate));
        for (; sent < due; ++sent) {
            const std::string callId = "b" + std::to_string(sent);
            agents[std::size_t(sent) % agents.size()]->send(
                Json { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", "deploy" },
                    { "args", { { "target", "staging" }, { "build", sent } } } });
            sentAt[callId] = SteadyClock::now();
        }
        if (sent == total)
            pace.stop();
    });
    pace.start(2);
    QTimer watchdog;
    watchdog.setSingleShot(true);
    QObject::connect(&watchdog, &QTimer::timeout, &loop, &QEventLoop::quit);
    watchdog.start(int(seconds * 1000) + 30'000);
    loop.exec();
    if (int(seenAt.size()) < total) {
        *error = QStringLiteral(
            "%1 of %2 escalations reached the reviewer console within 30 s of the last")
                     .arg(seenAt.size())
                     .arg(total);
        return b;
    }
    const auto lastSent
        = std::max_element(sentAt.begin(), sentAt.end(), [](const auto &a, const auto &c) {
              return a.second < c.second;
          })->second;
    const auto lastSeen = *std::max_element(seenAt.begin(), seenAt.end());
    b.offeredPerSecond = total / std::chrono::duration<double>(lastSent - start).count();
    b.visiblePerSecond = total / std::chrono::duration<double>(lastSeen - start).count();
    b.drainMs = msBetween(lastSent, lastSeen);
    return b;
}

// A database of its own for one part of the scenario: migrated, its
// reviewer "bench" mapped to the cluster's login.
bool freshDatabase(test::PgCluster &pg, const QString &name, QString *error)
{
    if (!pg.createDatabase(name)) {
        *error = pg.lastError();
        return false;
    }
    try {
        auto c = team::connect(pg.connString(name).toStdString());
        team::migrate(*c);
        pqxx::nontransaction tx(*c);
        tx.exec(test::PgCluster::mapReviewersSql(pg.adminUser(), { QStringLiteral("bench") })
                    .toStdString());
    } catch (const std::exception &e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

// `gateways` gateways and a reviewer console on `database`. With `asVersion`,
// every one of them acts as an instance of that schema version
// (HOLDPOINT_TEAM_AS_VERSION, TEAM.md "Versions").
struct Fleet
{
    std::vector<std::unique_ptr<Child>> gateways;
    std::unique_ptr<Child> console;
};

Fleet startFleet(const test::PgCluster &pg, const QString &database, const QString &root,
    int gateways, int asVersion, QString *error)
{
    Fleet f;
    const QStringList team { QStringLiteral("--team"), pg.connString(database) };
    if (asVersion)
        qputenv("HOLDPOINT_TEAM_AS_VERSION", QByteArray::number(asVersion));
    for (int i = 1; i <= gateways && error->isEmpty(); ++i) {
        auto g
            = startConsole(root, error, team, QStringLiteral("%1-gateway%2").arg(database).arg(i));
        if (g)
            f.gateways.push_back(std::move(g));
    }
    if (error->isEmpty())
        f.console = startConsole(root, error,
            team + QStringList { QStringLiteral("--reviewer"), QStringLiteral("bench") },
            database + QStringLiteral("-console"));
    qunsetenv("HOLDPOINT_TEAM_AS_VERSION");
    return f;
}

// Resident memory of a process, from /proc (bytes; 0 if unreadable).
double rssBytes(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (QByteArray line = f.readLine(); !line.isEmpty(); line = f.readLine())
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() * 1024;
    return 0;
}

// `total` escalations at 1000/s spread over agents on `at`, until a reviewer
// on each of `watch` has seen every one. Returns, per watched instance, the
// ms from the last call sent until it had them all; empty with `error` set
// if one did not within 60 s.
std::vector<double> escalateUntilSeen(const std::vector<const Child *> &at,
    const std::vector<const Child *> &watch, int total, QString *error)
{
    std::vector<std::unique_ptr<Peer>> agents;
    for (const Child *g : at) {
        for (int i = 0; i < 4; ++i) {
            auto agent = std::make_unique<Peer>();
            if (!agent->connectAs(g->url, g->agentToken, "agent", error))
                return {};
            agent->onMessage = [](const Message &) {};
            agents.push_back(std::move(agent));
        }
    }
    QEventLoop loop;
    std::vector<std::unique_ptr<Peer>> reviewers;
    std::vector<int> seen(watch.size(), 0);
    std::vector<SteadyClock::time_point> done(watch.size());
    int complete = 0;
    for (std::size_t w = 0; w < watch.size(); ++w) {
        auto r = std::make_unique<Peer>();
        if (!r->connectAs(watch[w]->url, watch[w]->reviewerToken, "reviewer", error))
            return {};
        r->onMessage = [&, w](const Message &m) {
            if (m.json.value("type", std::string()) != "escalated"
                || m.json["item"].value("call_id", std::string()).rfind("s", 0) != 0)
                return;
            if (++seen[w] == total) {
                done[w] = m.at;
                if (++complete == int(watch.size()))
                    loop.quit();
            }
        };
        reviewers.push_back(std::move(r));
    }
    const auto start = SteadyClock::now();
    SteadyClock::time_point lastSent = start;
    int sent = 0;
    QTimer pace;
    pace.setTimerType(Qt::PreciseTimer);
    QObject::connect(&pace, &QTimer::timeout, &loop, [&] {
        const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
        for (const int due = std::min(total, int(elapsed * 1000)); sent < due; ++sent)
            agents[std::size_t(sent) % agents.size()]->send(Json { { "type", "tool_call" },
                { "call_id", "s" + std::to_string(sent) }, { "tool_name", "deploy" },
                { "args", { { "target", "staging" }, { "build", sent } } } });
        if (sent == total) {
            lastSent = SteadyClock::now();
            pace.stop();
        }
    });
    pace.start(2);
    QTimer watchdog;
    watchdog.setSingleShot(true);
    QObject::connect(&watchdog, &QTimer::timeout, &loop, &QEventLoop::quit);
    watchdog.start(total + 60'000);
    loop.exec();
    if (complete < int(watch.size())) {
        int least = total;
        for (int n : seen)
            least = std::min(least, n);
        *error = QStringLiteral(
            "%1 of %2 instances saw all %3 escalations; the one with the fewest saw %4")
                     .arg(complete)
                     .arg(watch.size())
                     .arg(total)
                     .arg(least);
        return {};
    }
    std::vector<double> out;
    for (const auto &t : done)
        out.push_back(std::max(0.0, msBetween(lastSent, t)));
    return out;
}

// Starts a reviewer console on `extra` and times it from the process's start
// until its reviewer has `total` pending items in view.
double startUntilInView(
    const QString &root, const QString &name, const QStringList &extra, int total, QString *error)
{
    const auto start = SteadyClock::now();
    auto console = startConsole(root, error, extra, name);
    if (!console)
        return 0;
    Peer reviewer;
    if (!reviewer.connectAs(console->url, console->reviewerToken, "reviewer", error))
        return 0;
    std::set<std::string> ids;
    for (const Json &item : reviewer.queue.value("items", Json::array()))
        ids.insert(item.value("id", std::string()));
    SteadyClock::time_point all = SteadyClock::now();
    while (const std::optional<Message> m = reviewer.next("escalated", 0)) {
        ids.insert(m->json["item"].value("id", std::string()));
        all = m->at;
    }
    if (int(ids.size()) >= total)
        return msBetween(start, all);
    QEventLoop loop;
    reviewer.onMessage = [&](const Message &m) {
        if (m.json.value("type", std::string()) == "escalated")
            ids.insert(m.json["item"].value("id", std::string()));
        if (int(ids.size()) >= total) {
            all = m.at;
            loop.quit();
        }
    };
    QTimer::singleShot(60'000, &loop, &QEventLoop::quit);
    loop.exec();
    if (int(ids.size()) < total) {
        *error
            = QStringLiteral("a console started against %1 pending items had %2 in view after 60 s")
                  .arg(total)
                  .arg(ids.size());
        return 0;
    }
    return msBetween(start, all);
}

} // namespace

void teamScenario(bool quick, Table *table)
{
    test::PgCluster pg;
    test::PgCluster::Options durable;
    durable.durable = true;
    if (!pg.start(durable)) {
        if (pg.lastError().startsWith(QStringLiteral("no PostgreSQL server binaries")))
            return table->skip("team", pg.lastError().toStdString());
        return table->fail("team", pg.lastError().toStdString());
    }
    if (!pg.createDatabase(QStringLiteral("bench")))
        return table->fail("team", pg.lastError().toStdString());
    // The reviewer console decides as "bench", which its login maps to.
    try {
        auto c = team::connect(pg.connString(QStringLiteral("bench")).toStdString());
        team::migrate(*c);
        pqxx::nontransaction tx(*c);
        tx.exec(test::PgCluster::mapReviewersSql(pg.adminUser(), { QStringLiteral("bench") })
                    .toStdString());
    } catch (const std::exception &e) {
        return table->fail("team", e.what());
    }
    const QStringList team { QStringLiteral("--team"), pg.connString(QStringLiteral("bench")) };

    QTemporaryDir tmp;
    QString error;
    auto alone = startConsole(tmp.path(), &error, {}, QStringLiteral("alone"));
    auto gateway = startConsole(tmp.path(), &error, team, QStringLiteral("gateway"));
    auto console = startConsole(tmp.path(), &error,
        team + QStringList { QStringLiteral("--reviewer"), QStringLiteral("bench") },
        QStringLiteral("reviewer"));
    if (!alone || !gateway || !console)
        return table->fail("team", error.toStdString());

    // Escalation and decision latency, interleaved call by call.
    Pair local, remote;
    if (!local.agent.connectAs(alone->url, alone->agentToken, "agent", &error)
        || !local.reviewer.connectAs(alone->url, alone->reviewerToken, "reviewer", &error)
        || !remote.agent.connectAs(gateway->url, gateway->agentToken, "agent", &error)
        || !remote.reviewer.connectAs(console->url, console->reviewerToken, "reviewer", &error))
        return table->fail("team", error.toStdString());
    const int rounds = quick ? 40 : 400;
    for (int i = 0; i < rounds + 5; ++i) {
        if (!escalateAndApprove(local, &error) || !escalateAndApprove(remote, &error))
            return table->fail("team", error.toStdString());
        if (i == 4) { // warm-up
            for (Pair *p : { &local, &remote }) {
                p->escalationMs.clear();
                p->decisionMs.clear();
            }
        }
    }
    const std::string n = std::to_string(rounds) + " escalations";
    for (const auto &[name, p] : { std::pair { "p50", 0.5 }, std::pair { "p99", 0.99 } }) {
        const bool median = p == 0.5;
        table->add({ "team", "escalated at a gateway, seen in a second console, " + n, name, "ms",
            percentile(remote.escalationMs, p), "one console alone",
            percentile(local.escalationMs, p), median ? "at most 10 ms" : "" });
        table->add({ "team", "approved in a second console, at the gateway's agent, " + n, name,
            "ms", percentile(remote.decisionMs, p), "one console alone",
            percentile(local.decisionMs, p), median ? "at most 10 ms" : "" });
    }

    // The auto-decided path: a gateway against the same console without --team.
    const int calls = quick ? 500 : 10'000;
    std::vector<double> withTeam, without;
    const int parts = quick ? 3 : 10;
    sequentialCalls(gateway->url, gateway->agentToken, calls / 10 + 1, &error);
    sequentialCalls(alone->url, alone->agentToken, calls / 10 + 1, &error);
    for (int part = 0; part < parts && error.isEmpty(); ++part) {
        const std::vector<double> t
            = sequentialCalls(gateway->url, gateway->agentToken, calls / parts, &error);
        const std::vector<double> a
            = sequentialCalls(alone->url, alone->agentToken, calls / parts, &error);
        withTeam.insert(withTeam.end(), t.begin(), t.end());
        without.insert(without.end(), a.begin(), a.end());
    }
    if (!error.isEmpty())
        return table->fail("team", error.toStdString());
    for (const auto &[name, p] : { std::pair { "p50", 0.5 }, std::pair { "p99", 0.99 } })
        table->add({ "team",
            "auto-allowed rtt at a gateway, " + std::to_string(withTeam.size()) + " calls", name,
            "µs", percentile(withTeam, p), "the same console without --team",
            percentile(without, p), p == 0.5 ? "within 5%" : "" });

    // A sustained burst over four gateways, twice, each fleet on a database
    // of its own: first every instance as schema version 3 has them (one
    // notification and one read per item), then as they are now.
    gateway.reset();
    console.reset();
    const int rate = 1000;
    const double seconds = quick ? 2 : 10;
    Burst bursts[2];
    for (int asVersion : { 3, 0 }) {
        const QString db
            = asVersion ? QStringLiteral("burst_v%1").arg(asVersion) : QStringLiteral("burst");
        if (!freshDatabase(pg, db, &error))
            return table->fail("team", error.toStdString());
        Fleet f = startFleet(pg, db, tmp.path(), 4, asVersion, &error);
        if (!error.isEmpty())
            return table->fail("team", error.toStdString());
        bursts[asVersion ? 0 : 1] = burst(f.gateways, *f.console, rate, seconds, &error);
        if (!error.isEmpty())
            return table->fail("team", error.toStdString());
    }
    const Burst &old = bursts[0], &b = bursts[1];
    const std::string variant
        = std::to_string(int(rate * seconds)) + " escalations over 4 gateways";
    const std::string perItem = "per item (schema 3)";
    table->add({ "team", variant, "seen/s", "1/s", b.visiblePerSecond, "offered",
        b.offeredPerSecond, "1000/s sustained" });
    table->add({ "team", variant, "lag p50", "ms", percentile(b.lagMs, 0.5), perItem,
        percentile(old.lagMs, 0.5), "" });
    table->add({ "team", variant, "lag p99", "ms", percentile(b.lagMs, 0.99), perItem,
        percentile(old.lagMs, 0.99), "at most 50 ms" });
    table->add({ "team", variant, "drain after the last", "ms", b.drainMs, perItem, old.drainMs,
        "no backlog" });
    table->add({ "team", variant, "per item: lag p99", "ms", percentile(old.lagMs, 0.99),
        "one escalation at a time", percentile(remote.escalationMs, 0.99), "" });

    // Scale: many gateways and a long queue, every instance converging on it.
    const int scaleGateways = quick ? 3 : 20;
    const int items = quick ? 500 : 10'000;
    if (!freshDatabase(pg, QStringLiteral("scale"), &error))
        return table->fail("team", error.toStdString());
    Fleet scale = startFleet(pg, QStringLiteral("scale"), tmp.path(), scaleGateways, 0, &error);
    if (!error.isEmpty())
        return table->fail("team", error.toStdString());
    std::vector<const Child *> at, every;
    for (const auto &g : scale.gateways) {
        at.push_back(g.get());
        every.push_back(g.get());
    }
    every.push_back(scale.console.get());
    // One console alone first, with the same calls: its memory and its drain.
    const double aloneBefore = rssBytes(alone->process->processId());
    const std::vector<double> aloneDrain
        = escalateUntilSeen({ alone.get() }, { alone.get() }, items, &error);
    const double aloneAfter = rssBytes(alone->process->processId());
    const double teamBefore = rssBytes(scale.console->process->processId());
    const std::vector<double> drains = escalateUntilSeen(at, every, items, &error);
    const double teamAfter = rssBytes(scale.console->process->processId());
    if (!error.isEmpty())
        return table->fail("team", error.toStdString());
    const std::string scaled
        = std::to_string(items) + " pending over " + std::to_string(scaleGateways) + " gateways";
    table->add({ "team", scaled, "every instance has all, after the last sent", "ms",
        *std::max_element(drains.begin(), drains.end()), "one console alone", aloneDrain.front(),
        "all " + std::to_string(scaleGateways + 1) + " converge" });
    table->add({ "team", scaled, "console memory per item (RSS)", "bytes",
        (teamAfter - teamBefore) / items, "one console alone", (aloneAfter - aloneBefore) / items,
        "" });
    const QStringList join { QStringLiteral("--team"), pg.connString(QStringLiteral("scale")),
        QStringLiteral("--reviewer"), QStringLiteral("bench") };
    const double startTeam
        = startUntilInView(tmp.path(), QStringLiteral("scale-late"), join, items, &error);
    const double startAlone
        = startUntilInView(tmp.path(), QStringLiteral("alone-late"), {}, 0, &error);
    if (!error.isEmpty())
        return table->fail("team", error.toStdString());
    table->add({ "team", scaled, "console start until all in view", "ms", startTeam,
        "one console alone, empty", startAlone, "" });
}

} // namespace holdpoint::bench
