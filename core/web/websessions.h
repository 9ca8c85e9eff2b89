// SPDX-License-Identifier: Apache-2.0
#pragma once

// Who may use the reviewer page (WEB.md "Who gets in"): one-time pairing
// codes, the device sessions they open, and a limit on pairing attempts.
// A session has two halves: a token in the device's cookie, and a device
// key the page keeps in its origin's own storage and sends in a header.
// Browsers send a cookie to every port of its host, so a process on another
// loopback port that the reviewer visits gets the cookie; never the key.
// The file keeps only the SHA-256 of each, so a copy of it admits nobody.

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
// Wrong pairing codes a minute before more from the same address, or more
// of the same code, are answered 429 (WEB.md "Refusals").
inline constexpr TimeMs PairingFailureWindowMs = 60'000;
inline constexpr std::size_t PairingFailuresPerPeer = 5;
inline constexpr std::size_t PairingFailuresPerCode = 3;
// The header the page sends its device key in, lower case.
inline constexpr char DeviceKeyHeader[] = "x-holdpoint-device";

struct WebSession
{
    std::string id; // short and public: listed, and named by `web revoke`
    std::string reviewer; // decided_by is "human:<reviewer>"
    std::string pairedVia; // how the pairing link was asked for (console, holdpoint-ctl ...)
    std::string tokenSha256;
    std::string deviceSha256; // of the device key the page keeps (X-Holdpoint-Device)
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

// A pairing code as a link a person opens (WEB.md "Who gets in").
struct PairingLink
{
    QString url; // <origin>/pair#<code>
    TimeMs expires = 0;
};

struct Redeemed
{
    WebSession session;
    QByteArray token; // for the cookie; never stored
    QByteArray deviceKey; // for the page's own storage; never stored
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
    // The same, as a link to the page (origin()).
    PairingLink pairingLink(const std::string &reviewer, const std::string &via);

    // Where the page is: its first public origin, else the one it listens
    // on; set when it starts listening. The pairing links name it.
    QString origin() const { return m_origin; }
    void setOrigin(const QString &origin) { m_origin = origin; }
    // How many pages are open on session `id` now (live feeds that proved
    // its device key); the live feed keeps it.
    int openPages(const std::string &id) const;
    void setOpenPages(const std::string &id, int pages);
    // Spends `code`: a new session, or why not. `Unknown` when the code
    // is none this console made (nor one it spent).
    std::optional<Redeemed> redeem(
        const std::string &code, const std::string &userAgent, PairingRefusal *refusal);

    // The session whose cookie token and device key these are, or null;
    // touches its last use. A token without its key is nobody.
    const WebSession *authenticate(const QByteArray &token, const QByteArray &deviceKey);
    // The session whose cookie token this is, before its key is known: only
    // for a live feed's upgrade, which proves the key in its first message.
    const WebSession *findByToken(const QByteArray &token);
    // Whether `deviceKey` is the key of session `id`.
    bool deviceMatches(const std::string &id, const QByteArray &deviceKey) const;
    const WebSession *find(const std::string &id) const;
    std::vector<WebSession> list() const;
    bool revoke(const std::string &id);
    // Ends every session of a reviewer who may no longer decide.
    int revokeReviewer(const std::string &reviewer);

    // Whether a wrong code from `peer` would be refused for now: its
    // address, or the code itself, failed too often this minute (WEB.md).
    // A valid code is never asked about: it is redeemed whatever these say.
    bool pairingThrottled(const QString &peer, const std::string &code);
    // Counts a failed pairing attempt against the address and the code.
    void pairingFailed(const QString &peer, const std::string &code);

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
    // Failed pairing attempts this minute, by address and by code digest.
    QHash<QString, std::deque<TimeMs>> m_failuresByPeer;
    std::unordered_map<std::string, std::deque<TimeMs>> m_failuresByCode;
    QString m_error;
    QString m_origin;
    std::unordered_map<std::string, int> m_openPages;
};

} // namespace holdpoint
