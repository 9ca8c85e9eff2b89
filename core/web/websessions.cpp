// SPDX-License-Identifier: Apache-2.0
#include "websessions.h"

#include "common/datadir.h"
#include "common/jsonparse.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"
#include "server/endpoint.h"

#include <QRandomGenerator>

#include <algorithm>

namespace holdpoint {

namespace {

// Version 2 added device_sha256. A version 1 session has no device key,
// so nothing could prove it: such sessions are dropped, and their devices
// pair again.
constexpr int FileVersion = 2;
constexpr qint64 MaxFileBytes = 512 * 1024;
constexpr int MaxFailureKeys = 1000; // addresses or codes remembered at once

// 128 bits, URL-safe: short enough for a QR code that scans at a glance.
std::string newCode()
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof words)
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
        .toStdString();
}

std::string newId()
{
    return generateToken().left(10).toStdString();
}

Json sessionToJson(const WebSession &s)
{
    return Json { { "id", s.id }, { "reviewer", s.reviewer }, { "paired_via", s.pairedVia },
        { "token_sha256", s.tokenSha256 }, { "device_sha256", s.deviceSha256 }, { "csrf", s.csrf },
        { "user_agent", s.userAgent }, { "created", s.created }, { "last_seen", s.lastSeen } };
}

// The file is ours: anything unexpected is refused, not guessed at.
bool sessionFromJson(const Json &j, WebSession *s, std::string *error)
{
    static const char *const fields[] = { "id", "reviewer", "paired_via", "token_sha256",
        "device_sha256", "csrf", "user_agent", "created", "last_seen" };
    if (!j.is_object() || j.size() != std::size(fields)) {
        *error = "each session is an object with exactly the fields the console writes";
        return false;
    }
    for (const char *f : fields) {
        const auto it = j.find(f);
        const bool number = std::string_view(f) == "created" || std::string_view(f) == "last_seen";
        if (it == j.end() || (number ? !it->is_number_integer() : !it->is_string())) {
            *error = std::string(f) + ": missing or of the wrong type";
            return false;
        }
    }
    s->id = j["id"];
    s->reviewer = j["reviewer"];
    s->pairedVia = j["paired_via"];
    s->tokenSha256 = j["token_sha256"];
    s->deviceSha256 = j["device_sha256"];
    s->csrf = j["csrf"];
    s->userAgent = j["user_agent"];
    s->created = j["created"];
    s->lastSeen = j["last_seen"];
    if (s->tokenSha256.size() != 64 || s->deviceSha256.size() != 64 || s->csrf.empty()
        || s->id.empty()) {
        *error = "a session without a token digest, device key digest, id or CSRF token";
        return false;
    }
    return true;
}

void trim(std::deque<TimeMs> &times, TimeMs now)
{
    while (!times.empty() && times.front() <= now - PairingFailureWindowMs)
        times.pop_front();
}

std::deque<TimeMs> &timesOf(QHash<QString, std::deque<TimeMs>>::iterator it)
{
    return it.value();
}

std::deque<TimeMs> &timesOf(std::unordered_map<std::string, std::deque<TimeMs>>::iterator it)
{
    return it->second;
}

// Forgets keys with no failure left in the window, once there are many;
// past four times that (a flood of fresh codes or addresses in one minute)
// forgets them all rather than grow without bound: the counts only quiet a
// guesser, and a valid code never depends on them.
template <typename Map> void forgetQuiet(Map &map, TimeMs now)
{
    if (qsizetype(map.size()) <= MaxFailureKeys)
        return;
    for (auto it = map.begin(); it != map.end();) {
        trim(timesOf(it), now);
        it = timesOf(it).empty() ? map.erase(it) : std::next(it);
    }
    if (qsizetype(map.size()) > 4 * MaxFailureKeys)
        map.clear();
}

} // namespace

