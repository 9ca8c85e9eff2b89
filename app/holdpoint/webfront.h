// SPDX-License-Identifier: Apache-2.0
#pragma once

// The console's faces beyond its window: the reviewer page (--web ...) and
// notifications to a reviewer away from the desk (--notify-ntfy ...). Their
// options come checked (options.h); this starts and stops what they ask for.

#include "options.h"

#include <QString>

#include <memory>

namespace holdpoint {

class ConsoleCore;
class Notifier;
class WebServer;

class WebFront
{
public:
    explicit WebFront(WebFrontOptions options);
    ~WebFront();

    // After core.start(): starts what the options ask for. False with
    // `error` when the page cannot (a port taken, a certificate unreadable).
    bool start(ConsoleCore *core, QString *error);
    // Before the console stops: the page and the notifier hear its signals.
    void stop();
    // The page, when --web was given (the window's "Pair a device").
    WebServer *page() const { return m_page.get(); }

private:
    bool startPage(ConsoleCore *core, QString *error);
    void startNotifier(ConsoleCore *core);

    WebFrontOptions m_options;
    std::unique_ptr<WebServer> m_page;
    std::unique_ptr<Notifier> m_notifier;
};

} // namespace holdpoint
