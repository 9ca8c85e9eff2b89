// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pure parts of the MCP stdio proxy: newline-delimited JSON-RPC framing
// (MCP 2025-06-18 "Transports", stdio) and telling messages apart.

#include "common/json.h"

#include <QByteArray>

#include <optional>
#include <string>
#include <vector>

namespace holdpoint::mcp {

// MCP 2025-06-18 "Transports", stdio: messages are delimited by newlines and
// must not contain embedded newlines. The proxy frames both directions, what
// the client sends and what the server sends, reading and writing, through
// this class alone, so the two directions cannot drift apart.
//
// Reading splits a byte stream into lines. A line longer than `maxLine` is
// dropped whole (its remainder too) and reported, so one huge message cannot
// make the proxy buffer without bound.
class LineFramer
{
public:
    static constexpr qsizetype DefaultMaxLine = 64 * 1024 * 1024;

    explicit LineFramer(qsizetype maxLine = DefaultMaxLine)
        : m_max(maxLine)
    { }
    // Appends bytes; complete lines (without the newline or a trailing \r)
    // go to `lines`, and each dropped oversized line adds one to `dropped`.
    // Empty lines are no messages and are skipped.
    void feed(const char *data, qsizetype size, std::vector<QByteArray> *lines, int *dropped);
    // What is left without a newline at the end of the stream, as it came (a
    // peer may end its last message with EOF instead of a newline). Empty
    // when only whitespace is left: that is no message.
    QByteArray takeRest();

    // Writing: one message as it goes on the wire. `line` is a message as
    // feed() yields it or compact JSON, neither of which holds a newline.
    static QByteArray frame(const QByteArray &line);

private:
    QByteArray m_buffer;
    qsizetype m_max;
    bool m_discarding = false;
};

enum class Kind
{
    Request,
    Notification,
    Response,
    Invalid
};

struct Message
{
    Kind kind = Kind::Invalid;
    std::string method;
    Json id; // requests and responses
    Json json; // the whole message (null when Invalid)
};

// JSON-RPC 2.0: a request has method and id, a notification method only,
// a response id and result or error. Anything else is Invalid (and is passed
// through untouched by the proxy).
Message classify(const QByteArray &line);

// The result the proxy answers a tools/call with when it must not run.
Json errorResult(const Json &id, const std::string &text);

} // namespace holdpoint::mcp