WebSessions::WebSessions(QString file, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_file(std::move(file))
    , m_clock(clock)
{ }

bool WebSessions::load(QString *error)
{
    m_sessions.clear();
    if (m_file.isEmpty())
        return true;
    QByteArray bytes;
    bool missing = false;
    if (!readPrivateFile(m_file, MaxFileBytes, &bytes, error, &missing))
        return missing;
    Json j;
    std::string why;
    if (!parseStrictJson(bytes.toStdString(), 8, &j, &why)) {
        *error = m_file + QStringLiteral(": ") + toQString(why);
        return false;
    }
    const bool known = j.is_object()
        && (j.value("version", Json()) == FileVersion || j.value("version", Json()) == 1);
    if (!known || !j.contains("sessions") || !j["sessions"].is_array() || j.size() != 2) {
        *error = m_file + QStringLiteral(": expected {\"version\": 2, \"sessions\": [...]}");
        return false;
    }
    if (j["version"] == 1) {
        // Cookie-only sessions: a process on another port of this host may
        // hold their cookie. Their devices pair again.
        save();
        return true;
    }
    for (std::size_t i = 0; i < j["sessions"].size(); ++i) {
        WebSession s;
        if (!sessionFromJson(j["sessions"][i], &s, &why)) {
            *error = m_file + QStringLiteral(": sessions[%1]: ").arg(i) + toQString(why);
            m_sessions.clear();
            return false;
        }
        m_sessions.push_back(std::move(s));
    }
    expire();
    return true;
}

PairingLink WebSessions::pairingLink(const std::string &reviewer, const std::string &via)
{
    const PairingCode code = pair(reviewer, via);
    return { m_origin + QStringLiteral("/pair#") + QString::fromStdString(code.code),
        code.expires };
}

int WebSessions::openPages(const std::string &id) const
{
    const auto it = m_openPages.find(id);
    return it == m_openPages.end() ? 0 : it->second;
}

void WebSessions::setOpenPages(const std::string &id, int pages)
{
    if (pages > 0)
        m_openPages[id] = pages;
    else
        m_openPages.erase(id);
}

PairingCode WebSessions::pair(const std::string &reviewer, const std::string &via)
{
    expire();
    // The oldest open code gives way: asking again is how a person recovers
    // from a lost link, and must always work.
    if (m_pairings.size() >= MaxOpenPairings)
        m_pairings.erase(m_pairings.begin());
    PairingCode p { newCode(), reviewer, via, m_clock->now() + PairingLifetimeMs };
    m_pairings.push_back(p);
    return p;
}

std::optional<Redeemed> WebSessions::redeem(
    const std::string &code, const std::string &userAgent, PairingRefusal *refusal)
{
    const TimeMs now = m_clock->now();
    const std::string digest = sha256Hex(code);
    if (m_spent.count(digest)) {
        *refusal = PairingRefusal::Used;
        return std::nullopt;
    }
    const auto it = std::find_if(m_pairings.begin(), m_pairings.end(),
        [&](const PairingCode &p) { return sha256Hex(p.code) == digest; });
    if (it == m_pairings.end()) {
        *refusal = PairingRefusal::Unknown;
        return std::nullopt;
    }
    const PairingCode p = *it;
    m_pairings.erase(it);
    m_spent[digest] = p.expires;
    if (now >= p.expires) {
        *refusal = PairingRefusal::Expired;
        return std::nullopt;
    }
    if (m_sessions.size() >= MaxWebSessions) {
        // The least recently used device makes room.
        const auto oldest = std::min_element(m_sessions.begin(), m_sessions.end(),
            [](const WebSession &a, const WebSession &b) { return a.lastSeen < b.lastSeen; });
        revoke(oldest->id);
    }
    Redeemed r;
    r.token = generateToken();
    r.deviceKey = generateToken();
    r.session = WebSession { newId(), p.reviewer, p.pairedVia, sha256Hex(r.token.toStdString()),
        sha256Hex(r.deviceKey.toStdString()), generateToken().toStdString(),
        userAgent.substr(0, 200), now, now };
    m_sessions.push_back(r.session);
    save();
    Q_EMIT changed();
    return r;
}

const WebSession *WebSessions::authenticate(const QByteArray &token, const QByteArray &deviceKey)
{
    const WebSession *found = findByToken(token);
    if (!found || !deviceMatches(found->id, deviceKey))
        return nullptr;
    WebSession &s = m_sessions[std::size_t(found - m_sessions.data())];
    // Written at most once an hour: a page polling must not rewrite the file.
    const bool persist = m_clock->now() - s.lastSeen > 3600'000;
    s.lastSeen = m_clock->now();
    if (persist)
        save();
    return &s;
}

bool WebSessions::deviceMatches(const std::string &id, const QByteArray &deviceKey) const
{
    const WebSession *s = find(id);
    if (!s || deviceKey.isEmpty())
        return false;
    // Compared as digests, in constant time.
    return Endpoint::constantTimeEquals(
        QByteArray::fromStdString(sha256Hex(deviceKey.toStdString())),
        QByteArray::fromStdString(s->deviceSha256));
}

const WebSession *WebSessions::findByToken(const QByteArray &token)
{
    if (token.isEmpty())
        return nullptr;
    expire();
    // Compared as digests: how long the search takes says nothing about the token.
    const std::string digest = sha256Hex(token.toStdString());
    for (const WebSession &s : m_sessions)
        if (s.tokenSha256 == digest)
            return &s;
    return nullptr;
}

const WebSession *WebSessions::find(const std::string &id) const
{
    for (const WebSession &s : m_sessions)
        if (s.id == id)
            return &s;
    return nullptr;
}

std::vector<WebSession> WebSessions::list() const
{
    return m_sessions;
}

bool WebSessions::revoke(const std::string &id)
{
    const auto it = std::find_if(
        m_sessions.begin(), m_sessions.end(), [&](const WebSession &s) { return s.id == id; });
    if (it == m_sessions.end())
        return false;
    m_sessions.erase(it);
    save();
    Q_EMIT revoked(id);
    Q_EMIT changed();
    return true;
}

int WebSessions::revokeReviewer(const std::string &reviewer)
{
    std::vector<std::string> ids;
    for (const WebSession &s : m_sessions)
        if (s.reviewer == reviewer)
            ids.push_back(s.id);
    for (const std::string &id : ids)
        revoke(id);
    return int(ids.size());
}

bool WebSessions::pairingThrottled(const QString &peer, const std::string &code)
{
    const TimeMs now = m_clock->now();
    const auto peerIt = m_failuresByPeer.find(peer);
    if (peerIt != m_failuresByPeer.end()) {
        trim(peerIt.value(), now);
        if (peerIt.value().size() >= PairingFailuresPerPeer)
            return true;
    }
    const auto codeIt = m_failuresByCode.find(sha256Hex(code));
    if (codeIt != m_failuresByCode.end()) {
        trim(codeIt->second, now);
        if (codeIt->second.size() >= PairingFailuresPerCode)
            return true;
    }
    return false;
}

void WebSessions::pairingFailed(const QString &peer, const std::string &code)
{
    const TimeMs now = m_clock->now();
    forgetQuiet(m_failuresByPeer, now);
    forgetQuiet(m_failuresByCode, now);
    std::deque<TimeMs> &byPeer = m_failuresByPeer[peer];
    trim(byPeer, now);
    byPeer.push_back(now);
    std::deque<TimeMs> &byCode = m_failuresByCode[sha256Hex(code)];
    trim(byCode, now);
    byCode.push_back(now);
}

void WebSessions::expire()
{
    const TimeMs now = m_clock->now();
    std::erase_if(
        m_pairings, [now](const PairingCode &p) { return now >= p.expires + PairingLifetimeMs; });
    std::erase_if(m_spent, [now](const auto &e) { return now >= e.second + PairingLifetimeMs; });
    std::vector<std::string> idle;
    for (const WebSession &s : m_sessions)
        if (now - s.lastSeen > WebSessionIdleMs)
            idle.push_back(s.id);
    for (const std::string &id : idle)
        revoke(id);
}

void WebSessions::save()
{
    if (m_file.isEmpty())
        return;
    Json sessions = Json::array();
    for (const WebSession &s : m_sessions)
        sessions.push_back(sessionToJson(s));
    const Json j { { "version", FileVersion }, { "sessions", std::move(sessions) } };
    QString error;
    if (!writePrivateFile(m_file, QByteArray::fromStdString(dumpJson(j, 2) + '\n'), &error))
        m_error = error;
    else
        m_error.clear();
}

} // namespace holdpoint
