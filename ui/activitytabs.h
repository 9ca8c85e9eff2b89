// SPDX-License-Identifier: Apache-2.0
#pragma once

// The window's views besides the queue: Turns, History, Agents and Policy,
// each a panel that owns its model and its widgets; Insights has a file of
// its own.

#include "insightspage.h"

#include <QWidget>

#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QTreeView;
QT_END_NAMESPACE

namespace holdpoint {

class AgentsModel;
class ConsoleCore;
class HistoryModel;
class HistoryProxy;
class PolicyModel;
class TurnsModel;

// Each session's turns as timelines; new sessions and turns open as they
// arrive. Enter on a turn asks for the queue to show its pending calls, H
// asks to halt it.
class TurnsTab final : public QWidget
{
    Q_OBJECT
public:
    explicit TurnsTab(QWidget *parent = nullptr);
    TurnsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    // Selects the turn with `callIds` marked, and takes the focus; false
    // when the view has no call of that turn yet.
    bool showTurn(
        const QString &session, const QString &turn, const std::vector<std::string> &callIds);

Q_SIGNALS:
    void queueTurnRequested(const QString &session, const QString &turn);
    void haltTurnRequested(const QString &session, const QString &turn);

private:
    void requestForCurrent(bool halt);

    TurnsModel *m_model;
    QTreeView *m_view;
};

// Decided calls, filtered with the predicate of `holdpoint-ctl audit query`.
class HistoryTab final : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryTab(ConsoleCore *core, QWidget *parent = nullptr);
    HistoryModel *model() const { return m_model; }
    HistoryProxy *proxy() const { return m_proxy; }

private:
    void applyFilter();

    ConsoleCore *m_core;
    HistoryModel *m_model;
    HistoryProxy *m_proxy;
    QComboBox *m_agent;
    QComboBox *m_tool;
    QComboBox *m_decision;
    QLineEdit *m_decidedBy;
    QComboBox *m_since;
};

class AgentsTab final : public QWidget
{
    Q_OBJECT
public:
    explicit AgentsTab(ConsoleCore *core, QWidget *parent = nullptr);
    AgentsModel *model() const { return m_model; }

private:
    AgentsModel *m_model;
};

// The guardrails in force, the files they came from, and the last reload.
class PolicyTab final : public QWidget
{
    Q_OBJECT
public:
    explicit PolicyTab(ConsoleCore *core, QWidget *parent = nullptr);
    PolicyModel *model() const { return m_model; }

private:
    void showFiles();
    void showReloadError(const QString &why);

    ConsoleCore *m_core;
    PolicyModel *m_model;
    QLabel *m_files;
    QLabel *m_error;
};

} // namespace holdpoint
