// SPDX-License-Identifier: Apache-2.0
#include "websessions.h"

#include "common/datadir.h"
#include "common/jsonparse.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"

#include <QRandomGenerator>

#include <algorithm>

namespace holdpoint {

namespace {

constexpr int FileVersion = 1;
constexpr qint64 MaxFileBytes = 512 * 1024;
constexpr TimeMs AttemptWindowMs = 60'000;
constexpr std::size_t AttemptsPerPeer = 5;
constexpr std::size_t AttemptsInAll = 30;

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
        { "token_sha256", s.tokenSha256 }, { "csrf", s.csrf }, { "user_agent", s.userAgent },
        { "created", s.created }, { "last_seen", s.lastSeen } };
}

// The file is ours: anything unexpected is refused, not guessed at.
bool sessionFromJson(const Json &j, WebSession *s, std::string *error)
{
    static const char *const fields[] = { "id", "reviewer", "paired_via", "token_sha256", "csrf",
        "user_agent", "created", "last_seen" };
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
    s->csrf = j["csrf"];
    s->userAgent = j["user_agent"];
    s->created = j["created"];
    s->lastSeen = j["last_seen"];
    if (s->tokenSha256.size() != 64 || s->csrf.empty() || s->id.empty()) {
        *error = "a session without a token digest, id or CSRF token";
        return false;
    }
    return true;
}

void trim(std::deque<TimeMs> &times, TimeMs now)
{
    while (!times.empty() && times.front() <= now - AttemptWindowMs)
        times.pop_front();
}

} // namespace

WebSessions::WebSessions(QString file, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_file(std::move(file))
    , m_clock(clock)
{
}

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
    if (!j.is_object() || j.value("version", Json()) != FileVersion || !j.contains("sessions")
        || !j["sessions"].is_array() || j.size() != 2) {
        *error = m_file + QStringLiteral(": expected {\"version\": 1, \"sessions\": [...]}");
        return false;
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
    r.session = WebSession { newId(), p.reviewer, p.pairedVia, sha256Hex(r.token.toStdString()),
        generateToken().toStdString(), userAgent.substr(0, 200), now, now };
    m_sessions.push_back(r.session);
    save();
    Q_EMIT changed();
    return r;
}

const WebSession *WebSessions::authenticate(const QByteArray &token)
{
    if (token.isEmpty())
        return nullptr;
    expire();
    // Compared as digests: how long the search takes says nothing about the token.
    const std::string digest = sha256Hex(token.toStdString());
    for (WebSession &s : m_sessions) {
        if (s.tokenSha256 == digest) {
            // Written at most once an hour: a page polling must not rewrite the file.
            const bool persist = m_clock->now() - s.lastSeen > 3600'000;
            s.lastSeen = m_clock->now();
            if (persist)
                save();
            return &s;
        }
    }
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
    const auto it
        = std::find_if(m_sessions.begin(), m_sessions.end(), [&](const WebSession &s) { return s.id == id; });
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

bool WebSessions::admitPairingAttempt(const QString &peer)
{
    const TimeMs now = m_clock->now();
    std::deque<TimeMs> &mine = m_attempts[peer];
    trim(mine, now);
    trim(m_allAttempts, now);
    if (mine.size() >= AttemptsPerPeer || m_allAttempts.size() >= AttemptsInAll)
        return false;
    mine.push_back(now);
    m_allAttempts.push_back(now);
    if (m_attempts.size() > 1000) // forget quiet addresses
        for (auto it = m_attempts.begin(); it != m_attempts.end();)
            it = (trim(it.value(), now), it.value().empty()) ? m_attempts.erase(it) : std::next(it);
    return true;
}

void WebSessions::expire()
{
    const TimeMs now = m_clock->now();
    std::erase_if(m_pairings, [now](const PairingCode &p) { return now >= p.expires + PairingLifetimeMs; });
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
