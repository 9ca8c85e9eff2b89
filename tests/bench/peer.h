// SPDX-License-Identifier: Apache-2.0
#pragma once

// A protocol client for the scenarios that time a person's decision: its
// waits run the event loop until a message arrives, so a latency is not
// rounded up to a polling period.

#include "bench.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QTimer>
#include <QWebSocket>

#include <deque>
#include <functional>
#include <optional>

namespace holdpoint::bench {

struct Message
{
    Json json;
    SteadyClock::time_point at; // when it was read off the socket
};

inline double msBetween(SteadyClock::time_point from, SteadyClock::time_point to)
{
    return std::chrono::duration<double, std::milli>(to - from).count();
}

class Peer final : public QObject
{
public:
    // Once connected: called for every message instead of keeping it.
    std::function<void(const Message &)> onMessage;
    // A reviewer's: the queue as it was when it connected.
    Json queue;

    bool connectAs(
        const QUrl &url, const QByteArray &token, const std::string &role, QString *error)
    {
        connect(&m_ws, &QWebSocket::textMessageReceived, this, [this](const QString &text) {
            Message m { Json::parse(text.toStdString(), nullptr, false), SteadyClock::now() };
            if (onMessage)
                onMessage(m);
            else
                m_inbox.push_back(std::move(m));
            if (m_loop)
                m_loop->quit();
        });
        connect(&m_ws, &QWebSocket::connected, this, [this, token, role] {
            for (QAbstractSocket *tcp : m_ws.findChildren<QAbstractSocket *>())
                tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            send(Json { { "type", "hello" }, { "protocol", 1 }, { "token", token.toStdString() },
                { "role", role }, { "agent", { { "name", "bench" } } } });
        });
        connect(&m_ws, &QWebSocket::disconnected, this, [this] {
            m_closed = true;
            if (m_loop)
                m_loop->quit();
        });
        m_ws.open(url);
        if (!next("welcome", 10'000)) {
            *error = QStringLiteral("no welcome from %1 as %2")
                         .arg(url.toString(), QString::fromStdString(role));
            return false;
        }
        if (role == "reviewer") {
            std::optional<Message> q = next("queue", 10'000);
            if (!q) {
                *error = QStringLiteral("no queue from %1").arg(url.toString());
                return false;
            }
            queue = std::move(q->json);
        }
        return true;
    }

    void send(const Json &j) { m_ws.sendTextMessage(QString::fromStdString(dumpJson(j))); }

    // The first message of `type`, waiting up to `timeoutMs` for it.
    std::optional<Message> next(const std::string &type, int timeoutMs)
    {
        const QDeadlineTimer deadline(timeoutMs);
        for (;;) {
            for (auto it = m_inbox.begin(); it != m_inbox.end(); ++it) {
                if (it->json.value("type", std::string()) == type) {
                    Message m = std::move(*it);
                    m_inbox.erase(it);
                    return m;
                }
            }
            if (m_closed || deadline.hasExpired())
                return std::nullopt;
            QEventLoop loop;
            m_loop = &loop;
            QTimer::singleShot(
                std::max<qint64>(1, deadline.remainingTime()), &loop, &QEventLoop::quit);
            loop.exec();
            m_loop = nullptr;
        }
    }

    void clear() { m_inbox.clear(); }

private:
    QWebSocket m_ws;
    std::deque<Message> m_inbox;
    QEventLoop *m_loop = nullptr;
    bool m_closed = false;
};

} // namespace holdpoint::bench
