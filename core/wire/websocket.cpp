// SPDX-License-Identifier: Apache-2.0
#include "websocket.h"

#include "wire/digest.h"
#include "wire/files.h"
#include "wire/utf8.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace holdpoint::wire {

namespace {

// RFC 6455 §5.2
enum Opcode
{
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA
};
constexpr char AcceptGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"; // §1.3

std::string lower(std::string s)
{
    for (char &c : s)
        c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
}

std::string trimmed(const std::string &s)
{
    const std::size_t a = s.find_first_not_of(" \t");
    const std::size_t b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Whether the comma-separated list `value` (RFC 7230 §7) names `token`.
bool hasToken(const std::string &value, const std::string &token)
{
    for (std::size_t at = 0; at <= value.size();) {
        std::size_t comma = value.find(',', at);
        if (comma == std::string::npos)
            comma = value.size();
        if (trimmed(value.substr(at, comma - at)) == token)
            return true;
        at = comma + 1;
    }
    return false;
}

// The handshake response's status line and headers (RFC 6455 §4.2.2, as a
// client checks them in §4.1): 101, Upgrade: websocket, Connection: Upgrade,
// and the accept value for our key. Empty when they hold; else why not.
std::string checkHandshake(const std::string &head, const std::string &key)
{
    const std::size_t eol = head.find("\r\n");
    const std::string status = head.substr(0, eol);
    // RFC 7230 §3.1.2: "HTTP/1.1" SP 3DIGIT SP reason; only 101 upgrades.
    const bool switching = status.size() >= 12 && status.compare(0, 9, "HTTP/1.1 ") == 0
        && status.compare(9, 3, "101") == 0 && (status.size() == 12 || status[12] == ' ');
    if (!switching)
        return "the console refused the WebSocket handshake (" + status.substr(0, 200) + ")";
    bool upgrade = false, connection = false, accept = false;
    const auto digest = sha1(key + AcceptGuid);
    const std::string expected
        = base64(std::string_view(reinterpret_cast<const char *>(digest.data()), digest.size()));
    for (std::size_t at = eol + 2; at < head.size();) {
        std::size_t end = head.find("\r\n", at);
        if (end == std::string::npos)
            end = head.size();
        const std::string line = head.substr(at, end - at);
        at = end + 2;
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const std::string name = lower(trimmed(line.substr(0, colon)));
        const std::string value = trimmed(line.substr(colon + 1));
        if (name == "upgrade")
            upgrade = lower(value) == "websocket";
        else if (name == "connection")
            connection = connection || hasToken(lower(value), "upgrade");
        else if (name == "sec-websocket-accept")
            accept = value == expected;
        else if (name == "sec-websocket-extensions" || name == "sec-websocket-protocol")
            return "the console's handshake names " + name + ", which this client did not ask for";
    }
    if (!upgrade || !connection)
        return "the console's handshake response is not a WebSocket upgrade";
    if (!accept)
        return "the console's handshake has a wrong Sec-WebSocket-Accept";
    return {};
}

// poll(2)'s timeout for a deadline: -1 for none.
int pollTimeout(std::int64_t deadlineMs)
{
    if (deadlineMs == WebSocketClient::NoDeadline)
        return -1;
    return int(std::clamp<std::int64_t>(deadlineMs - monotonicMs(), 0, 1 << 30));
}

// connect(2) that gives up at `deadlineMs` (a console's address that
// drops packets would otherwise hold a hook for the kernel's two minutes).
// False with errno set.
bool connectBy(int fd, const sockaddr *address, socklen_t length, std::int64_t deadlineMs)
{
    const int flags = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = ::connect(fd, address, length);
    if (rc != 0 && errno == EINPROGRESS) {
        pollfd p { fd, POLLOUT, 0 };
        int ready;
        do {
            ready = ::poll(&p, 1, pollTimeout(deadlineMs));
        } while (ready < 0 && errno == EINTR);
        int error = ready == 0 ? ETIMEDOUT : ready < 0 ? errno : 0;
        socklen_t size = sizeof error;
        if (ready > 0)
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
        rc = error == 0 ? 0 : -1;
        errno = error;
    }
    const int saved = errno;
    ::fcntl(fd, F_SETFL, flags);
    errno = saved;
    return rc == 0;
}

} // namespace

std::int64_t monotonicMs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

WebSocketClient::~WebSocketClient()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool WebSocketClient::open(const WsUrl &url, std::int64_t deadlineMs, std::string *error,
    const std::function<void()> &meanwhile)
{
    addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo *found = nullptr;
    const std::string port = std::to_string(url.port);
    // A numeric host needs no resolver (no NSS modules loaded); a name does.
    if (::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found) != 0) {
        hints.ai_flags = AI_NUMERICSERV;
        if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
            *error = std::string("Host not found (") + ::gai_strerror(rc) + ")";
            return false;
        }
    }
    int lastErrno = ECONNREFUSED;
    for (addrinfo *a = found; a && m_fd < 0; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            lastErrno = errno;
            continue;
        }
        if (connectBy(fd, a->ai_addr, a->ai_addrlen, deadlineMs)) {
            m_fd = fd;
        } else {
            lastErrno = errno;
            ::close(fd);
        }
    }
    ::freeaddrinfo(found);
    if (m_fd < 0) {
        m_refused = lastErrno == ECONNREFUSED;
        *error = std::strerror(lastErrno);
        return false;
    }
    // Small messages go out at once, not after the peer's delayed ACK.
    const int one = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    char nonce[16];
    if (!randomBytes(nonce, sizeof nonce)) {
        *error = "no random numbers for the handshake (getrandom and /dev/urandom failed)";
        return false;
    }
    const std::string key = base64(std::string_view(nonce, sizeof nonce)); // §4.1: 16 random bytes
    const bool v6 = url.host.find(':') != std::string::npos;
    const std::string host = (v6 ? "[" + url.host + "]" : url.host) + ":" + port;
    // No Origin: the console admits a client without one, and a browser
    // always sends one (PROTOCOL.md "Connecting").
    const std::string request = "GET " + url.path + " HTTP/1.1\r\nHost: " + host
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key
        + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
    if (!sendAll(request, error))
        return false;
    if (meanwhile)
        meanwhile();
    std::size_t end;
    while ((end = m_in.find("\r\n\r\n")) == std::string::npos) {
        // Never more than the cap: what follows the head (the first
        // frames) is read after it.
        if (m_in.size() >= MaxHandshakeBytes) {
            *error = "the console's handshake response is larger than "
                + std::to_string(MaxHandshakeBytes) + " bytes";
            return false;
        }
        const Result r = fill(deadlineMs, error, MaxHandshakeBytes - m_in.size());
        if (r == Result::TimedOut)
            *error = "the handshake timed out";
        if (r != Result::Message)
            return false;
    }
    const std::string head = m_in.substr(0, end + 2);
    m_in.erase(0, end + 4);
    if (std::string why = checkHandshake(head, key); !why.empty()) {
        *error = std::move(why);
        return false;
    }
    return true;
}

