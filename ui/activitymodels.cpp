// SPDX-License-Identifier: Apache-2.0
#include "activitymodels.h"

#include "common/visibletext.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "queuemodel.h"

#include <QColor>
#include <QDateTime>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace holdpoint {

namespace {

QString str(const Json &r, const char *key)
{
    const auto it = r.find(key);
    return it != r.end() && it->is_string() ? displaySafe(toQString(it->get<std::string>()), 200)
                                            : QString();
}

QString localTime(const std::string &iso)
{
    const QDateTime t = QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : QString();
}

// A translucent tint over the palette's own base, so both light and dark
// themes keep their text readable.
QColor tint(int level)
{
    switch (level) {
    case 1:
        return QColor(240, 180, 0, 60); // warn
    case 2:
        return QColor(240, 110, 0, 80); // blocked
    case 3:
        return QColor(220, 40, 40, 90); // halted
    default:
        return {};
    }
}

int loopLevelOf(const std::string &action)
{
    if (action == "halt")
        return 3;
    if (action == "deny")
        return 2;
    if (action == "warn" || action == "ask")
        return 1;
    return 0;
}

} // namespace

struct TurnsModel::Node
{
    enum Kind
    {
        Root,
        Session,
        Turn,
        Call
    } kind
        = Root;
    Node *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;
    QString name, time, tool, outcome, decidedBy, reason;
    QStringList loop;
    int loopLevel = 0;
    bool highlighted = false;
    std::string key; // session or turn id
};

TurnsModel::TurnsModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{ }

TurnsModel::~TurnsModel() = default;

TurnsModel::Node *TurnsModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

QModelIndex TurnsModel::indexOf(Node *node, int column) const
{
    return node == m_root.get() ? QModelIndex() : createIndex(node->row, column, node);
}

QModelIndex TurnsModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node *p = nodeOf(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || row >= int(p->children.size()))
        return {};
    return createIndex(row, column, p->children[std::size_t(row)].get());
}

QModelIndex TurnsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOf(nodeOf(child)->parent);
}

int TurnsModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int TurnsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TurnsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node *n = nodeOf(index);
    if (role == LoopLevelRole)
        return n->loopLevel;
    if (role == HighlightRole)
        return n->highlighted;
    if (role == Qt::FontRole && n->highlighted) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::BackgroundRole && n->loopLevel > 0)
        return tint(n->loopLevel);
    if (role == Qt::ToolTipRole && index.column() == Outcome && !n->reason.isEmpty())
        return n->reason;
    if (role == Qt::ToolTipRole && index.column() == Loop && !n->loop.isEmpty())
        return n->loop.join(u'\n');
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Name:
        return n->highlighted ? QStringLiteral("\u25b8 ") + n->name : n->name;
    case Time:
        return n->time;
    case Tool:
        return n->tool;
    case Outcome:
        return n->outcome;
    case DecidedBy:
        return n->decidedBy;
    case Loop:
        if (n->kind == Node::Call)
            return n->loop.join(QStringLiteral("; "));
        return n->loopLevel ? tr("loop detection: see calls") : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant TurnsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Name:
        return tr("Session / turn / call");
    case Time:
        return tr("Time");
    case Tool:
        return tr("Tool");
    case Outcome:
        return tr("Outcome");
    case DecidedBy:
        return tr("Decided by");
    case Loop:
        return tr("Loop detection");
    case ColumnCount:
        break;
    }
    return {};
}

void TurnsModel::raiseLoopLevel(Node *node, int level)
{
    for (Node *n = node; n && n != m_root.get(); n = n->parent) {
        if (n->loopLevel >= level)
            break;
        n->loopLevel = level;
        Q_EMIT dataChanged(indexOf(n, 0), indexOf(n, ColumnCount - 1));
    }
}

QModelIndex TurnsModel::turnIndex(const TurnKey &key) const
{
    for (const auto &s : m_root->children)
        if (s->key == key.session)
            for (const auto &t : s->children)
                if (t->key == key.turn)
                    return indexOf(t.get());
    return {};
}

std::optional<TurnsModel::TurnKey> TurnsModel::turnAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return std::nullopt;
    const Node *n = nodeOf(index.siblingAtColumn(0));
    if (n->kind == Node::Call)
        n = n->parent;
    if (n->kind != Node::Turn)
        return std::nullopt;
    return TurnKey { n->parent->key, n->key };
}

