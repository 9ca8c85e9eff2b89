#pragma once

#include "common/json.h"
#include "denydialog.h"

#include <QMainWindow>
#include <QPointer>

#include <optional>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
QT_END_NAMESPACE

namespace holdpoint {

class ConsoleCore;
class QueueModel;
struct QueueItem;

// The review console's window over a running ConsoleCore.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(ConsoleCore *core, QWidget *parent = nullptr);
    ~MainWindow() override;

    QTableView *queueView() const { return m_view; }
    QPlainTextEdit *argsEditor() const { return m_argsEditor; }
    // The deny dialog while it is open, for keyboard flows and tests.
    DenyDialog *denyDialog() const { return m_denyDialog; }

    void approve();
    void approveWithEdits();
    void deny();
    void halt();
    void editArgs();
    void backToQueue();
    void moveSelection(int delta);

private:
    const QueueItem *currentItem() const;
    void onCurrentChanged();
    void onArgsEdited();
    void decide(const std::string &id, int action, const QString &reason, const std::optional<Json> &args);
    void selectRow(int row);
    void updateTitleAndStatus();
    void showDetail(const QueueItem *item);
    static QString trailHtml(const QueueItem &item);

    ConsoleCore *m_core;
    QueueModel *m_model;
    QTableView *m_view;
    QLabel *m_title;
    QLabel *m_meta;
    QLabel *m_reason;
    QPlainTextEdit *m_context;
    QLabel *m_trail; // each guardrail's verdict, the warnings, and a rewrite
    QPlainTextEdit *m_argsEditor;
    QLabel *m_argsStatus;
    QPushButton *m_approveButton;
    QPushButton *m_editButton;
    QPushButton *m_denyButton;
    QPushButton *m_haltButton;
    QLabel *m_statusLabel;
    QLabel *m_policyError;
    QPointer<DenyDialog> m_denyDialog;
    std::string m_currentId;
    std::optional<Json> m_editedArgs; // valid, differing args in the editor
    QStringList m_recentReasons;
};

} // namespace holdpoint
