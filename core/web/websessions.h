// SPDX-License-Identifier: Apache-2.0
#pragma once

// Who may use the reviewer page (WEB.md "Who gets in"): one-time pairing
// codes, the device sessions they open, and a limit on pairing attempts.
// The file keeps only each session token's SHA-256, so a copy of it admits
// nobody; the token itself lives in the device's cookie.

#include "common/clock.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>

#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace holdpoint {

inline constexpr char WebSessionsFileName[] = "web-sessions.json";
inline constexpr TimeMs PairingLifetimeMs = 5 * 60'000;
inline constexpr TimeMs WebSessionIdleMs = 30LL * 24 * 3600'000; // unused this long: ended
inline constexpr std::size_t MaxWebSessions = 200;
inline constexpr std::size_t MaxOpenPairings = 20;

struct WebSession
{
    std::string id; // short and public: listed, and named by `web revoke`
    std::string reviewer; // decided_by is "human:<reviewer>"
    std::string pairedVia; // how the pairing link was asked for (console, holdpoint-ctl ...)
    std::string tokenSha256;
    std::string csrf; // sent back on every POST; useless without the cookie
    std::string userAgent;
    TimeMs created = 0;
    TimeMs lastSeen = 0;
};

struct PairingCode
{
    std::string code; // the secret, in the link's fragment
    std::string reviewer;
    std::string pairedVia;
    TimeMs expires = 0;
};

// Why a pairing code was not accepted; the WEB.md error codes.
enum class PairingRefusal
{
    Unknown,
    Used,
    Expired,
};

struct Redeemed
{
    WebSession session;
    QByteArray token; // for the cookie; never stored
};

class WebSessions final : public QObject
{
    Q_OBJECT
public:
    // `file` empty: sessions last as long as the process.
    WebSessions(QString file, Clock *clock, QObject *parent = nullptr);

    // Reads the file; a missing one is an empty list. A file that is not
    // private or not valid is refused with why.
    bool load(QString *error);

    // A code that opens one session for `reviewer`, once, for 5 minutes.
    PairingCode pair(const std::string &reviewer, const std::string &via);
    // Spends `code`: a new session, or why not.
    std::optional<Redeemed> redeem(const std::string &code, const std::string &userAgent,
        PairingRefusal *refusal);

    // The session whose token this is, or null; touches its last use.
    const WebSession *authenticate(const QByteArray &token);
    const WebSession *find(const std::string &id) const;
    std::vector<WebSession> list() const;
    bool revoke(const std::string &id);
    // Ends every session of a reviewer who may no longer decide.
    int revokeReviewer(const std::string &reviewer);

    // Pairing attempts from one address: true while under the limit
    // (5 a minute per address, 30 a minute in all), counting this one.
    bool admitPairingAttempt(const QString &peer);

    QString lastError() const { return m_error; }

Q_SIGNALS:
    void revoked(const std::string &id);
    // The list changed: added, revoked or expired.
    void changed();

private:
    void expire();
    void save();

    QString m_file;
    Clock *m_clock;
    std::vector<WebSession> m_sessions;
    std::vector<PairingCode> m_pairings;
    // Spent codes, until they would have expired: a second use says "used".
    std::unordered_map<std::string, TimeMs> m_spent;
    QHash<QString, std::deque<TimeMs>> m_attempts;
    std::deque<TimeMs> m_allAttempts;
    QString m_error;
};

} // namespace holdpoint
