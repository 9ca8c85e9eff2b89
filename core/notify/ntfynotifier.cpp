// SPDX-License-Identifier: Apache-2.0
#include "ntfynotifier.h"

#include "common/json.h"
#include "common/reviewertokens.h"
#include "notify/reminders.h"

#include <QHostAddress>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace holdpoint {

namespace {

std::optional<NtfyConfig> refuse(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return std::nullopt;
}

bool isHttp(const QUrl &url)
{
    return url.scheme() == u"https" || url.scheme() == u"http";
}

bool isLoopbackHost(const QString &host)
{
    return host.compare(u"localhost", Qt::CaseInsensitive) == 0 || QHostAddress(host).isLoopback();
}

// A header value as ntfy reads it: plain ASCII as is, anything else as an
// RFC 2047 encoded word, which ntfy decodes in every parameter header
// (server/util.go, maybeDecodeHeader). Raw UTF-8 in a header is not
// portable (RFC 9110 §5.5: field values are historically ISO-8859-1).
QByteArray headerText(const QString &text)
{
    const bool ascii = std::all_of(text.begin(), text.end(),
        [](QChar c) { return c.unicode() >= 0x20 && c.unicode() < 0x7f; });
    if (ascii)
        return text.toLatin1();
    return "=?UTF-8?B?" + text.toUtf8().toBase64() + "?=";
}

// ntfy priorities (docs "Message priority"): 3 default, 4 high, 5 max.
QByteArray ntfyPriority(Urgency urgency)
{
    switch (urgency) {
    case Urgency::Normal:
        return "3";
    case Urgency::High:
        return "4";
    case Urgency::Urgent:
        return "5";
    }
    return "3";
}

// Tags that match an emoji short code show as that emoji before the title
// (docs "Tags & emojis"); the rest are listed under the message.
QByteArray ntfyTags(const Notification &n)
{
    QStringList tags;
    switch (n.urgency) {
    case Urgency::Normal:
        tags << QStringLiteral("hourglass_flowing_sand");
        break;
    case Urgency::High:
        tags << QStringLiteral("warning");
        break;
    case Urgency::Urgent:
        tags << QStringLiteral("rotating_light");
        break;
    }
    tags << QStringLiteral("holdpoint") << n.labels;
    return tags.join(u',').toLatin1();
}

// Our own words for a network failure. QNetworkReply::errorString() is not
// used: it often quotes the URL, and with it the topic.
QString networkFailure(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("connection refused");
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("the server closed the connection");
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("host not found");
    case QNetworkReply::TimeoutError:
        return QStringLiteral("the connection timed out");
    case QNetworkReply::SslHandshakeFailedError:
        return QStringLiteral("TLS handshake failed");
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
        return QStringLiteral("the network is down");
    default:
        return QStringLiteral("network error %1").arg(int(error));
    }
}

QString httpFailure(int status)
{
    QString why = QStringLiteral("HTTP %1").arg(status);
    if (status == 401 || status == 403)
        why += QStringLiteral(" (check the token file and the token's access to the topic)");
    else if (status == 429)
        why += QStringLiteral(" (rate limited)");
    else if (status >= 300 && status < 400)
        why += QStringLiteral(" (redirected; configure the URL it redirects to)");
    return why;
}

// Worth another try: the server or the path to it may recover. A 4xx other
// than 408 and 429 says the request itself is wrong, and would be again.
bool retryable(int status)
{
    return status == 0 || status == 408 || status == 429 || status >= 500;
}

} // namespace

