// SPDX-License-Identifier: Apache-2.0
#include "webfront.h"

#include "engine/consolecore.h"
#include "notify/ntfynotifier.h"
#include "web/webserver.h"

#include <QDir>

#include <cstdio>

namespace holdpoint {

WebFront::WebFront(WebFrontOptions options)
    : m_options(std::move(options))
{ }

WebFront::~WebFront() = default;

bool WebFront::start(ConsoleCore *core, QString *error)
{
    if (!startPage(core, error)) {
        stop();
        return false;
    }
    startNotifier(core);
    return true;
}

void WebFront::stop()
{
    m_notifier.reset();
    m_page.reset();
}

void WebFront::startNotifier(ConsoleCore *core)
{
    if (!m_options.ntfy)
        return;
    NtfyConfig config = *m_options.ntfy;
    // The page's origin is scheme://host[:port] (a checked --web-origin or
    // the address it listens on), as the notices' Click link wants it.
    if (m_page)
        config.pageOrigin = m_page->origin();
    m_notifier = std::make_unique<NtfyNotifier>(std::move(config), core->clock());
    QObject::connect(m_notifier.get(), &Notifier::failed, [](const QString &why) {
        std::fprintf(stderr, "holdpoint: notify: %s\n", qPrintable(why));
    });
    connectNotifier(core->queue(), m_notifier.get());
    std::fprintf(stderr, "holdpoint: notifying reviewers through ntfy%s\n",
        m_page ? " with links to the reviewer page" : " (no --web: the notices carry no link)");
}

bool WebFront::startPage(ConsoleCore *core, QString *error)
{
    if (!m_options.page)
        return true;
    WebConfig config = *m_options.page;
    config.sessionsFile = QDir(core->dataDir()).filePath(QLatin1String(WebSessionsFileName));
    m_page = std::make_unique<WebServer>(core, std::move(config));
    QObject::connect(
        m_page.get(), &WebServer::refused, [](const QString &peer, const QString &why) {
            std::fprintf(
                stderr, "holdpoint: web: refused %s: %s\n", qPrintable(peer), qPrintable(why));
        });
    if (!m_page->start(error)) {
        m_page.reset();
        return false;
    }
    std::fprintf(stderr, "holdpoint: reviewer page at %s (pair a device: holdpoint-ctl web pair)\n",
        qPrintable(m_page->origin()));
    return true;
}

} // namespace holdpoint
