// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;

namespace holdpoint {

class ConsoleCore;

// The bars above the window's tabs that say what stops or limits deciding:
// the audit log that cannot be written (nothing may run), the team database
// that is down or maps this login to nobody, the error of the last
// decision, and a policy that turned the self-guard off. Each stays hidden
// while it has nothing to say, and so does the whole when all are.
class ConsoleBanners final : public QWidget
{
    Q_OBJECT
public:
    explicit ConsoleBanners(ConsoleCore *core, QWidget *parent = nullptr);

    // An error the reviewer must act on, until the next decision; "" hides it.
    void showError(const QString &text);
    // The team's latest reason, while it reconnects (the window's 1 s tick).
    void refreshTeam();

private:
    void updateAudit();
    void updatePolicy();
    void fitToShown();

    ConsoleCore *m_core;
    QLabel *m_audit;
    QLabel *m_team;
    QLabel *m_error;
    QLabel *m_policy;
};

} // namespace holdpoint