std::optional<NtfyConfig> NtfyConfig::fromOptions(const NtfyOptions &options, QString *error)
{
    NtfyConfig config;

    // The URL is never quoted back: it may hold a password, and its topic
    // is one on a public server.
    const QString text = options.topicUrl.trimmed();
    if (text.isEmpty())
        return refuse(error,
            QStringLiteral("ntfy topic URL: empty; give one such as https://ntfy.sh/<topic>"));
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.isRelative())
        return refuse(error,
            QStringLiteral(
                "ntfy topic URL: not an absolute URL; give one such as https://ntfy.sh/<topic>"));
    if (!isHttp(url))
        return refuse(error,
            QStringLiteral("ntfy topic URL: the scheme must be https or http, not \"%1\"")
                .arg(url.scheme()));
    if (url.host().isEmpty())
        return refuse(error, QStringLiteral("ntfy topic URL: no host"));
    if (!url.userInfo().isEmpty())
        return refuse(error,
            QStringLiteral(
                "ntfy topic URL: it holds a user name or password; put an access token in a "
                "token file (mode 0600) instead"));
    if (url.hasQuery() || url.hasFragment())
        return refuse(error,
            QStringLiteral(
                "ntfy topic URL: no query or fragment, please; the notifier sends ntfy's "
                "options as headers"));
    // ntfy's topic names (docs "Publishing"): letters, digits, '-' and '_',
    // at most 64. A server under a path prefix is fine: the topic is last.
    static const QRegularExpression topicName(QStringLiteral("^[-_A-Za-z0-9]{1,64}$"));
    const QStringList segments = url.path().split(u'/', Qt::SkipEmptyParts);
    if (segments.isEmpty())
        return refuse(error,
            QStringLiteral(
                "ntfy topic URL: it names no topic; give one such as https://ntfy.sh/<topic>"));
    if (!topicName.match(segments.last()).hasMatch())
        return refuse(error,
            QStringLiteral(
                "ntfy topic URL: the topic (its last path segment) may hold only letters, "
                "digits, '-' and '_', at most 64"));
    config.topicUrl = url;

    if (!options.tokenFile.isEmpty()) {
        QByteArray bytes;
        QString why;
        if (!readPrivateFile(options.tokenFile, MaxNtfyTokenFileBytes, &bytes, &why))
            return refuse(error, QStringLiteral("ntfy token file: ") + why);
        const QByteArray token = bytes.trimmed();
        if (token.isEmpty())
            return refuse(
                error, QStringLiteral("ntfy token file %1: it is empty").arg(options.tokenFile));
        // It goes into a header line: a space, CR or LF would break it or
        // add a header of its own.
        if (!std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
            return refuse(error,
                QStringLiteral("ntfy token file %1: the token must be one word of printable ASCII")
                    .arg(options.tokenFile));
        if (url.scheme() == u"http" && !isLoopbackHost(url.host()))
            return refuse(error,
                QStringLiteral("ntfy topic URL: plain http to %1 would send the access token "
                               "unencrypted; use https (http is accepted for loopback only)")
                    .arg(url.host()));
        config.tokenFile = options.tokenFile;
        config.token = token;
    }

    const QString page = options.pageOrigin.trimmed();
    if (!page.isEmpty()) {
        const QUrl origin(page, QUrl::StrictMode);
        const bool ok = origin.isValid() && isHttp(origin) && !origin.host().isEmpty()
            && origin.userInfo().isEmpty() && (origin.path().isEmpty() || origin.path() == u"/")
            && !origin.hasQuery() && !origin.hasFragment();
        if (!ok)
            return refuse(error,
                QStringLiteral("ntfy page origin: it must be scheme://host[:port] of the reviewer "
                               "page, such as https://holdpoint.example.com"));
        config.pageOrigin = origin.adjusted(QUrl::RemovePath).toString(QUrl::FullyEncoded);
    }
    return config;
}

NtfyNotifier::NtfyNotifier(NtfyConfig config, Clock *clock, QObject *parent)
    : Notifier(parent)
    , m_config(std::move(config))
    , m_clock(clock)
    , m_reminders(new ReminderSchedule(clock, this))
{
    connect(m_reminders, &ReminderSchedule::due, this, [this](const QueueItem &item) {
        if (m_pending.contains(item.id))
            publish(describePendingItem(item, m_clock->now(), true));
    });
}

NtfyNotifier::~NtfyNotifier()
{
    // The manager deletes its replies after this body; they must not call
    // back into a notifier that is half gone.
    const auto replies = m_network.findChildren<QNetworkReply *>();
    for (QNetworkReply *reply : replies) {
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
    }
}

int NtfyNotifier::armedReminders() const
{
    return m_reminders->armedCount();
}

void NtfyNotifier::itemAdded(const QueueItem &item)
{
    m_pending.insert(item.id);
    m_reminders->schedule(item);
    publish(describePendingItem(item, m_clock->now(), false));
}

void NtfyNotifier::itemResolved(const QueueItem &item)
{
    m_pending.erase(item.id);
    m_reminders->cancel(item.id);
}