void TurnsModel::setHighlighted(const std::string &session, const std::vector<std::string> &callIds)
{
    std::vector<Node *> before = std::move(m_highlighted);
    m_highlighted.clear();
    for (const std::string &id : callIds)
        if (auto it = m_byCall.find(session + '\n' + id); it != m_byCall.end())
            m_highlighted.push_back(it->second);
    for (Node *n : before)
        n->highlighted = false;
    for (Node *n : m_highlighted)
        n->highlighted = true;
    for (std::vector<Node *> *list : { &before, &m_highlighted })
        for (Node *n : *list)
            Q_EMIT dataChanged(indexOf(n, 0), indexOf(n, ColumnCount - 1));
}

void TurnsModel::dropOldestSession()
{
    if (m_root->children.empty())
        return;
    Node *oldest = m_root->children.front().get();
    // Its calls go; so do any marks on them.
    std::erase_if(m_highlighted, [oldest](Node *n) { return n->parent->parent == oldest; });
    beginRemoveRows({}, 0, 0);
    for (const auto &turn : oldest->children) {
        for (const auto &call : turn->children) {
            m_byCall.erase(oldest->key + '\n' + call->key);
            --m_calls;
        }
    }
    m_root->children.erase(m_root->children.begin());
    for (std::size_t i = 0; i < m_root->children.size(); ++i)
        m_root->children[i]->row = int(i);
    endRemoveRows();
}

void TurnsModel::addRecord(const Json &r)
{
    const std::string event = r.value("event", std::string());
    const std::string session = r.value("session", std::string());
    const std::string callId = r.value("call_id", std::string());
    if (session.empty() || callId.empty())
        return;
    const std::string key = session + '\n' + callId;

    // Loop detection's verdicts carry the pattern and its counts.
    auto loopNotes = [&](Node *call) {
        for (const Json &v : r.value("trail", Json::array())) {
            const Json meta = v.value("metadata", Json::object());
            // Loop detection's metadata: the pattern with its count and threshold.
            if (!meta.is_object() || !meta.contains("pattern") || !meta.contains("count")
                || !meta.contains("threshold"))
                continue;
            const std::string action = v.value("action", std::string());
            const int level = loopLevelOf(action);
            if (level == 0)
                continue;
            call->loop << tr("%1: %2, %3 times (threshold %4)")
                              .arg(toQString(action), str(meta, "pattern"))
                              .arg(meta.value("count", 0))
                              .arg(meta.value("threshold", 0));
            raiseLoopLevel(call, level);
        }
    };

    if (event == "call") {
        if (m_byCall.contains(key))
            return;
        // The session, then the turn, created as they first appear.
        Node *s = nullptr;
        for (const auto &c : m_root->children)
            if (c->key == session)
                s = c.get();
        if (!s) {
            const int row = int(m_root->children.size());
            beginInsertRows({}, row, row);
            auto n = std::make_unique<Node>();
            n->kind = Node::Session;
            n->parent = m_root.get();
            n->row = row;
            n->key = session;
            n->name = str(r, "agent") + QStringLiteral("  (") + toQString(session) + u')';
            n->time = localTime(r.value("ts", std::string()));
            s = n.get();
            m_root->children.push_back(std::move(n));
            endInsertRows();
        }
        const std::string turnId = r.value("turn", std::string());
        Node *t = nullptr;
        for (const auto &c : s->children)
            if (c->key == turnId)
                t = c.get();
        if (!t) {
            const int row = int(s->children.size());
            beginInsertRows(indexOf(s), row, row);
            auto n = std::make_unique<Node>();
            n->kind = Node::Turn;
            n->parent = s;
            n->row = row;
            n->key = turnId;
            n->name
                = turnId.empty() ? tr("(outside any turn)") : tr("turn %1").arg(toQString(turnId));
            n->time = localTime(r.value("ts", std::string()));
            t = n.get();
            s->children.push_back(std::move(n));
            endInsertRows();
        }
        const int row = int(t->children.size());
        beginInsertRows(indexOf(t), row, row);
        auto n = std::make_unique<Node>();
        n->kind = Node::Call;
        n->parent = t;
        n->row = row;
        n->key = callId;
        n->name = toQString(callId);
        n->time = localTime(r.value("ts", std::string()));
        n->tool = str(r, "tool");
        const std::string outcome = r.value("outcome", std::string());
        n->outcome = outcome == "ask" ? tr("waiting for a person") : toQString(outcome);
        Node *call = n.get();
        t->children.push_back(std::move(n));
        m_byCall.emplace(key, call);
        ++m_calls;
        endInsertRows();
        loopNotes(call);
        while (m_calls > m_maxCalls && m_root->children.size() > 1)
            dropOldestSession();
        return;
    }
    const auto it = m_byCall.find(key);
    if (it == m_byCall.end())
        return;
    Node *call = it->second;
    if (event == "decision") {
        call->outcome = str(r, "decision");
        if (r.value("state", std::string()) != "auto"
            && r.value("state", std::string()) != "decided")
            call->outcome += QStringLiteral(" (") + str(r, "state") + u')';
        call->decidedBy = str(r, "decided_by");
        call->reason = str(r, "reason");
        Q_EMIT dataChanged(indexOf(call, 0), indexOf(call, ColumnCount - 1));
    } else if (event == "after_call") {
        loopNotes(call);
        Q_EMIT dataChanged(indexOf(call, 0), indexOf(call, ColumnCount - 1));
    }
}

