#pragma once

// The reviewer page's TCP (or TLS) listener. Qt HTTP Server reads a whole
// request, body included, before its handler sees any of it, with no limit;
// this listener puts a guard on every socket first, which answers 413 and
// closes the connection once a request passes the cap, before the bytes
// pile up. It also ends connections that stay silent or never finish their
// TLS handshake.

#include <QSslConfiguration>
#include <QTcpServer>

#include <optional>

namespace holdpoint {

struct WebListenerLimits
{
    qint64 maxRequestBytes = 64 * 1024; // request line, headers and body
    int idleMs = 60'000; // a connection with no bytes this long is closed
    int maxConnections = 256;
};

class WebListener final : public QTcpServer
{
    Q_OBJECT
public:
    // With `tls`, every connection is TLS (QSslServer's job, done here so
    // the guard is on the socket before the first byte is read).
    WebListener(WebListenerLimits limits, std::optional<QSslConfiguration> tls, QObject *parent = nullptr);

    bool tls() const { return m_tls.has_value(); }
    // True for a socket whose request the guard refused: the handler must
    // not act on what Qt may still have parsed from it.
    static bool refused(const QObject *socket);
    // The socket became a WebSocket: its idle limit is the feed's own now.
    static void handOver(QObject *socket);

Q_SIGNALS:
    // A connection the guard closed, and why (for the record; no secrets).
    void guardRefused(const QString &peer, const QString &why);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    void admit(QTcpSocket *socket);
    void guard(QTcpSocket *socket);
    void refuse(QTcpSocket *socket, int status, const char *error, const QString &why);

    WebListenerLimits m_limits;
    std::optional<QSslConfiguration> m_tls;
    int m_open = 0;
};

} // namespace holdpoint
