// SPDX-License-Identifier: Apache-2.0
#include "webfront.h"

#include "engine/consolecore.h"
#include "common/reviewertokens.h"
#include "notify/ntfynotifier.h"
#include "web/webserver.h"

#include <QDir>

#include <cstdio>

namespace holdpoint {

struct WebFront::Options
{
    QCommandLineOption web { QStringLiteral("web"),
        QStringLiteral("Serve the reviewer page for phones and browsers on ADDRESS:PORT (e.g. 127.0.0.1:8765). "
                       "Any address but loopback needs --web-cert and --web-key."),
        QStringLiteral("address:port") };
    QCommandLineOption cert { QStringLiteral("web-cert"), QStringLiteral("The page's TLS certificate chain (PEM)."),
        QStringLiteral("file") };
    QCommandLineOption key { QStringLiteral("web-key"), QStringLiteral("The page's TLS private key (PEM, unencrypted)."),
        QStringLiteral("file") };
    QCommandLineOption origin { QStringLiteral("web-origin"),
        QStringLiteral("A public origin the page is reached at through a reverse proxy, e.g. "
                       "https://review.example.com (repeatable)."),
        QStringLiteral("origin") };
    QCommandLineOption authHeader { QStringLiteral("web-auth-header"),
        QStringLiteral("Single sign-on: the header in which a trusted proxy names the reviewer "
                       "(e.g. X-Forwarded-User)."),
        QStringLiteral("name") };
    QCommandLineOption trustedProxy { QStringLiteral("web-trusted-proxy"),
        QStringLiteral("The address of a proxy whose --web-auth-header is believed (repeatable; never *)."),
        QStringLiteral("address") };
    QCommandLineOption proxySecret { QStringLiteral("web-proxy-secret-file"),
        QStringLiteral("A file (mode 0600) with the secret the trusted proxy sends in X-Holdpoint-Proxy-Secret; "
                       "required when the proxy is on loopback, where every local process is too."),
        QStringLiteral("file") };
    QCommandLineOption ntfy { QStringLiteral("notify-ntfy"),
        QStringLiteral("Tell reviewers away from the desk that a call waits: publish to this ntfy topic URL "
                       "(e.g. https://ntfy.example.com/holdpoint-alice). Never with the call's arguments."),
        QStringLiteral("url") };
    QCommandLineOption ntfyToken { QStringLiteral("notify-ntfy-token"),
        QStringLiteral("A file (mode 0600) holding the ntfy access token."), QStringLiteral("file") };
};

WebFront::WebFront(QCommandLineParser *parser)
    : m_parser(parser)
    , m_options(std::make_unique<Options>())
{
    parser->addOptions({ m_options->web, m_options->cert, m_options->key, m_options->origin, m_options->authHeader,
        m_options->trustedProxy, m_options->proxySecret, m_options->ntfy, m_options->ntfyToken });
}

WebFront::~WebFront() = default;

bool WebFront::start(ConsoleCore *core, QString *error)
{
    if (startPage(core, error) && startNotifier(core, error))
        return true;
    stop();
    return false;
}

void WebFront::stop()
{
    m_notifier.reset();
    m_page.reset();
}

bool WebFront::startNotifier(ConsoleCore *core, QString *error)
{
    const Options &o = *m_options;
    if (!m_parser->isSet(o.ntfy)) {
        if (m_parser->isSet(o.ntfyToken))
            *error = QStringLiteral("--notify-ntfy-token needs --notify-ntfy URL");
        return !m_parser->isSet(o.ntfyToken);
    }
    NtfyOptions options { m_parser->value(o.ntfy), m_parser->value(o.ntfyToken), m_page ? m_page->origin() : QString() };
    const auto config = NtfyConfig::fromOptions(options, error);
    if (!config)
        return false;
    m_notifier = std::make_unique<NtfyNotifier>(*config, core->clock());
    QObject::connect(m_notifier.get(), &Notifier::failed, [](const QString &why) {
        std::fprintf(stderr, "holdpoint: notify: %s\n", qPrintable(why));
    });
    connectNotifier(core->queue(), m_notifier.get());
    std::fprintf(stderr, "holdpoint: notifying reviewers through ntfy%s\n",
        m_page ? " with links to the reviewer page" : " (no --web: the notices carry no link)");
    return true;
}

bool WebFront::startPage(ConsoleCore *core, QString *error)
{
    const Options &o = *m_options;
    const bool anyWebOption = m_parser->isSet(o.cert) || m_parser->isSet(o.key) || m_parser->isSet(o.origin)
        || m_parser->isSet(o.authHeader) || m_parser->isSet(o.trustedProxy) || m_parser->isSet(o.proxySecret);
    if (!m_parser->isSet(o.web)) {
        if (anyWebOption)
            *error = QStringLiteral("the --web-* options need --web ADDRESS:PORT");
        return !anyWebOption;
    }
    WebConfig config;
    if (!parseWebAddress(m_parser->value(o.web), &config.address, &config.port, error))
        return false;
    config.certFile = m_parser->value(o.cert);
    config.keyFile = m_parser->value(o.key);
    config.origins = m_parser->values(o.origin);
    config.authHeader = m_parser->value(o.authHeader).toLatin1();
    for (const QString &proxy : m_parser->values(o.trustedProxy)) {
        QHostAddress address;
        if (proxy.trimmed() == QLatin1String("*") || !address.setAddress(proxy.trimmed())) {
            *error = QStringLiteral("--web-trusted-proxy: \"%1\" is not one address; every proxy is listed by "
                                    "its own address, and * is refused")
                         .arg(proxy);
            return false;
        }
        config.trustedProxies << address;
    }
    if (m_parser->isSet(o.proxySecret)) {
        QByteArray secret;
        if (!readPrivateFile(m_parser->value(o.proxySecret), 4096, &secret, error)) {
            *error = QStringLiteral("--web-proxy-secret-file: ") + *error;
            return false;
        }
        config.proxySecret = secret.trimmed();
        if (config.proxySecret.size() < 16) {
            *error = QStringLiteral("--web-proxy-secret-file: the secret must be at least 16 characters");
            return false;
        }
    }
    config.sessionsFile = QDir(core->dataDir()).filePath(QLatin1String(WebSessionsFileName));
    m_page = std::make_unique<WebServer>(core, config);
    QObject::connect(m_page.get(), &WebServer::refused, [](const QString &peer, const QString &why) {
        std::fprintf(stderr, "holdpoint: web: refused %s: %s\n", qPrintable(peer), qPrintable(why));
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
