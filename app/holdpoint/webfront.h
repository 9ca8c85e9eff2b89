// SPDX-License-Identifier: Apache-2.0
#pragma once

// The console's faces beyond its window: the reviewer page (--web ...) and
// notifications to a reviewer away from the desk (--notify-ntfy ...). Their
// options are parsed and checked here, so main() only wires them.

#include <QCommandLineParser>
#include <QString>

#include <memory>

namespace holdpoint {

class ConsoleCore;
class Notifier;
class WebServer;

class WebFront
{
public:
    // Adds the options to `parser`.
    explicit WebFront(QCommandLineParser *parser);
    ~WebFront();

    // After parser.process() and core.start(): starts what the options ask
    // for. False with `error` when an option is wrong or a port is taken.
    bool start(ConsoleCore *core, QString *error);
    // Before the console stops: the page and the notifier hear its signals.
    void stop();
    // The page, when --web was given (the window's "Pair a device").
    WebServer *page() const { return m_page.get(); }

private:
    bool startPage(ConsoleCore *core, QString *error);
    bool startNotifier(ConsoleCore *core, QString *error);

    struct Options;
    QCommandLineParser *m_parser;
    std::unique_ptr<Options> m_options;
    std::unique_ptr<WebServer> m_page;
    std::unique_ptr<Notifier> m_notifier;
};

} // namespace holdpoint
