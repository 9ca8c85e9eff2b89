// SPDX-License-Identifier: Apache-2.0
#pragma once

// Notifications through ntfy (https://docs.ntfy.sh/publish/), self-hosted or
// ntfy.sh: one HTTP POST per message to the topic's URL, the text as the
// body and the rest as headers (Title, Priority, Tags, Click,
// Authorization). What a message says is describePendingItem()'s, so it
// never carries a call's arguments, context or secrets.

#include "notify/notification.h"
#include "notify/notifier.h"

#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QUrl>

#include <optional>
#include <string>
#include <unordered_set>

namespace holdpoint {

class ReminderSchedule;

// What the console's settings say about ntfy, unchecked.
struct NtfyOptions
{
    QString topicUrl; // https://ntfy.example.com/holdpoint-alice
    QString tokenFile; // empty: no Authorization header
    QString pageOrigin; // the reviewer page, https://host[:port]; empty: no Click link
};

inline constexpr qint64 MaxNtfyTokenFileBytes = 4096;

struct NtfyConfig
{
    QUrl topicUrl;
    QString tokenFile;
    QString pageOrigin; // scheme://host[:port], no trailing slash; empty: none
    // The access token read from tokenFile, sent only as "Authorization:
    // Bearer"; nothing prints it.
    QByteArray token;

    // Messages being sent or waiting to be retried; beyond this a new one is
    // dropped (counted and reported), so a dead server cannot pile up
    // requests while a queue fills.
    int maxInFlight = 32;
    // The whole exchange, connection included.
    int timeoutMs = 10'000;
    // Retries after a failed attempt, the first after retryDelayMs and each
    // next one twice as long.
    int maxRetries = 2;
    int retryDelayMs = 1'000;

    // Checks `options` and reads the token file. Refuses, with a message
    // that names the setting and never the token: a URL that is not http(s)
    // or names no topic, a URL with a user name or password (the token file
    // is the place for a credential), a query or fragment, plain http to a
    // host other than loopback when a token is set, a token file that is
    // not the user's own with mode 0600 (readPrivateFile), empty or not one
    // printable ASCII word, and a page origin that is not scheme://host[:port].
    static std::optional<NtfyConfig> fromOptions(const NtfyOptions &options, QString *error);
};

class NtfyNotifier final : public Notifier
{
    Q_OBJECT
public:
    // `clock` times the reminders (protocol time); network timeouts and
    // retry backoff run on real timers.
    NtfyNotifier(NtfyConfig config, Clock *clock, QObject *parent = nullptr);
    ~NtfyNotifier() override;

    void itemAdded(const QueueItem &item) override;
    void itemResolved(const QueueItem &item) override;

    int inFlight() const { return m_inFlight; }
    int droppedCount() const { return m_dropped; }
    int armedReminders() const;

Q_SIGNALS:
    // The server accepted the message (HTTP 2xx).
    void delivered(const QString &itemId, bool reminder);

private:
    struct Publish
    {
        std::string itemId;
        bool reminder = false;
        QNetworkRequest request;
        QByteArray body;
        int attempts = 0;
    };

    void publish(const Notification &notification);
    QNetworkRequest requestFor(const Notification &notification) const;
    void send(Publish publish);
    void onFinished(QNetworkReply *reply, bool timedOut, Publish publish);
    void done(const Publish &publish, const QString &failure);
    void reportDrops();
    // "ntfy (host:port)": the server without its topic, which on a public
    // server is as good as a password.
    QString target() const;

    NtfyConfig m_config;
    Clock *m_clock;
    QNetworkAccessManager m_network;
    ReminderSchedule *m_reminders;
    // Items still pending: a retry or reminder for any other is moot.
    std::unordered_set<std::string> m_pending;
    int m_inFlight = 0;
    int m_dropped = 0;
    int m_unreportedDrops = 0;
};

} // namespace holdpoint
