// SPDX-License-Identifier: Apache-2.0
#pragma once

// The console's other views, as models over what core records and knows:
// turns as timelines, decided calls, agent sessions, the policy's guardrails.

#include "audit/auditfilter.h"
#include "common/json.h"

#include <QAbstractItemModel>
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace holdpoint {

class ConsoleCore;

// Each agent session's turns as a timeline of calls and their outcomes,
// from call, decision and after_call records (ConsoleCore::activity, and the
// audit log at start). Loop-detection findings are highlighted with their
// pattern and counts: this is where a person reviews a turn after the fact.
class TurnsModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Time,
        Tool,
        Outcome,
        DecidedBy,
        Loop,
        ColumnCount
    };
    enum Roles
    {
        LoopLevelRole = Qt::UserRole + 1,
        HighlightRole, // a call a queue item's loop finding names
    };
    // A turn as the queue knows it: turn "" is a session's calls outside any turn.
    struct TurnKey
    {
        std::string session;
        std::string turn;
    };

    explicit TurnsModel(QObject *parent = nullptr);
    ~TurnsModel() override;

    void addRecord(const Json &record);
    // The turn's row, or an invalid index when it has no call yet.
    QModelIndex turnIndex(const TurnKey &turn) const;
    // The turn of a turn row, or of a call row.
    std::optional<TurnKey> turnAt(const QModelIndex &index) const;
    // Marks these calls of a session (and no others) as the ones to look at.
    void setHighlighted(const std::string &session, const std::vector<std::string> &callIds);
    void setMaxCalls(std::size_t max) { m_maxCalls = max; }
    std::size_t callCount() const { return m_calls; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    struct Node;

private:
    Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOf(Node *node, int column = 0) const;
    void raiseLoopLevel(Node *node, int level);
    void dropOldestSession();

    std::unique_ptr<Node> m_root;
    std::unordered_map<std::string, Node *> m_byCall; // session + '\n' + call id
    std::vector<Node *> m_highlighted;
    std::size_t m_calls = 0;
    std::size_t m_maxCalls = 20'000;
};

// Decided calls, newest first: the History view.
class HistoryModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Time,
        Agent,
        Tool,
        Arguments,
        Decision,
        DecidedBy,
        Reason,
        Call,
        ColumnCount
    };

    explicit HistoryModel(QObject *parent = nullptr);
    // Takes decision records, and call records for the arguments each
    // decision let run; ignores the rest.
    void addRecord(const Json &record);
    void setMaxRows(std::size_t max) { m_max = max; }
    const Json &record(int row) const { return m_rows[std::size_t(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::deque<Json> m_rows;
    std::deque<Json> m_args; // beside each row: the arguments that ran (or were asked)
    std::size_t m_max = 20'000;
    // Calls not decided yet: their masked args, by session and call id.
    std::unordered_map<std::string, Json> m_pendingArgs;
};

// History filtered with the same predicate as `holdpoint-ctl audit query`.
class HistoryProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit HistoryProxy(HistoryModel *source, QObject *parent = nullptr);
    void setFilter(const audit::Filter &filter);
    const audit::Filter &filter() const { return m_filter; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    HistoryModel *m_source;
    audit::Filter m_filter;
};

// Agent sessions: connected or waiting to resume, with their pending calls.
class AgentsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Agent,
        Framework,
        State,
        Pending,
        LastActivity,
        Turn,
        Standing,
        Session,
        ColumnCount
    };

    AgentsModel(ConsoleCore *core, QObject *parent = nullptr);
    void refresh();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString id, agent, framework, state, turn, standing;
        int pending = 0;
        qint64 lastActivity = 0;
        bool connected = false;
    };
    ConsoleCore *m_core;
    std::vector<Row> m_rows;
};

// The policy in force: its guardrails, their settings and health.
class PolicyModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Position,
        Name,
        OnFailure,
        Budget,
        Health,
        ColumnCount
    };

    explicit PolicyModel(ConsoleCore *core, QObject *parent = nullptr);
    void refresh();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString name, onFailure, budget, health;
        bool healthy = true;
    };
    ConsoleCore *m_core;
    std::vector<Row> m_rows;
};

} // namespace holdpoint
