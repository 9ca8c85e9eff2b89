#pragma once

// The pure parts of the MCP stdio proxy: newline-delimited JSON-RPC framing
// (MCP 2025-06-18 "Transports", stdio) and telling messages apart.

#include "common/json.h"

#include <QByteArray>

#include <optional>
#include <string>
#include <vector>

namespace holdpoint::mcp {

// Splits a byte stream into lines. A line longer than `maxLine` is dropped
// whole (its remainder too) and reported, so one huge message cannot make the
// proxy buffer without bound.
class LineFramer
{
public:
    explicit LineFramer(qsizetype maxLine = 64 * 1024 * 1024)
        : m_max(maxLine)
    {
    }
    // Appends bytes; complete lines (without the newline or a trailing \r)
    // go to `lines`, and each dropped oversized line adds one to `dropped`.
    void feed(const char *data, qsizetype size, std::vector<QByteArray> *lines, int *dropped);
    // What is left without a newline at the end of the stream.
    QByteArray takeRest() { return std::exchange(m_buffer, {}); }

private:
    QByteArray m_buffer;
    qsizetype m_max;
    bool m_discarding = false;
};

enum class Kind { Request, Notification, Response, Invalid };

struct Message
{
    Kind kind = Kind::Invalid;
    std::string method;
    Json id;         // requests and responses
    Json json;       // the whole message (null when Invalid)
};

// JSON-RPC 2.0: a request has method and id, a notification method only,
// a response id and result or error. Anything else is Invalid (and is passed
// through untouched by the proxy).
Message classify(const QByteArray &line);

// The result the proxy answers a tools/call with when it must not run.
Json errorResult(const Json &id, const std::string &text);

} // namespace holdpoint::mcp
