// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page's TCP (or TLS) listener. Qt HTTP Server reads a whole
// request, body included, before its handler sees any of it, with no limit
// and no deadline; this listener puts a guard on every socket first, which
// answers 413 once a request passes the cap and 408 when one takes too long
// to arrive, before the bytes pile up, and closes connections that stay
// silent, never finish their TLS handshake, or would pass the caps on open
// connections. At a cap, the connection that has carried no session and
// has waited longest (idle, or trickling a request's bytes) makes room for
// the new one; a connection that carried a valid session (trust()) is never
// closed for another. It also frames every request itself (httpframing.h) before
// Qt's parser reads a byte: a request it cannot frame is answered 400 and
// its connection closed with nothing after it read (RFC 9112 §6.3).

#include <QHash>
#include <QSslConfiguration>
#include <QTcpServer>

#include <optional>
#include <vector>

namespace holdpoint {

class ConnectionGuard;

struct WebListenerLimits
{
    qint64 maxRequestBytes = 64 * 1024; // request line, headers and body
    int requestMs = 10'000; // from a request's first byte to its last
    int idleMs = 30'000; // a kept-alive connection with no request this long is closed
    int maxConnections = 256;
    int maxConnectionsPerPeer = 64; // behind a proxy, every page is one address
    // Qt's parser's own limit (httpframing.h); above it only in a test.
    int maxHeaderFields = 100;
};

class WebListener final : public QTcpServer
{
    Q_OBJECT
public:
    // With `tls`, every connection is TLS (QSslServer's job, done here so
    // the guard is on the socket before the first byte is read).
    WebListener(
        WebListenerLimits limits, std::optional<QSslConfiguration> tls, QObject *parent = nullptr);

    bool tls() const { return m_tls.has_value(); }
    int openConnections() const { return m_open; }
    // True for a socket whose request the guard refused: the handler must
    // not act on what Qt may still have parsed from it.
    static bool refused(const QObject *socket);
    // The handler has a whole request, as Qt's parser read it: `fields`
    // field lines and a body of `bodyBytes`. Its deadline stops; if Qt's
    // reading is not the listener's own (another count of fields, another
    // body, bytes left unread), the request is refused and the connection
    // closed, and refused() says so.
    static void requestDone(QObject *socket, qsizetype fields, qint64 bodyBytes);
    // The socket became a WebSocket: its limits are the feed's own now.
    static void handOver(QObject *socket);
    // The socket carried a valid session (a request answered for one, or a
    // live feed that proved its device key): no other connection's arrival
    // closes it.
    static void trust(QObject *socket);
    // An answer the handler gives later (a team review): until it is
    // released, a byte that arrives is a request sent before the answer,
    // refused with 400 rather than answered out of order.
    static void hold(QObject *socket, bool held);

Q_SIGNALS:
    // A connection the guard closed, and why (for the record; no secrets).
    void guardRefused(const QString &peer, const QString &why);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    friend class ConnectionGuard;
    void admit(QTcpSocket *socket);
    void closed(ConnectionGuard *guard, const QString &peer);
    // At a cap: closes the untrusted connection (of `peer` only, when
    // given) that has waited longest; false when every one is trusted.
    bool makeRoom(const QString *peer);

    WebListenerLimits m_limits;
    std::optional<QSslConfiguration> m_tls;
    int m_open = 0;
    QHash<QString, int> m_perPeer;
    std::vector<ConnectionGuard *> m_guards; // every connection counted, oldest first
};

} // namespace holdpoint
