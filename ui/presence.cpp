#include "presence.h"

#include "itemtext.h"
#include "widgethelpers.h"

#include <QApplication>
#include <QSystemTrayIcon>
#include <QWidget>

namespace holdpoint {

Presence::Presence(QWidget *window)
    : QObject(window)
    , m_window(window)
{
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return;
    m_tray = new QSystemTrayIcon(badgeIcon(0), this);
    m_tray->setObjectName(QStringLiteral("tray"));
    connect(m_tray, &QSystemTrayIcon::activated, this, [this] {
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
    });
    m_tray->show();
}

void Presence::setPending(int pending)
{
    if (!m_tray)
        return;
    m_tray->setIcon(badgeIcon(pending));
    m_tray->setToolTip(pending > 0 ? tr("Holdpoint: %1 waiting").arg(counted(pending, tr("call"), tr("calls"))) : tr("Holdpoint: queue clear"));
}

void Presence::announce(const QString &title, const QString &body)
{
    if (m_window->isActiveWindow())
        return;
    QApplication::alert(m_window);
    if (m_tray && m_tray->isVisible())
        m_tray->showMessage(title, body, QSystemTrayIcon::Warning, 8000);
}

} // namespace holdpoint
