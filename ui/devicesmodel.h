// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "web/websessions.h"

#include <QAbstractTableModel>

#include <string>
#include <vector>

namespace holdpoint {

class Clock;

// "Firefox on Android", "Safari on iPhone": what a person recognises of a
// browser's User-Agent header, or the header itself, shortened, when it
// names nothing known.
QString deviceName(const std::string &userAgent);

// The reviewer page's device sessions (WEB.md "Who gets in"), a row each:
// who, which device, how it was paired, when, when last seen and whether
// a page is open on it now. refresh() follows the list by session id, so
// rows are inserted, removed and updated, never reset: the reviewer's
// selection survives a device pairing or going quiet.
class DevicesModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Reviewer,
        Device,
        PairedVia,
        Created,
        LastSeen,
        PageOpen,
        ColumnCount
    };
    enum Role
    {
        SessionIdRole = Qt::UserRole + 1, // QString
    };

    // `sessions` and `clock` outlive the model.
    DevicesModel(WebSessions *sessions, Clock *clock, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const WebSession &session(int row) const { return m_rows[std::size_t(row)].session; }
    int openPages(int row) const { return m_rows[std::size_t(row)].openPages; }

    // Reads the sessions again. The list's changed() calls it; so must a
    // timer, as last use and open pages change without a signal.
    void refresh();

private:
    struct Row
    {
        WebSession session;
        int openPages = 0;
    };
    std::vector<Row> current() const;

    WebSessions *m_sessions;
    Clock *m_clock;
    std::vector<Row> m_rows;
};

} // namespace holdpoint