bool WebSocketClient::sendFrame(int opcode, std::string_view payload, std::string *error)
{
    if (m_fd < 0) {
        *error = "not connected";
        return false;
    }
    std::string frame;
    frame.reserve(payload.size() + 14);
    frame += char(0x80 | opcode); // FIN: every message in one frame
    if (payload.size() < 126) {
        frame += char(0x80 | payload.size());
    } else if (payload.size() <= 0xffff) {
        frame += char(0x80 | 126);
        frame += char(payload.size() >> 8);
        frame += char(payload.size() & 0xff);
    } else {
        frame += char(0x80 | 127);
        for (int i = 7; i >= 0; --i)
            frame += char((std::uint64_t(payload.size()) >> (8 * i)) & 0xff);
    }
    // §5.3: a client masks every frame with a fresh key.
    char mask[4];
    if (!randomBytes(mask, sizeof mask)) {
        *error = "no random numbers for a frame's mask (getrandom and /dev/urandom failed)";
        return false;
    }
    frame.append(mask, sizeof mask);
    const std::size_t start = frame.size();
    frame += payload;
    for (std::size_t i = 0; i < payload.size(); ++i)
        frame[start + i] = char(frame[start + i] ^ mask[i % 4]);
    return sendAll(frame, error);
}

bool WebSocketClient::sendAll(std::string_view bytes, std::string *error)
{
    // MSG_NOSIGNAL: a console gone mid-send is an error here, not SIGPIPE.
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::send(m_fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = std::strerror(errno);
            return false;
        }
        done += std::size_t(n);
    }
    return true;
}

bool WebSocketClient::sendText(std::string_view text, std::string *error)
{
    return sendFrame(Text, text, error);
}

bool WebSocketClient::sendPing(std::string *error)
{
    return sendFrame(Ping, "hp", error);
}

WebSocketClient::Result WebSocketClient::fill(
    std::int64_t deadlineMs, std::string *error, std::size_t most)
{
    for (;;) {
        pollfd p { m_fd, POLLIN, 0 };
        const int ready = ::poll(&p, 1, pollTimeout(deadlineMs));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0) {
            *error = std::strerror(errno);
            return Result::Dropped;
        }
        if (ready == 0)
            return Result::TimedOut;
        char chunk[64 * 1024];
        const ssize_t n = ::recv(m_fd, chunk, std::min(sizeof chunk, most), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *error = std::strerror(errno);
            return Result::Dropped;
        }
        if (n == 0) {
            *error = "The remote host closed the connection";
            return Result::Dropped;
        }
        m_in.append(chunk, std::size_t(n));
        m_lastHeardMs = monotonicMs();
        return Result::Message;
    }
}

