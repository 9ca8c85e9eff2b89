// SPDX-License-Identifier: Apache-2.0
#pragma once

// The loopback endpoint's settings (endpoint.h), apart from the endpoint so
// that the console's options can be spelled without it.

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <string>

namespace holdpoint {

struct EndpointConfig
{
    quint16 port = 0; // 0 picks a free port
    qint64 maxMessageBytes = 1024 * 1024; // larger messages close with 1009
    int maxConnections = 512; // beyond it new connections close with 1008
    int handshakeTimeoutMs = 5000; // HTTP upgrade must finish within this
    int helloTimeoutMs = 5000; // hello must arrive within this, or 1008
    // A connection silent this long (no message, no answer to our pings,
    // e.g. stalled in the middle of a frame) is closed. Pings go out every
    // third of it. An agent waiting for a person answers pings, so waiting
    // is never silence.
    int idleTimeoutMs = 90'000;
    qint64 maxBufferedBytes = 16 * 1024 * 1024; // unread output per client before it is dropped
    QStringList allowedOrigins; // exact Origin values; empty admits none
    QByteArray agentToken;
    QByteArray reviewerToken;
    // Alone mode's other reviewers (common/reviewertokens.h): a reviewer
    // hello with one of their tokens is that person. Reread when it
    // changes; empty: only reviewerToken admits reviewers.
    QString reviewersFile;
    // The console's own reviewer: no entry there may take this name.
    std::string ownerName;
};

} // namespace holdpoint
