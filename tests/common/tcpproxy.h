// SPDX-License-Identifier: Apache-2.0
#pragma once

// A TCP forwarder of the tests' own, between a client and a server on a
// Unix socket (a PgCluster's), that misbehaves on request like a network:
//
// - silence(): the connections open now go silent. The proxy keeps reading
//   both ends, forwards nothing and closes nothing, as a hung server, a
//   stuck pooler or a middlebox that dropped its state does. New
//   connections are forwarded as before.
// - setHoldNew(true): new connections wait in the listen backlog, their
//   first bytes unread, as behind a partition; setHoldNew(false) forwards
//   them, bytes and all.
// - setDelayMs(n): every chunk read, each way, is written n ms later (order
//   kept), so each round trip takes 2n more.
//
// It runs on a thread of its own with poll(2), so a test that blocks (a
// QProcess it waits for) never stalls the traffic it carries.

#include <QString>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace holdpoint::test {

class TcpProxy final
{
public:
    using Clock = std::chrono::steady_clock;

    TcpProxy() = default;
    TcpProxy(const TcpProxy &) = delete;
    TcpProxy &operator=(const TcpProxy &) = delete;
    ~TcpProxy()
    {
        if (m_thread.joinable()) {
            m_stop = true;
            wake();
            m_thread.join();
        }
        for (Pair &p : m_pairs)
            p.closeAll();
        for (int fd : { m_listen, m_wake[0], m_wake[1] })
            if (fd >= 0)
                ::close(fd);
    }

    // Listens on 127.0.0.1 (a free port) and forwards to the Unix socket
    // `upstream` (e.g. "<socketDir>/.s.PGSQL.<port>").
    bool start(const QString &upstream)
    {
        m_upstream = upstream.toStdString();
        if (m_upstream.size() >= sizeof(sockaddr_un::sun_path)
            || ::pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0)
            return false;
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof addr;
        if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
            || ::listen(m_listen, 64) != 0
            || ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&addr), &size) != 0)
            return false;
        m_port = ntohs(addr.sin_port);
        m_thread = std::thread([this] { loop(); });
        return true;
    }

    int port() const { return m_port; }

    void silence()
    {
        std::lock_guard lock(m_mutex);
        for (Pair &p : m_pairs) {
            p.silenced = true;
            p.client.out.clear();
            p.server.out.clear();
        }
    }
    void setHoldNew(bool hold)
    {
        m_holdNew = hold;
        wake();
    }
    void setDelayMs(int ms) { m_delayMs = ms; }
    // Connections forwarded since start.
    int accepted() const { return m_accepted; }

private:
    struct Chunk
    {
        Clock::time_point due;
        std::string bytes;
    };
    struct Side
    {
        int fd = -1;
        std::deque<Chunk> out; // to write to this side
        bool open() const { return fd >= 0; }
        void close()
        {
            if (fd >= 0)
                ::close(fd);
            fd = -1;
            out.clear();
        }
    };
    struct Pair
    {
        Side client;
        Side server;
        bool silenced = false;
        bool done() const { return !client.open() && !server.open(); }
        void closeAll()
        {
            client.close();
            server.close();
        }
    };

    void wake() const
    {
        const char c = 0;
        (void)!::write(m_wake[1], &c, 1);
    }

    int connectUpstream() const
    {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr {};
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, m_upstream.c_str(), m_upstream.size() + 1);
        if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
            if (fd >= 0)
                ::close(fd);
            return -1;
        }
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        return fd;
    }

    void acceptAll()
    {
        for (;;) {
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0)
                return;
            const int up = connectUpstream();
            if (up < 0) {
                ::close(fd);
                continue;
            }
            std::lock_guard lock(m_mutex);
            Pair p;
            p.client.fd = fd;
            p.server.fd = up;
            m_pairs.push_back(std::move(p));
            ++m_accepted;
        }
    }

    // Reads what `from` has; queues it for `to` unless the pair is silent.
    // False once `from` ended.
    bool readInto(Pair &p, Side &from, Side &to)
    {
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(from.fd, buf, sizeof buf);
            if (n > 0) {
                if (!p.silenced && to.open())
                    to.out.push_back({ Clock::now() + std::chrono::milliseconds(m_delayMs.load()),
                        std::string(buf, std::size_t(n)) });
                continue;
            }
            return n < 0 && (errno == EAGAIN || errno == EINTR);
        }
    }

    // Writes what is due; false if the side failed.
    static bool flush(Side &s, Clock::time_point now)
    {
        while (!s.out.empty() && s.out.front().due <= now) {
            std::string &b = s.out.front().bytes;
            const ssize_t n = ::send(s.fd, b.data(), b.size(), MSG_NOSIGNAL);
            if (n < 0)
                return errno == EAGAIN || errno == EINTR;
            b.erase(0, std::size_t(n));
            if (!b.empty())
                return true;
            s.out.pop_front();
        }
        return true;
    }

    void loop()
    {
        while (!m_stop) {
            std::vector<pollfd> fds { { m_wake[0], POLLIN, 0 },
                { m_listen, short(m_holdNew ? 0 : POLLIN), 0 } };
            Clock::time_point next = Clock::now() + std::chrono::milliseconds(200);
            {
                std::lock_guard lock(m_mutex);
                for (Pair &p : m_pairs)
                    for (Side *s : { &p.client, &p.server }) {
                        if (!s->open())
                            continue;
                        const bool writable = !s->out.empty() && s->out.front().due <= Clock::now();
                        if (!s->out.empty())
                            next = std::min(next, s->out.front().due);
                        fds.push_back({ s->fd, short(POLLIN | (writable ? POLLOUT : 0)), 0 });
                    }
            }
            const auto wait
                = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
            ::poll(fds.data(), fds.size(), int(std::max<long long>(1, wait.count() + 1)));
            char drain[64];
            while (::read(m_wake[0], drain, sizeof drain) > 0) { }
            if (!m_holdNew)
                acceptAll();
            std::lock_guard lock(m_mutex);
            const Clock::time_point now = Clock::now();
            for (Pair &p : m_pairs) {
                if (p.client.open() && !readInto(p, p.client, p.server)) {
                    // The client left. A silent pair closes nothing upstream.
                    p.client.close();
                    if (!p.silenced && p.server.out.empty())
                        p.server.close();
                }
                if (p.server.open() && !readInto(p, p.server, p.client)) {
                    p.server.close();
                    if (!p.silenced && p.client.out.empty())
                        p.client.close();
                }
                for (Side *s : { &p.client, &p.server })
                    if (s->open() && !flush(*s, now))
                        p.closeAll();
                // What was left to deliver to a side whose peer ended.
                if (!p.silenced && !p.client.open() && p.server.open() && p.server.out.empty())
                    p.server.close();
                if (!p.silenced && !p.server.open() && p.client.open() && p.client.out.empty())
                    p.client.close();
            }
            m_pairs.remove_if([](const Pair &p) { return p.done(); });
        }
    }

    std::string m_upstream;
    int m_listen = -1;
    int m_wake[2] = { -1, -1 };
    int m_port = 0;
    std::atomic<bool> m_stop { false };
    std::atomic<bool> m_holdNew { false };
    std::atomic<int> m_delayMs { 0 };
    std::atomic<int> m_accepted { 0 };
    std::mutex m_mutex;
    std::list<Pair> m_pairs;
    std::thread m_thread;
};

} // namespace holdpoint::test