WebSocketClient::Result WebSocketClient::failWith(
    std::uint16_t code, const std::string &why, std::string *error)
{
    *error = why;
    close(code);
    return Result::Failed;
}

WebSocketClient::Result WebSocketClient::read(
    std::string *message, std::int64_t deadlineMs, std::string *error)
{
    std::string &assembled = m_assembled;
    int &messageOpcode = m_messageOpcode;
    for (;;) {
        // §5.2: the header, then an extended length, then (from a server)
        // no mask.
        std::size_t need = 2;
        std::uint64_t length = 0;
        bool complete = false;
        if (m_in.size() >= 2) {
            const auto b1 = std::uint8_t(m_in[1]);
            const bool control = (std::uint8_t(m_in[0]) & 0x08) != 0;
            length = b1 & 0x7f;
            need = 2 + (length == 126 ? 2 : length == 127 ? 8 : 0);
            if (m_in.size() >= need) {
                if (length >= 126) {
                    std::uint64_t l = 0;
                    for (std::size_t i = 2; i < need; ++i)
                        l = l << 8 | std::uint8_t(m_in[i]);
                    length = l;
                }
                if (b1 & 0x80)
                    return failWith(1002, "the console sent a masked frame (RFC 6455 §5.1)", error);
                // A control frame mid-message is no part of it (§5.4).
                if (length > MaxMessageBytes
                    || (!control && assembled.size() + length > MaxMessageBytes))
                    return failWith(1009,
                        "the console sent a message larger than " + std::to_string(MaxMessageBytes)
                            + " bytes",
                        error);
                complete = m_in.size() >= need + length;
            }
        }
        if (!complete) {
            const Result r = m_fd < 0 ? Result::Dropped : fill(deadlineMs, error);
            if (r == Result::Message)
                continue;
            if (r == Result::Dropped && m_fd >= 0) {
                ::close(m_fd);
                m_fd = -1;
            }
            return r;
        }
        const auto b0 = std::uint8_t(m_in[0]);
        const bool fin = b0 & 0x80;
        const int opcode = b0 & 0x0f;
        std::string payload = m_in.substr(need, std::size_t(length));
        m_in.erase(0, need + std::size_t(length));
        if (b0 & 0x70)
            return failWith(
                1002, "the console sent a frame with reserved bits set (RFC 6455 §5.2)", error);
        if (opcode >= Close) { // a control frame: §5.5
            if (!fin || length > 125)
                return failWith(1002,
                    "the console sent a fragmented or long control frame (RFC 6455 §5.5)", error);
            if (opcode == Ping) {
                if (std::string why; !sendFrame(Pong, payload, &why)) {
                    *error = why;
                    ::close(m_fd);
                    m_fd = -1;
                    return Result::Dropped;
                }
            } else if (opcode == Close) {
                m_closeCode = payload.size() >= 2
                    ? std::uint16_t(std::uint8_t(payload[0]) << 8 | std::uint8_t(payload[1]))
                    : 1005;
                m_closeReason = payload.size() > 2 ? payload.substr(2) : std::string();
                close(payload.size() >= 2 ? m_closeCode : 1000);
                return Result::Closed;
            } else if (opcode != Pong) {
                return failWith(1002, "the console sent an unknown control frame", error);
            }
            continue;
        }
        if (opcode == Continuation ? messageOpcode < 0
                                   : (messageOpcode >= 0 || (opcode != Text && opcode != Binary)))
            return failWith(
                1002, "the console sent a data frame out of order (RFC 6455 §5.4)", error);
        if (opcode != Continuation)
            messageOpcode = opcode;
        assembled += payload;
        if (!fin)
            continue;
        if (messageOpcode == Binary) {
            // The protocol is text only; a binary message is skipped, as
            // the Qt client (textMessageReceived only) did.
            assembled.clear();
            messageOpcode = -1;
            continue;
        }
        // §8.1: a text message that is not UTF-8 fails the connection (1007).
        if (!isUtf8(assembled))
            return failWith(
                1007, "the console sent a text message that is not UTF-8 (RFC 6455 §8.1)", error);
        *message = std::move(assembled);
        assembled.clear();
        messageOpcode = -1;
        return Result::Message;
    }
}

void WebSocketClient::close(std::uint16_t code)
{
    if (m_fd < 0)
        return;
    if (!m_closeSent) {
        m_closeSent = true;
        std::string payload { char(code >> 8), char(code & 0xff) };
        std::string ignored;
        if (code != 1005 && code != 1006)
            sendFrame(Close, payload, &ignored);
    }
    ::close(m_fd);
    m_fd = -1;
}

} // namespace holdpoint::wire
