// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "protocol/protocol.h"

#include <QtGlobal>

#include <string>

namespace holdpoint {

using ConnectionId = quint64;

// RFC 6455 §7.4.1 close codes we use.
enum class CloseCode : quint16
{
    Normal = 1000,
    GoingAway = 1001,
    ProtocolError = 1002,
    PolicyViolation = 1008,
    TooBig = 1009,
};

// What decision logic may do to a connection. Implemented by the Endpoint
// over real sockets and by tests over a recorder. Neither call re-enters the
// handler: a disconnect they cause is reported after they return.
class Outbound
{
public:
    virtual ~Outbound() = default;
    virtual void send(ConnectionId connection, const std::string &text) = 0;
    virtual void close(ConnectionId connection, CloseCode code, const std::string &reason) = 0;
};

struct HelloOutcome
{
    std::string sessionId;
    bool resumed = false;
};

// Receives authenticated, parsed messages. Never sees a socket.
class MessageHandler
{
public:
    virtual ~MessageHandler() = default;
    // The hello's token has been checked and its role granted; the handler
    // answers with welcome.
    virtual HelloOutcome onHello(ConnectionId connection, const protocol::Hello &hello) = 0;
    virtual void onMessage(ConnectionId connection, protocol::Message &&message) = 0;
    virtual void onDisconnected(ConnectionId connection) = 0;
};

} // namespace holdpoint
