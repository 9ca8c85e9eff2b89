// SPDX-License-Identifier: Apache-2.0
#pragma once

// A blocking RFC 6455 client on one POSIX socket, for a process that makes
// one exchange and exits (a hook an agent CLI starts per tool call): no
// event loop, no Qt. It checks the server's Sec-WebSocket-Accept (§4.1),
// masks what it sends (§5.3), answers pings (§5.5.2), joins fragmented
// messages (§5.4), answers a close (§5.5.1), refuses a message larger
// than MaxMessageBytes (closing with 1009, §7.4.1) and a text message that
// is not UTF-8 (1007, §8.1), and skips binary messages.

#include "wire/endpoint.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace holdpoint::wire {

// CLOCK_MONOTONIC in milliseconds, for deadlines.
std::int64_t monotonicMs();

class WebSocketClient final
{
public:
    // The largest message taken from the server: a decision carries a call's
    // arguments, which the console takes up to 1 MiB by default
    // (--max-message-bytes); the hook's own input may be 16 MiB.
    static constexpr std::size_t MaxMessageBytes = 32 * 1024 * 1024;
    // The server's handshake response, headers included.
    static constexpr std::size_t MaxHandshakeBytes = 16 * 1024;
    static constexpr std::int64_t NoDeadline = -1;

    WebSocketClient() = default;
    WebSocketClient(const WebSocketClient &) = delete;
    WebSocketClient &operator=(const WebSocketClient &) = delete;
    ~WebSocketClient();

    // Connects and completes the opening handshake by `deadlineMs`
    // (monotonicMs()). On failure *error says why ("Connection refused").
    // `meanwhile`, if set, runs once the request is sent and before the
    // response is read: work that overlaps the server's (§4.1 lets the
    // client send nothing more until the response).
    bool open(const WsUrl &url, std::int64_t deadlineMs, std::string *error,
        const std::function<void()> &meanwhile = {});

    // One text message in one frame.
    bool sendText(std::string_view text, std::string *error);
    // A ping (§5.5.2); the server's pong, as any byte from it, moves
    // lastHeardMs().
    bool sendPing(std::string *error);
    // When bytes last came from the server (monotonicMs()).
    std::int64_t lastHeardMs() const { return m_lastHeardMs; }
    // Whether open() failed because nothing listens there (ECONNREFUSED):
    // the one network failure that means "no console" (wire/failopen.h).
    bool refused() const { return m_refused; }

    enum class Result
    {
        Message,
        Closed,
        Dropped,
        Failed,
        TimedOut
    };
    // The next text message. Closed: the server sent a close frame
    // (closeCode() and closeReason() say why); Dropped: the connection
    // ended without one, or a socket error (in *error); Failed: the server
    // broke the protocol (a masked or reserved frame, a bad control frame,
    // frames out of order, a message too large or not UTF-8), in *error,
    // and this client closed with 1002, 1007 or 1009. A read that times out
    // keeps what it had of a fragmented message: the next read goes on.
    Result read(std::string *message, std::int64_t deadlineMs, std::string *error);

    // Sends a close frame (once) and closes the socket.
    void close(std::uint16_t code = 1000);

    std::uint16_t closeCode() const { return m_closeCode; }
    const std::string &closeReason() const { return m_closeReason; }

private:
    bool sendFrame(int opcode, std::string_view payload, std::string *error);
    bool sendAll(std::string_view bytes, std::string *error);
    // More bytes (at most `most`) into m_in; a result other than Message
    // when none came.
    Result fill(std::int64_t deadlineMs, std::string *error, std::size_t most = 64 * 1024);
    // Fails the connection: a close frame with `code`, then the socket.
    Result failWith(std::uint16_t code, const std::string &why, std::string *error);

    int m_fd = -1;
    std::string m_in; // received, not yet parsed
    bool m_closeSent = false;
    std::string m_assembled; // a fragmented message so far
    int m_messageOpcode = -1; // the data frame that started m_assembled; -1: none
    std::int64_t m_lastHeardMs = 0;
    bool m_refused = false;
    std::uint16_t m_closeCode = 1006;
    std::string m_closeReason;
};

} // namespace holdpoint::wire
