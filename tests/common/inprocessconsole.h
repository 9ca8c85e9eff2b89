// SPDX-License-Identifier: Apache-2.0
#pragma once

// A ConsoleCore started in this process on a private data directory: the
// endpoint, broker, queue and audit log as the console runs them, without
// a window, for suites that probe them over real loopback sockets.

#include "engine/consolecore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>
#include <string>

namespace holdpoint::test {

struct InProcessConsole
{
    explicit InProcessConsole(EndpointConfig endpoint = {})
    {
        ConsoleOptions o;
        o.dataDir = dir.path() + QStringLiteral("/data");
        o.endpoint = std::move(endpoint);
        core = std::make_unique<ConsoleCore>(o);
        QString error;
        started = core->start(&error);
        if (!started)
            qWarning("start failed: %s", qPrintable(error));
    }
    QUrl url() const { return QUrl(core->url()); }
    quint16 port() const { return core->port(); }
    std::string agentToken() const { return core->agentToken().toStdString(); }
    std::string reviewerToken() const
    {
        QFile f(core->dataDir() + QStringLiteral("/reviewer.token"));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return f.readAll().trimmed().toStdString();
    }

    QTemporaryDir dir;
    std::unique_ptr<ConsoleCore> core;
    bool started = false;
};

} // namespace holdpoint::test
