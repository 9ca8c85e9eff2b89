// SPDX-License-Identifier: Apache-2.0
#include "devicesmodel.h"

#include "common/clock.h"
#include "itemtext.h"

#include <QDateTime>
#include <QFont>

#include <algorithm>
#include <unordered_map>

namespace holdpoint {

namespace {

struct Marker
{
    QLatin1StringView marker;
    QLatin1StringView name;
};

// Most specific first: Edge and Opera also say "Chrome/", Chrome also says
// "Safari/", and every browser on iOS says "Safari/" besides its own name.
constexpr Marker Browsers[] = {
    { QLatin1StringView("EdgiOS/"), QLatin1StringView("Edge") },
    { QLatin1StringView("EdgA/"), QLatin1StringView("Edge") },
    { QLatin1StringView("Edg/"), QLatin1StringView("Edge") },
    { QLatin1StringView("OPR/"), QLatin1StringView("Opera") },
    { QLatin1StringView("SamsungBrowser/"), QLatin1StringView("Samsung Internet") },
    { QLatin1StringView("FxiOS/"), QLatin1StringView("Firefox") },
    { QLatin1StringView("Firefox/"), QLatin1StringView("Firefox") },
    { QLatin1StringView("CriOS/"), QLatin1StringView("Chrome") },
    { QLatin1StringView("Chromium/"), QLatin1StringView("Chromium") },
    { QLatin1StringView("Chrome/"), QLatin1StringView("Chrome") },
    { QLatin1StringView("Safari/"), QLatin1StringView("Safari") },
    { QLatin1StringView("curl/"), QLatin1StringView("curl") },
};
// iPhones and iPads say "like Mac OS X", and Android says "Linux".
constexpr Marker Systems[] = {
    { QLatin1StringView("iPhone"), QLatin1StringView("iPhone") },
    { QLatin1StringView("iPad"), QLatin1StringView("iPad") },
    { QLatin1StringView("Android"), QLatin1StringView("Android") },
    { QLatin1StringView("CrOS"), QLatin1StringView("ChromeOS") },
    { QLatin1StringView("Windows"), QLatin1StringView("Windows") },
    { QLatin1StringView("Macintosh"), QLatin1StringView("macOS") },
    { QLatin1StringView("Linux"), QLatin1StringView("Linux") },
};

template <std::size_t N>
QLatin1StringView firstFound(const QString &text, const Marker (&markers)[N])
{
    for (const Marker &m : markers)
        if (text.contains(m.marker))
            return m.name;
    return {};
}

QString dateTime(TimeMs ms, const QString &format)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(format);
}

// "just now", "12 min ago", "3 h ago", "2 days ago".
QString since(TimeMs then, TimeMs now)
{
    const qint64 s = std::max<qint64>(0, (now - then) / 1000);
    if (s < 60)
        return QObject::tr("just now");
    if (s < 3600)
        return QObject::tr("%1 min ago").arg(s / 60);
    if (s < 24 * 3600)
        return QObject::tr("%1 h ago").arg(s / 3600);
    return QObject::tr("%1 ago").arg(
        counted(int(s / (24 * 3600)), QObject::tr("day"), QObject::tr("days")));
}

} // namespace

QString deviceName(const std::string &userAgent)
{
    const QString ua = toQString(userAgent).simplified();
    if (ua.isEmpty())
        return QObject::tr("unknown device");
    const QLatin1StringView browser = firstFound(ua, Browsers);
    const QLatin1StringView system = firstFound(ua, Systems);
    if (!browser.isEmpty() && !system.isEmpty())
        return QObject::tr("%1 on %2").arg(browser, system);
    if (!browser.isEmpty() || !system.isEmpty())
        return browser.isEmpty() ? QString(system) : QString(browser);
    return displaySafe(ua, 40);
}

DevicesModel::DevicesModel(WebSessions *sessions, Clock *clock, QObject *parent)
    : QAbstractTableModel(parent)
    , m_sessions(sessions)
    , m_clock(clock)
    , m_rows(current())
{ }

int DevicesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DevicesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DevicesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[std::size_t(index.row())];
    const WebSession &s = row.session;
    if (role == SessionIdRole)
        return toQString(s.id);
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Reviewer:
            return displaySafe(toQString(s.reviewer), 40);
        case Device:
            return deviceName(s.userAgent);
        case PairedVia:
            return displaySafe(toQString(s.pairedVia), 30);
        case Created:
            return dateTime(s.created, QStringLiteral("yyyy-MM-dd HH:mm"));
        case LastSeen:
            return since(s.lastSeen, m_clock->now());
        case PageOpen:
            return row.openPages == 0 ? tr("no")
                : row.openPages == 1  ? tr("yes")
                                      : tr("yes (%1)").arg(row.openPages);
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        switch (Column(index.column())) {
        case Device:
            return s.userAgent.empty() ? tr("The browser sent no User-Agent")
                                       : displaySafe(toQString(s.userAgent), 200);
        case Created:
            return dateTime(s.created, QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case LastSeen:
            return dateTime(s.lastSeen, QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case PageOpen:
            return row.openPages > 0
                ? tr("The reviewer page is open on this device now (%1)")
                      .arg(counted(row.openPages, tr("live connection"), tr("live connections")))
                : tr("No reviewer page is open on this device now");
        default:
            return tr("Session %1").arg(toQString(s.id));
        }
    }
    if (role == Qt::FontRole && index.column() == PageOpen && row.openPages > 0) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    return {};
}

QVariant DevicesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Reviewer:
        return tr("Reviewer");
    case Device:
        return tr("Device");
    case PairedVia:
        return tr("Paired via");
    case Created:
        return tr("Paired at");
    case LastSeen:
        return tr("Last seen");
    case PageOpen:
        return tr("Page open");
    case ColumnCount:
        break;
    }
    return {};
}

std::vector<DevicesModel::Row> DevicesModel::current() const
{
    std::vector<Row> rows;
    for (WebSession &s : m_sessions->list()) {
        const int pages = m_sessions->openPages(s.id);
        rows.push_back({ std::move(s), pages });
    }
    return rows;
}

void DevicesModel::refresh()
{
    std::vector<Row> fresh = current();
    std::unordered_map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < fresh.size(); ++i)
        at.emplace(fresh[i].session.id, i);

    // Gone (revoked, or idle too long): removed from the bottom up, so the
    // rows above keep their numbers.
    for (int i = rowCount() - 1; i >= 0; --i) {
        if (at.count(m_rows[std::size_t(i)].session.id))
            continue;
        beginRemoveRows({}, i, i);
        m_rows.erase(m_rows.begin() + i);
        endRemoveRows();
    }
    // Still there: a session's last use and open pages are all that change.
    std::vector<bool> kept(fresh.size(), false);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const std::size_t j = at.at(m_rows[i].session.id);
        kept[j] = true;
        if (fresh[j].openPages == m_rows[i].openPages
            && fresh[j].session.lastSeen == m_rows[i].session.lastSeen)
            continue;
        m_rows[i] = std::move(fresh[j]);
        Q_EMIT dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
    }
    // "Last seen" reads against the clock, so it moves on without a change.
    if (!m_rows.empty())
        Q_EMIT dataChanged(
            index(0, LastSeen), index(rowCount() - 1, LastSeen), { Qt::DisplayRole });
    // New: appended in the list's order (sessions are only ever added at its end).
    const auto added = std::count(kept.begin(), kept.end(), false);
    if (added == 0)
        return;
    beginInsertRows({}, rowCount(), rowCount() + int(added) - 1);
    for (std::size_t j = 0; j < fresh.size(); ++j)
        if (!kept[j])
            m_rows.push_back(std::move(fresh[j]));
    endInsertRows();
}

} // namespace holdpoint
