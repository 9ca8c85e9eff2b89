// SPDX-License-Identifier: Apache-2.0
#pragma once

// The HTTP face of the metrics: /metrics for Prometheus, /healthz and
// /readyz for a service manager or an orchestrator. Plain HTTP on a
// loopback address only; a scraper elsewhere goes through a local agent or
// a proxy that terminates TLS (README, "Team mode").
//
// It answers GET and HEAD, and nothing else (405). A request's head is
// capped (MaxRequestHeadBytes, 431), its time too (RequestMs), and so is
// the number of connections open at once. One request per connection.

#include "metrics/registry.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>

#include <functional>
#include <memory>
#include <unordered_map>

class QTcpServer;
class QTcpSocket;

namespace holdpoint::metrics {

// Where --metrics listens: a loopback address and a port (0: a free one).
struct Address
{
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = 0;
};

// Parses --metrics ADDRESS:PORT ("127.0.0.1:9788", "[::1]:9788",
// "localhost:9788"). Any address but loopback is refused, saying how to
// scrape from elsewhere.
bool parseAddress(const QString &text, Address *out, QString *error);

// A request's start line and the one header that matters here
// (RFC 9112 §3: method SP request-target SP HTTP-version; §3.2: Host).
struct RequestHead
{
    enum class Status
    {
        Incomplete, // no blank line yet
        Complete,
        Malformed,
    };
    Status status = Status::Incomplete;
    QByteArray method;
    QByteArray path; // without the query
    QByteArray host; // empty when absent
};
inline constexpr qsizetype MaxRequestHeadBytes = 8 * 1024;
RequestHead parseRequestHead(const QByteArray &bytes);

struct Response
{
    int status = 200;
    QByteArray reason;
    QByteArray contentType = "text/plain; charset=utf-8";
    QByteArray body;
    bool allowHeader = false; // 405: Allow: GET, HEAD
};

// What a complete request gets. `notReady` says why the instance is not
// ready (empty: it is); `port` is the one listened on, for the Host check.
struct Routes
{
    const Registry *registry = nullptr;
    std::function<QString()> notReady;
    quint16 port = 0;
};
Response answer(const RequestHead &head, const Routes &routes);
// The bytes on the wire; a HEAD gets the headers alone.
QByteArray serialize(const Response &response, bool withBody);

class Server final : public QObject
{
    Q_OBJECT
public:
    // A scraper sends its request as it connects; a connection that has
    // not, by then, is dropped. When MaxConnections are open, the oldest that
    // has not sent its request makes room for a new one, so idle
    // connections cannot keep /healthz from answering.
    static constexpr int RequestMs = 2'000;
    static constexpr int MaxConnections = 16;

    // `registry` outlives the server.
    Server(const Registry *registry, std::function<QString()> notReady, QObject *parent = nullptr);
    ~Server() override;

    bool listen(const Address &address, QString *error);
    quint16 port() const;
    // http://127.0.0.1:PORT
    QString url() const;

private:
    // A connection's request head so far; answered once it is complete.
    struct Pending
    {
        QByteArray head;
        bool answered = false;
        quint64 order = 0; // when it connected, among this server's connections
    };
    void onConnection();
    void onReadyRead(QTcpSocket *socket, Pending &pending);

    Routes m_routes;
    std::unique_ptr<QTcpServer> m_server;
    std::unordered_map<QTcpSocket *, Pending> m_open;
    quint64 m_connections = 0;
};

} // namespace holdpoint::metrics