HistoryModel::HistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void HistoryModel::addRecord(const Json &record)
{
    const std::string event = record.value("event", std::string());
    const std::string key
        = record.value("session", std::string()) + '\n' + record.value("call_id", std::string());
    if (event == "call") {
        // Bounded like the rows: a call nobody decides must not grow this forever.
        if (m_pendingArgs.size() >= m_max)
            m_pendingArgs.clear();
        m_pendingArgs[key] = record.value("args", Json::object());
        return;
    }
    if (event != "decision")
        return;
    // What ran: the decision's own args when it changed them, else the
    // call's. Kept beside the record, so filters match the record as written.
    Json args = record.value("args", Json());
    if (auto it = m_pendingArgs.find(key); it != m_pendingArgs.end()) {
        if (args.is_null())
            args = std::move(it->second);
        m_pendingArgs.erase(it);
    }
    beginInsertRows({}, 0, 0);
    m_rows.push_front(record);
    m_args.push_front(std::move(args));
    endInsertRows();
    if (m_rows.size() > m_max) {
        const int last = int(m_rows.size()) - 1;
        beginRemoveRows({}, last, last);
        m_rows.pop_back();
        m_args.pop_back();
        endRemoveRows();
    }
}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Json &r = m_rows[std::size_t(index.row())];
    if (role == Qt::ToolTipRole && index.column() == Reason)
        return str(r, "reason");
    const Json &args = m_args[std::size_t(index.row())];
    if (role == Qt::ToolTipRole && index.column() == Arguments && !args.is_null())
        return toQString(visibleJson(args, 2)).left(4000);
    // Denied and halted calls never ran: their arguments are shown grey.
    if (role == Qt::ForegroundRole && index.column() == Arguments) {
        const std::string d = r.value("decision", std::string());
        if (d == "deny" || d == "halt")
            return QColor(Qt::gray);
    }
    if (role == Qt::ForegroundRole && index.column() == Decision) {
        const std::string d = r.value("decision", std::string());
        if (d == "deny" || d == "halt")
            return QColor(0xc0, 0x39, 0x2b);
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Time: {
        const QDateTime t = QDateTime::fromString(
            QString::fromStdString(r.value("ts", std::string())), Qt::ISODateWithMs);
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                           : QString();
    }
    case Agent:
        return str(r, "agent");
    case Tool:
        return str(r, "tool");
    case Arguments:
        return args.is_null() ? QString() : summarizeArgs(args, 160);
    case Decision: {
        QString d = str(r, "decision");
        const std::string state = r.value("state", std::string());
        if (state != "auto" && state != "decided" && !state.empty())
            d += QStringLiteral(" (") + str(r, "state") + u')';
        return d;
    }
    case DecidedBy:
        return str(r, "decided_by");
    case Reason:
        return str(r, "reason");
    case Call:
        return str(r, "call_id");
    case ColumnCount:
        break;
    }
    return {};
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Time:
        return tr("Time");
    case Agent:
        return tr("Agent");
    case Tool:
        return tr("Tool");
    case Arguments:
        return tr("Arguments");
    case Decision:
        return tr("Decision");
    case DecidedBy:
        return tr("Decided by");
    case Reason:
        return tr("Reason");
    case Call:
        return tr("Call");
    case ColumnCount:
        break;
    }
    return {};
}

HistoryProxy::HistoryProxy(HistoryModel *source, QObject *parent)
    : QSortFilterProxyModel(parent)
    , m_source(source)
{
    setSourceModel(source);
}

