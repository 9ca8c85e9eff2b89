// SPDX-License-Identifier: Apache-2.0
#include "mcpproxy.h"

#include <QRandomGenerator>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

namespace holdpoint {

namespace {

void logLine(const QString &text)
{
    std::fprintf(stderr, "holdpoint-ctl mcp-proxy: %s\n", qPrintable(text));
}

qint64 monotonicNs()
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

McpProxy::McpProxy(McpProxyOptions options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    m_sessionId
        = "mcp-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16).toStdString();
    // The server's stderr is ours; its stdout is the protocol.
    m_server.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    connect(&m_server, &QProcess::readyReadStandardOutput, this, &McpProxy::onServerOutput);
    connect(&m_server, &QProcess::finished, this, &McpProxy::onServerFinished);
    if (const QByteArray trace = qgetenv("HOLDPOINT_MCP_TRACE"); !trace.isEmpty()) {
        m_trace.reset(std::fopen(trace.constData(), "a"));
        if (!m_trace)
            logLine(QStringLiteral("HOLDPOINT_MCP_TRACE: cannot open %1: %2")
                        .arg(QString::fromLocal8Bit(trace),
                            QString::fromLocal8Bit(std::strerror(errno))));
    }
}

void McpProxy::stamp(const std::string &callId, qint64 HopStamps::*hop)
{
    if (m_trace)
        m_stamps[callId].*hop = monotonicNs();
}

McpProxy::~McpProxy()
{
    if (m_server.state() != QProcess::NotRunning) {
        m_server.kill();
        m_server.waitForFinished(2000);
    }
}

bool McpProxy::start(QString *error)
{
    if (m_options.command.isEmpty()) {
        *error = QStringLiteral("no server command given (expected: mcp-proxy [--server-name NAME] "
                                "-- COMMAND [ARGS...])");
        return false;
    }
    m_server.start(m_options.command.first(), m_options.command.mid(1));
    if (!m_server.waitForStarted(10'000)) {
        *error = QStringLiteral("cannot start the MCP server %1: %2")
                     .arg(m_options.command.first(), m_server.errorString());
        return false;
    }
    m_stdin = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
    connect(m_stdin.get(), &QSocketNotifier::activated, this, &McpProxy::onClientReadable);
    connectConsole();
    return true;
}

void McpProxy::connectConsole()
{
    // Not destroyed here: this may run while the old client is still
    // telling its end.
    if (m_console)
        m_console.release()->deleteLater();
    EndpointInfo endpoint;
    QString why;
    bool absent = false;
    if (!readEndpointInfo(m_options.dataDir, false, &endpoint, &why, &absent))
        return onConsoleDown(why, absent ? wire::Outage::NoEndpointFile : wire::Outage::Other);
    m_state = ConsoleState::Connecting;
    m_console = std::make_unique<ConsoleClient>();
    connect(m_console.get(), &ConsoleClient::welcomed, this, [this] {
        m_state = ConsoleState::Ready;
        // Collected first: sending refuses (and forgets) a call too large.
        std::vector<std::string> unsent;
        for (const auto &[callId, w] : m_waiting)
            if (!w.sentToConsole)
                unsent.push_back(callId);
        for (const std::string &callId : unsent)
            sendToConsole(callId);
    });
    connect(m_console.get(), &ConsoleClient::message, this, &McpProxy::onConsoleMessage);
    ConsoleClient *client = m_console.get();
    connect(client, &ConsoleClient::failed, this, [this, client](const QString &reason) {
        onConsoleDown(
            reason, client->refused() ? wire::Outage::ConnectionRefused : wire::Outage::Other);
    });
    const std::string name = "mcp:"
        + (m_options.serverName.isEmpty() ? std::string("server")
                                          : m_options.serverName.toStdString());
    m_console->connectTo(endpoint, protocol::Role::Agent, { name, "mcp-proxy" }, m_sessionId);
}

void McpProxy::onConsoleDown(const QString &why, wire::Outage outage)
{
    m_state = ConsoleState::Down;
    m_downReason = why;
    logLine(QStringLiteral("console unreachable: %1").arg(why));
    // Calls still waiting will not get a decision. One the console has may
    // be before a person, and an agent can kill or stop the console: it is
    // refused whatever the mode. One it never got follows the fail-open rule.
    for (const std::string &id : waitingIds()) {
        const std::string text
            = "Holdpoint console unreachable (" + why.toStdString() + "); the call was not run";
        if (m_waiting.at(id).sentToConsole)
            refuse(id, text);
        else
            refuseOrForward(id, outage, text);
    }
}

void McpProxy::receive(Inbound &from, const char *data, qsizetype size)
{
    std::vector<QByteArray> lines;
    int dropped = 0;
    from.framer.feed(data, size, &lines, &dropped);
    if (dropped)
        logLine(QStringLiteral("dropped %1 oversized message(s) from the %2")
                    .arg(dropped)
                    .arg(QLatin1String(from.sender)));
    for (const QByteArray &line : lines)
        (this->*from.handleLine)(line);
}

void McpProxy::endOfStream(Inbound &from)
{
    if (const QByteArray rest = from.framer.takeRest(); !rest.isEmpty())
        (this->*from.handleLine)(rest);
}

void McpProxy::onClientReadable()
{
    char buf[256 * 1024];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (m_trace)
        m_readAt = monotonicNs();
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        // The client is gone: let the server finish and pass its code on.
        m_stdin->setEnabled(false);
        m_clientClosed = true;
        endOfStream(m_fromClient);
        closeServerInputWhenSettled();
        return;
    }
    receive(m_fromClient, buf, n);
}

void McpProxy::handleClientLine(const QByteArray &line)
{
    mcp::Message m = mcp::classify(line);
    if (m.kind == mcp::Kind::Request && m.method == "tools/call") {
        const auto params = m.json.find("params");
        if (params != m.json.end() && params->is_object()) {
            const auto name = params->find("name");
            if (name != params->end() && name->is_string())
                return submit(std::move(m), line);
        }
    }
    if (m.kind == mcp::Kind::Request && m.method == "tools/list")
        m_toolsListIds.insert(idKey(m.id));
    if (m.kind == mcp::Kind::Notification && m.method == "notifications/cancelled") {
        // MCP 2025-06-18 "Cancellation": a call still waiting at the console
        // was never sent to the server, so it is cancelled there instead.
        const Json &params = m.json.value("params", Json::object());
        if (params.is_object() && params.contains("requestId")) {
            const std::string key = idKey(params["requestId"]);
            for (auto it = m_waiting.begin(); it != m_waiting.end(); ++it) {
                if (idKey(it->second.rpcId) != key)
                    continue;
                if (it->second.sentToConsole && m_console && m_state == ConsoleState::Ready)
                    m_console->send(Json { { "type", "cancel" }, { "call_id", it->first } });
                m_stamps.erase(it->first);
                m_waiting.erase(it);
                closeServerInputWhenSettled();
                return; // the receiver of a cancelled request sends no response
            }
        }
    }
    writeToServer(line);
}

void McpProxy::submit(mcp::Message &&m, const QByteArray &raw)
{
    const std::string callId = "mcp-" + std::to_string(++m_nextCall);
    // Moved, not copied: the parsed call is the proxy's from here on.
    m_waiting.try_emplace(callId, WaitingCall { std::move(m.id), std::move(m.json), raw, false });
    if (m_trace)
        m_stamps[callId].read = m_readAt; // when its bytes came in, not now
    switch (m_state) {
    case ConsoleState::Ready:
        sendToConsole(callId);
        break;
    case ConsoleState::Connecting:
        break; // sent once welcomed
    case ConsoleState::Down:
        // It may be back, perhaps restarted with a new token: asked again,
        // in both modes; the call waits for the answer.
        connectConsole();
        break;
    }
}

void McpProxy::sendToConsole(const std::string &callId)
{
    WaitingCall &w = m_waiting.at(callId);
    Json &params = w.request["params"];
    const std::string &tool = params["name"].get_ref<const std::string &>();
    // The arguments are moved into the message, not copied: a call goes to
    // the console once (sentToConsole), and what reaches the server later is
    // the raw line, or a "modify" decision's arguments put in their place.
    Json args = Json::object();
    if (const auto it = params.find("arguments"); it != params.end() && it->is_object())
        args = std::move(*it);
    Json call { { "type", "tool_call" }, { "call_id", callId }, { "tool_name", tool },
        { "args", std::move(args) },
        { "context", { { "mcp_server", m_options.serverName.toStdString() } } } };
    if (auto it = m_annotations.find(tool); it != m_annotations.end())
        call["annotations"] = it->second;
    // Too large for the console: refused here, and the connection stays up
    // for the calls after it.
    if (QString why; !m_console->send(call, &why))
        return refuse(
            callId, "Holdpoint refused the call: " + why.toStdString() + "; the call was not run");
    w.sentToConsole = true;
    stamp(callId, &HopStamps::toConsole);
}

void McpProxy::onConsoleMessage(const Json &message)
{
    const std::string type = message.value("type", std::string());
    const std::string callId = message.value("call_id", std::string());
    auto it = m_waiting.find(callId);
    if (type == "decision" && it != m_waiting.end()) {
        stamp(callId, &HopStamps::decision);
        const std::string decision = message.value("decision", std::string());
        if (decision == "allow")
            return forward(callId, nullptr);
        if (decision == "modify" && message.contains("args"))
            return forward(callId, &message["args"]);
        refuse(callId, "Denied by Holdpoint: " + message.value("reason", std::string()));
    } else if (type == "error" && !message.contains("call_id")) {
        refuseAllSent("Holdpoint refused the call: " + message.value("code", std::string()) + ": "
            + message.value("message", std::string()));
    } else if (type == "error" && it != m_waiting.end()) {
        refuse(callId,
            "Holdpoint refused the call: " + message.value("code", std::string()) + ": "
                + message.value("message", std::string()));
    } else if (type == "after_call" && message.value("action", std::string()) != "allow") {
        logLine(QStringLiteral("%1: %2").arg(toQString(message.value("action", std::string())),
            toQString(message.value("reason", std::string()))));
    }
}

void McpProxy::forward(const std::string &callId, const Json *newArguments)
{
    WaitingCall w = std::move(m_waiting.at(callId));
    m_waiting.erase(callId);
    if (m_server.state() != QProcess::Running) {
        m_stamps.erase(callId);
        writeToClient(QByteArray::fromStdString(
            dumpJson(mcp::errorResult(w.rpcId, "the MCP server exited"))));
    } else {
        m_forwarded[idKey(w.rpcId)] = callId;
        if (newArguments) {
            Json request = std::move(w.request);
            request["params"]["arguments"] = *newArguments;
            writeToServer(QByteArray::fromStdString(dumpJson(request)));
        } else {
            writeToServer(w.raw);
        }
        stamp(callId, &HopStamps::toServer);
    }
    closeServerInputWhenSettled();
}

void McpProxy::refuseOrForward(
    const std::string &callId, wire::Outage outage, const std::string &why)
{
    if (m_options.failOpen && wire::failOpenLetsThrough(outage))
        return forward(callId, nullptr);
    refuse(callId, why);
}

void McpProxy::refuseAllSent(const std::string &why)
{
    for (const std::string &id : waitingIds()) {
        if (!m_waiting.at(id).sentToConsole)
            continue;
        if (m_console && m_state == ConsoleState::Ready)
            m_console->send(Json { { "type", "cancel" }, { "call_id", id } });
        refuse(id, why);
    }
}

void McpProxy::refuse(const std::string &callId, const std::string &text)
{
    const Json id = m_waiting.at(callId).rpcId;
    m_waiting.erase(callId);
    m_stamps.erase(callId);
    writeToClient(QByteArray::fromStdString(dumpJson(mcp::errorResult(id, text))));
    closeServerInputWhenSettled();
}

std::vector<std::string> McpProxy::waitingIds() const
{
    std::vector<std::string> ids;
    for (const auto &[callId, w] : m_waiting)
        ids.push_back(callId);
    return ids;
}

void McpProxy::onServerOutput()
{
    const QByteArray data = m_server.readAllStandardOutput();
    if (m_trace)
        m_readAt = monotonicNs();
    receive(m_fromServer, data.constData(), data.size());
}

void McpProxy::handleServerLine(const QByteArray &line)
{
    // The client first, before the line is even parsed: the parse and the
    // console's bookkeeping are off its path.
    writeToClient(line);
    const mcp::Message m = mcp::classify(line);
    if (m.kind != mcp::Kind::Response)
        return;
    const std::string key = idKey(m.id);
    if (auto it = m_forwarded.find(key); it != m_forwarded.end()) {
        const std::string callId = std::move(it->second);
        m_forwarded.erase(it);
        if (m_trace)
            writeTrace(callId, key);
        // The result feeds the after-call checks (loop detection).
        const Json *result = m.json.contains("result") ? &m.json["result"] : nullptr;
        const bool ok = result && !(result->is_object() && result->value("isError", false));
        if (m_console && m_state == ConsoleState::Ready)
            m_console->send(Json { { "type", "tool_result" }, { "call_id", callId }, { "ok", ok },
                { "result",
                    protocol::compactResult(result ? *result : m.json.value("error", Json())) } });
    } else if (m_toolsListIds.erase(key)) {
        // MCP 2025-06-18 "tools": remember each tool's annotations.
        const Json &tools = m.json.contains("result")
            ? m.json["result"].value("tools", Json::array())
            : Json::array();
        if (tools.is_array())
            for (const Json &t : tools)
                if (t.is_object() && t.contains("name") && t["name"].is_string())
                    m_annotations[t["name"].get<std::string>()]
                        = t.value("annotations", Json::object());
    }
}

void McpProxy::writeTrace(const std::string &callId, const std::string &rpcKey)
{
    auto it = m_stamps.find(callId);
    if (it == m_stamps.end())
        return;
    const HopStamps &h = it->second;
    const Json line { { "call_id", callId }, { "rpc_id", rpcKey }, { "read", h.read },
        { "to_console", h.toConsole }, { "decision", h.decision }, { "to_server", h.toServer },
        { "server_answer", m_readAt }, { "to_client", monotonicNs() } };
    m_stamps.erase(it);
    std::fputs((dumpJson(line) + "\n").c_str(), m_trace.get());
    std::fflush(m_trace.get());
}

void McpProxy::writeToClient(const QByteArray &line)
{
    const QByteArray out = mcp::LineFramer::frame(line);
    const char *p = out.constData();
    qsizetype left = out.size();
    while (left > 0) {
        const ssize_t n = ::write(STDOUT_FILENO, p, std::size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return; // the client is gone; its EOF on stdin ends us
        }
        p += n;
        left -= n;
    }
}

void McpProxy::writeToServer(const QByteArray &line)
{
    if (m_server.state() != QProcess::Running)
        return;
    m_server.write(mcp::LineFramer::frame(line));
    // Now, not when the event loop next looks: the call is waiting on it.
    m_server.waitForBytesWritten(0);
}

void McpProxy::onServerFinished(int code, QProcess::ExitStatus status)
{
    onServerOutput();
    endOfStream(m_fromServer);
    // Calls the server will never answer get an answer from us.
    for (const std::string &id : waitingIds())
        refuse(id, "the MCP server exited");
    Q_EMIT finished(code, status);
}

void McpProxy::closeServerInputWhenSettled()
{
    // A client may close its input and still read the answers: calls still
    // waiting for a person go to the server first, then its input closes.
    if (m_clientClosed && m_waiting.empty() && m_server.state() == QProcess::Running)
        m_server.closeWriteChannel();
}

} // namespace holdpoint
