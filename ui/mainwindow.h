// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "activitytabs.h"
#include "alwaysruledialog.h"
#include "common/json.h"
#include "denydialog.h"
#include "detailpane.h"
#include "devicesdialog.h"
#include "protocol/protocol.h"
#include "queueselection.h"

#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
QT_END_NAMESPACE

namespace holdpoint {

class AgentsModel;
class ConsoleBanners;
class ConsoleCore;
class HistoryModel;
class HistoryProxy;
class PolicyModel;
class Presence;
class QueueModel;
class QueueProxy;
class TurnsModel;
class WebSessions;
struct QueueItem;

// The review console's window over a running ConsoleCore: the queue with
// its detail and actions, and the Turns, History, Agents and Policy views;
// with the reviewer page (--web), the devices paired with it.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    // What a decision reaches (the scope selector, keys 1 to 4).
    enum class Scope
    {
        Call,
        Turn,
        Session,
        Always
    };

    // `devices`: the reviewer page's device sessions when the console serves
    // a page; they outlive the window.
    explicit MainWindow(
        ConsoleCore *core, WebSessions *devices = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    QTableView *queueView() const { return m_view; }
    QPlainTextEdit *argsEditor() const { return m_detail->argsEditor(); }
    QueueProxy *queueProxy() const { return m_proxy; }
    // The dialogs while they are open, for keyboard flows and tests.
    DenyDialog *denyDialog() const { return m_denyDialog; }
    AlwaysRuleDialog *alwaysDialog() const { return m_alwaysDialog; }
    DevicesDialog *devicesDialog() const { return m_devicesDialog; }
    // "Pair a device…" (Ctrl+Shift+P): the Devices dialog, or how to get a page.
    QAction *pairAction() const { return m_pairAction; }
    QTabWidget *tabs() const { return m_tabs; }
    TurnsModel *turnsModel() const { return m_turnsTab->model(); }
    TurnsTab *turnsTab() const { return m_turnsTab; }
    HistoryModel *historyModel() const { return m_historyTab->model(); }
    HistoryProxy *historyProxy() const { return m_historyTab->proxy(); }
    AgentsModel *agentsModel() const { return m_agentsTab->model(); }
    PolicyModel *policyModel() const { return m_policyTab->model(); }

    void approve();
    void approveWithEdits();
    void deny();
    void halt();
    void editArgs();
    void backToQueue();
    void focusFilter();
    void moveSelection(int delta, bool extend = false);
    void toggleSelection();
    void setScope(Scope scope);
    Scope scope() const;
    // The current call's turn in the Turns view, its findings' calls marked (T).
    void openTurn();
    // The queue with only this turn's pending calls (Enter in the Turns view).
    void showTurnInQueue(const QString &session, const QString &turn);
    void clearTurnFilter();
    // Halts the turn through one of its pending calls (H in the Turns view).
    void haltTurn(const QString &session, const QString &turn);
    // Pairing a phone with the reviewer page, and the devices paired so far.
    void openDevices();

private:
    const QueueItem *currentItem() const;
    bool dialogOpen() const;
    std::vector<std::string> selectedIds() const;
    void onCurrentChanged();
    bool decide(const std::string &id, protocol::ReviewAction action, const QString &reason,
        const std::optional<Json> &args, protocol::ReviewScope scope = protocol::ReviewScope::Call);
    void decideAlways(bool allow, const QString &reason);
    void afterDecision(const DecisionAnchor &anchor);
    void focusQueue();
    // Shown until the next decision; empty hides it.
    void showError(const QString &text);
    void onSelectionChanged();
    void showBatch(const std::vector<std::string> &ids);
    void selectRow(int row);
    void updateTitleAndStatus();
    // The current call, or why there is none; a multiple selection as such.
    void showDetail();
    void updateActions();
    void notifyEscalated(int firstRow, int lastRow);
    void loadRecentActivity();
    QWidget *buildQueueTab();

    ConsoleCore *m_core;
    WebSessions *m_devices;
    QueueModel *m_model;
    QueueProxy *m_proxy;
    QTabWidget *m_tabs = nullptr;
    ConsoleBanners *m_banners = nullptr;

    // Queue tab.
    QueueView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QComboBox *m_sort = nullptr;
    QComboBox *m_scope = nullptr;
    QLabel *m_turnFilter = nullptr;
    DetailPane *m_detail = nullptr;

    std::unique_ptr<QueueSelection> m_selection;

    // Other views.
    TurnsTab *m_turnsTab = nullptr;
    HistoryTab *m_historyTab = nullptr;
    AgentsTab *m_agentsTab = nullptr;
    PolicyTab *m_policyTab = nullptr;

    QLabel *m_statusLabel = nullptr;
    QLabel *m_policyError = nullptr;
    Presence *m_presence = nullptr;
    QTimer m_refresh;
    QPointer<DenyDialog> m_denyDialog;
    QPointer<AlwaysRuleDialog> m_alwaysDialog;
    QPointer<DevicesDialog> m_devicesDialog;
    QAction *m_pairAction = nullptr;
    std::string m_currentId;
    int m_lastRow = 0; // where the selection was, for when its row goes
    QStringList m_recentReasons;
};

} // namespace holdpoint
