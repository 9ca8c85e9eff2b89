// SPDX-License-Identifier: Apache-2.0
#include "consolebanners.h"

#include "engine/consolecore.h"
#include "widgethelpers.h"

#include <QLabel>
#include <QVBoxLayout>

namespace holdpoint {

ConsoleBanners::ConsoleBanners(ConsoleCore *core, QWidget *parent)
    : QWidget(parent)
    , m_core(core)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // Nothing may run while the audit log cannot be written; the window says
    // so above everything else until it can.
    m_audit = makeBanner(QStringLiteral("auditBanner"), QStringLiteral("#c0392b"), this);
    // Team mode: escalations wait on the team database, so losing it is as
    // loud as losing the log.
    m_team = makeBanner(QStringLiteral("teamBanner"), QStringLiteral("#c0392b"), this);
    // An error the reviewer must act on stays here until the next decision.
    m_error = makeBanner(QStringLiteral("errorBanner"), QStringLiteral("#a04000"), this);
    // A policy that turned the self-guard off: why, for as long as it is in force.
    m_policy = makeBanner(QStringLiteral("policyBanner"), QStringLiteral("#7d3c98"), this);
    for (QLabel *banner : { m_audit, m_team, m_error, m_policy })
        layout->addWidget(banner);

    connect(m_core, &ConsoleCore::auditAvailabilityChanged, this, &ConsoleBanners::updateAudit);
    connect(m_core, &ConsoleCore::teamAvailabilityChanged, this, &ConsoleBanners::refreshTeam);
    connect(m_core, &ConsoleCore::reviewerChanged, this, &ConsoleBanners::refreshTeam);
    connect(m_core, &ConsoleCore::policyReloaded, this, &ConsoleBanners::updatePolicy);
    updateAudit();
    refreshTeam();
    updatePolicy();
}

void ConsoleBanners::showError(const QString &text)
{
    showBanner(m_error, text);
    fitToShown();
}

void ConsoleBanners::updateAudit()
{
    showBanner(m_audit,
        m_core->auditAvailable() ? QString()
                                 : tr("The audit log cannot be written: %1. Every call is refused "
                                      "until it can; Holdpoint keeps trying every second.")
                                       .arg(m_core->auditError()));
    fitToShown();
}

void ConsoleBanners::refreshTeam()
{
    const bool down = m_core->team() && !m_core->teamAvailable();
    const QString noReviewer = m_core->reviewerError();
    if (down)
        showBanner(m_team,
            tr("The team database is unreachable: %1. Escalated calls wait up to their deadline "
               "and "
               "are then denied (team_unavailable); nothing can be decided until it is back. "
               "Holdpoint reconnects on its own.")
                .arg(m_core->teamError().isEmpty() ? tr("connecting") : m_core->teamError()));
    else if (!noReviewer.isEmpty())
        showBanner(m_team,
            tr("This console shows the team's calls but cannot decide them: %1").arg(noReviewer));
    else
        showBanner(m_team, QString());
    fitToShown();
}

void ConsoleBanners::updatePolicy()
{
    showBanner(m_policy, m_core->policyWarning());
    fitToShown();
}

void ConsoleBanners::fitToShown()
{
    setVisible(!m_audit->isHidden() || !m_team->isHidden() || !m_error->isHidden()
        || !m_policy->isHidden());
}

} // namespace holdpoint