QString NtfyNotifier::target() const
{
    const QUrl &url = m_config.topicUrl;
    return url.port() < 0 ? QStringLiteral("ntfy (%1)").arg(url.host())
                          : QStringLiteral("ntfy (%1:%2)").arg(url.host()).arg(url.port());
}

QNetworkRequest NtfyNotifier::requestFor(const Notification &n) const
{
    QNetworkRequest request(m_config.topicUrl);
    // A publish is never redirected; following one would carry the token
    // to wherever the redirect points.
    request.setAttribute(
        QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setHeader(
        QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("text/plain; charset=utf-8"));
    request.setHeader(
        QNetworkRequest::UserAgentHeader, QByteArrayLiteral("Holdpoint/" HOLDPOINT_VERSION));
    request.setRawHeader("Title", headerText(n.title));
    request.setRawHeader("Priority", ntfyPriority(n.urgency));
    request.setRawHeader("Tags", ntfyTags(n));
    if (!m_config.pageOrigin.isEmpty()) {
        const QByteArray id = QUrl::toPercentEncoding(toQString(n.itemId));
        request.setRawHeader("Click", m_config.pageOrigin.toLatin1() + "/#item=" + id);
    }
    if (!m_config.token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_config.token);
    return request;
}

void NtfyNotifier::publish(const Notification &n)
{
    if (m_inFlight >= m_config.maxInFlight) {
        ++m_dropped;
        // One report per burst: a restart that restores a hundred items
        // against a dead server says so once, not a hundred times.
        if (m_unreportedDrops++ == 0)
            QTimer::singleShot(0, this, &NtfyNotifier::reportDrops);
        return;
    }
    ++m_inFlight;
    send(Publish { n.itemId, n.reminder, requestFor(n), n.body.toUtf8(), 0 });
}

void NtfyNotifier::send(Publish publish)
{
    ++publish.attempts;
    QNetworkReply *reply = m_network.post(publish.request, publish.body);
    // A bound on the whole exchange, not only on silence between bytes
    // (QNetworkRequest::setTransferTimeout): a server that trickles bytes
    // must not hold a slot for ever.
    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, reply, &QNetworkReply::abort);
    deadline->start(m_config.timeoutMs);
    connect(reply, &QNetworkReply::finished, this, [this, reply, deadline, publish] {
        // A single-shot timer that fired is no longer active.
        onFinished(reply, !deadline->isActive(), publish);
    });
}

void NtfyNotifier::onFinished(QNetworkReply *reply, bool timedOut, Publish publish)
{
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->error() == QNetworkReply::NoError && status >= 200 && status < 300) {
        done(publish, {});
        return;
    }
    QString why;
    if (status != 0)
        why = httpFailure(status);
    else if (timedOut)
        why = QStringLiteral("no answer within %1")
                  .arg(m_config.timeoutMs % 1000 == 0
                          ? formatRemaining(m_config.timeoutMs)
                          : QStringLiteral("%1 ms").arg(m_config.timeoutMs));
    else
        why = networkFailure(reply->error());

    if (retryable(status) && publish.attempts <= m_config.maxRetries) {
        const int delay = m_config.retryDelayMs << (publish.attempts - 1);
        QTimer::singleShot(delay, this, [this, publish] {
            // Resolved meanwhile: the message would only mislead.
            if (m_pending.contains(publish.itemId))
                send(publish);
            else
                --m_inFlight;
        });
        return;
    }
    done(publish,
        publish.attempts == 1
            ? why
            : QStringLiteral("%1 after %2 attempts").arg(why).arg(publish.attempts));
}

void NtfyNotifier::done(const Publish &publish, const QString &failure)
{
    --m_inFlight;
    const QString id = toQString(publish.itemId);
    if (failure.isEmpty()) {
        Q_EMIT delivered(id, publish.reminder);
        return;
    }
    Q_EMIT failed(
        QStringLiteral("%1: the %2 for item %3 was not sent: %4")
            .arg(target(),
                publish.reminder ? QStringLiteral("reminder") : QStringLiteral("notification"), id,
                failure));
}

void NtfyNotifier::reportDrops()
{
    const int count = std::exchange(m_unreportedDrops, 0);
    if (count == 0)
        return;
    Q_EMIT failed(
        QStringLiteral("%1: %2 notification(s) dropped, %3 already in flight (%4 dropped in all)")
            .arg(target())
            .arg(count)
            .arg(m_config.maxInFlight)
            .arg(m_dropped));
}

} // namespace holdpoint
