// SPDX-License-Identifier: Apache-2.0
#include "hookcommand.h"

#include "client/consoleclient.h"
#include "exitcodes.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>

namespace holdpoint {

// Each hook's codes are Claude Code's (exitcodes.h says why for each agent).
static_assert(exitcode::geminihook::Answered == exitcode::claudehook::Answered
              && exitcode::geminihook::Blocked == exitcode::claudehook::Blocked);

void printLine(FILE *f, const std::string &s)
{
    std::fwrite(s.data(), 1, s.size(), f);
    std::fputc('\n', f);
    std::fflush(f);
}

int HookFailure::operator()(const QString &why) const
{
    if (failOpen)
        return exitcode::claudehook::Answered;
    return block(why);
}

int HookFailure::block(const QString &why) const
{
    std::fprintf(stderr, "Holdpoint blocked this call: %s\n", qPrintable(why));
    return exitcode::claudehook::Blocked;
}

bool parseHookOptions(const QStringList &args, HookFailure *fail)
{
    for (const QString &a : args.mid(2)) {
        if (a != u"--fail-open") {
            std::fprintf(stderr, "Holdpoint blocked this call: hook %s: unknown option %s\n", qPrintable(args.value(1)),
                         qPrintable(a));
            return false;
        }
        fail->failOpen = true;
    }
    return true;
}

bool readInput(std::FILE *in, std::size_t maxBytes, std::string *out)
{
    // Until the end of the input: one read of a pipe returns what has arrived
    // so far, which for a large tool input (a file's content) is only its
    // start, and a cut document is refused as invalid JSON.
    out->clear();
    char chunk[64 * 1024];
    while (out->size() <= maxBytes) {
        const std::size_t want = std::min(sizeof chunk, maxBytes + 1 - out->size());
        const std::size_t got = std::fread(chunk, 1, want, in);
        out->append(chunk, got);
        if (got < want)
            return !std::ferror(in);
    }
    return true;
}

QString consoleError(const Json &error)
{
    return QString::fromStdString(error.value("code", std::string()) + ": " + error.value("message", std::string()));
}

int hookExchange(const EndpointInfo &endpoint, const protocol::AgentInfo &agent, const std::string &sessionId,
                 const Json &first, const std::function<std::optional<int>(const Json &)> &onMessage,
                 const HookFailure &fail)
{
    ConsoleClient client;
    bool done = false;
    auto finish = [&](int code) {
        if (done)
            return;
        done = true;
        client.close();
        QCoreApplication::exit(code);
    };
    QObject::connect(&client, &ConsoleClient::failed, &client, [&](const QString &why) { finish(fail(why)); });
    QObject::connect(&client, &ConsoleClient::welcomed, &client, [&](const Json &) {
        if (QString why; !client.send(first, &why))
            finish(fail.block(why));
    });
    QObject::connect(&client, &ConsoleClient::message, &client, [&](const Json &m) {
        if (const auto code = onMessage(m))
            finish(*code);
    });
    client.connectTo(endpoint, protocol::Role::Agent, agent, sessionId);
    return QCoreApplication::exec();
}

} // namespace holdpoint