void HistoryProxy::setFilter(const audit::Filter &filter)
{
    m_filter = filter;
    invalidateRowsFilter();
}

bool HistoryProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    return m_filter.empty() || m_filter.matchesRecord(m_source->record(sourceRow));
}

AgentsModel::AgentsModel(ConsoleCore *core, QObject *parent)
    : QAbstractTableModel(parent)
    , m_core(core)
{
    refresh();
}

void AgentsModel::refresh()
{
    std::vector<Row> rows;
    for (const SessionInfo &s : m_core->sessions()) {
        Row r;
        r.id = toQString(s.id);
        r.agent = displaySafe(toQString(s.agent.name), 80);
        r.framework = displaySafe(toQString(s.agent.framework), 40);
        r.connected = s.connections > 0 && s.hostOnline;
        r.state = s.connections > 0
            ? tr("connected (%1)").arg(counted(s.connections, tr("connection"), tr("connections")))
            : s.pending > 0 ? tr("disconnected, resumable")
                            : tr("disconnected");
        // Team mode: another gateway's agent, as that gateway last said.
        if (!s.host.empty())
            r.state = s.hostOnline
                ? tr("%1, at %2").arg(r.state, displaySafe(toQString(s.host), 60))
                : tr("AGENT HOST OFFLINE (%1)").arg(displaySafe(toQString(s.host), 60));
        r.pending = s.pending;
        r.lastActivity = s.lastActivity;
        r.turn = s.currentTurn ? toQString(*s.currentTurn) : QString();
        QStringList standing;
        for (const std::string &g : s.grants)
            standing << displaySafe(toQString(g), 80);
        r.standing = standing.join(QStringLiteral("; "));
        rows.push_back(std::move(r));
    }
    const bool sameRows = rows.size() == m_rows.size()
        && std::equal(rows.begin(), rows.end(), m_rows.begin(),
            [](const Row &a, const Row &b) { return a.id == b.id; });
    if (!sameRows) {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    m_rows = std::move(rows);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

int AgentsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AgentsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AgentsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    if (role == Qt::ForegroundRole && !r.connected)
        return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Agent:
        return r.agent;
    case Framework:
        return r.framework;
    case State:
        return r.state;
    case Pending:
        return r.pending;
    case LastActivity:
        return r.lastActivity
            ? QDateTime::fromMSecsSinceEpoch(r.lastActivity).toString(QStringLiteral("HH:mm:ss"))
            : QString();
    case Turn:
        return r.turn;
    case Standing:
        return r.standing;
    case Session:
        return r.id;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant AgentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Agent:
        return tr("Agent");
    case Framework:
        return tr("Framework");
    case State:
        return tr("State");
    case Pending:
        return tr("Pending");
    case LastActivity:
        return tr("Last activity");
    case Turn:
        return tr("Current turn");
    case Standing:
        return tr("Standing decisions");
    case Session:
        return tr("Session");
    case ColumnCount:
        break;
    }
    return {};
}

PolicyModel::PolicyModel(ConsoleCore *core, QObject *parent)
    : QAbstractTableModel(parent)
    , m_core(core)
{
    refresh();
}

void PolicyModel::refresh()
{
    beginResetModel();
    m_rows.clear();
    for (const GuardrailSummary &g : m_core->guardrails()) {
        Row r;
        r.name = toQString(g.name);
        r.onFailure = g.failOpen ? tr("warn (fail open)") : tr("deny (fail closed)");
        r.budget = tr("%1 ms").arg(double(g.budget.count()) / 1000.0);
        r.healthy = g.healthy;
        r.health = g.healthy ? tr("ok") : tr("unhealthy: %1").arg(toQString(g.detail));
        if (g.healthy && !g.detail.empty())
            r.health += QStringLiteral(" \u2014 ") + toQString(g.detail);
        m_rows.push_back(std::move(r));
    }
    endResetModel();
}

int PolicyModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PolicyModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PolicyModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    if (role == Qt::ForegroundRole && index.column() == Health && !r.healthy)
        return QColor(0xc0, 0x39, 0x2b);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Position:
        return index.row() + 1;
    case Name:
        return r.name;
    case OnFailure:
        return r.onFailure;
    case Budget:
        return r.budget;
    case Health:
        return r.health;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant PolicyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Position:
        return tr("#");
    case Name:
        return tr("Guardrail");
    case OnFailure:
        return tr("If it fails");
    case Budget:
        return tr("Time budget");
    case Health:
        return tr("Health");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace holdpoint
