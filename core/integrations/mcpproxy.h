// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "client/consoleclient.h"
#include "integrations/mcp.h"
#include "wire/failopen.h"

#include <QObject>
#include <QProcess>
#include <QSocketNotifier>

#include <cstdio>
#include <map>
#include <memory>
#include <set>

namespace holdpoint {

struct McpProxyOptions
{
    QString serverName;
    QStringList command; // the real MCP server and its arguments
    // No console reachable for a call (wire/failopen.h): forward it instead
    // of refusing it. Anything else refuses it even so.
    bool failOpen = false;
    // endpoint.json is read from here at every connection: the console's
    // token changes at each start.
    QString dataDir;
};

// Sits between an MCP client (our stdin/stdout) and the real server (a child
// process), and sends every tools/call to the console first
// (resources/integrations/mcp/README.md). Everything else passes through
// byte for byte, in both directions, while calls wait.
class McpProxy final : public QObject
{
    Q_OBJECT
public:
    explicit McpProxy(McpProxyOptions options, QObject *parent = nullptr);
    ~McpProxy() override;
    bool start(QString *error);

Q_SIGNALS:
    // Both sides are done. How the server ended, as QProcess::finished says;
    // holdpoint-ctl turns it into its own exit code (app/holdpoint-ctl/exitcodes.h).
    void finished(int exitCode, QProcess::ExitStatus exitStatus);

private:
    struct WaitingCall
    {
        Json rpcId;
        Json request; // the client's tools/call
        QByteArray raw; // as the client sent it
        bool sentToConsole = false;
    };
    enum class ConsoleState
    {
        Connecting,
        Ready,
        Down
    };
    // HOLDPOINT_MCP_TRACE=FILE: when each hop of a tools/call happened, in
    // CLOCK_MONOTONIC nanoseconds, one JSON line a call as it completes
    // (tests/bench/README.md, "Where the time goes").
    struct HopStamps
    {
        qint64 read = 0; // its line read from the client
        qint64 toConsole = 0; // sent to the console
        qint64 decision = 0; // the console's decision read
        qint64 toServer = 0; // written to the server
    };
    // One direction's input: its framer, who sends it (for the log) and
    // what handles each of its lines.
    struct Inbound
    {
        const char *sender;
        void (McpProxy::*handleLine)(const QByteArray &line);
        mcp::LineFramer framer {};
    };

    void receive(Inbound &from, const char *data, qsizetype size);
    void endOfStream(Inbound &from);
    void onClientReadable();
    void onServerOutput();
    void onServerFinished(int code, QProcess::ExitStatus status);
    void handleClientLine(const QByteArray &line);
    void handleServerLine(const QByteArray &line);
    void submit(mcp::Message &&message, const QByteArray &raw);
    void sendToConsole(const std::string &callId);
    void onConsoleMessage(const Json &message);
    // The connection is gone, or could not be made, because of `outage`:
    // calls the console has are refused; those it never got are refused,
    // or forwarded when fail-open lets them through.
    void onConsoleDown(const QString &why, wire::Outage outage);
    // Reads endpoint.json again and connects; the next call after a lost
    // connection comes here, in both modes.
    void connectConsole();
    void refuseOrForward(const std::string &callId, wire::Outage outage, const std::string &why);
    // An `error` without a call_id answers a call the console could not
    // read as far as its call_id; which one cannot be told, so every call
    // the console has from us and has not decided is refused and cancelled
    // (PROTOCOL.md, "Errors").
    void refuseAllSent(const std::string &why);
    // Answers a waiting call with isError and the text; it never reaches the server.
    void refuse(const std::string &callId, const std::string &text);
    // A snapshot: refusing a call removes it from m_waiting.
    std::vector<std::string> waitingIds() const;
    void forward(const std::string &callId, const Json *newArguments);
    // Both take one message without its newline; LineFramer::frame adds it.
    void writeToClient(const QByteArray &line);
    void writeToServer(const QByteArray &line);
    void closeServerInputWhenSettled();
    static std::string idKey(const Json &id) { return dumpJson(id); }

    McpProxyOptions m_options;
    QProcess m_server;
    std::unique_ptr<QSocketNotifier> m_stdin;
    Inbound m_fromClient { "client", &McpProxy::handleClientLine };
    Inbound m_fromServer { "server", &McpProxy::handleServerLine };
    std::unique_ptr<ConsoleClient> m_console;
    ConsoleState m_state = ConsoleState::Down;
    QString m_downReason;
    std::string m_sessionId;
    int m_nextCall = 0;
    std::map<std::string, WaitingCall> m_waiting; // call_id -> waiting tools/call
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> m_trace { nullptr, &std::fclose };
    std::map<std::string, HopStamps> m_stamps; // call_id -> its hops so far, while tracing
    qint64 m_readAt = 0; // when the input being handled was read
    void stamp(const std::string &callId, qint64 HopStamps::*hop);
    void writeTrace(const std::string &callId, const std::string &rpcKey);
    std::map<std::string, std::string>
        m_forwarded; // JSON-RPC id -> call_id, awaiting the server's result
    std::set<std::string> m_toolsListIds; // ids of tools/list requests awaiting their result
    std::map<std::string, Json> m_annotations; // tool name -> MCP annotations
    bool m_clientClosed = false;
};

} // namespace holdpoint
