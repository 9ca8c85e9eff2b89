// SPDX-License-Identifier: Apache-2.0
#include "presence.h"

#include "itemtext.h"
#include "widgethelpers.h"

#include <QApplication>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusServiceWatcher>
#include <QSystemTrayIcon>
#include <QVariantMap>
#include <QWidget>

namespace holdpoint {

namespace {

const QString NotificationsService = QStringLiteral("org.freedesktop.Notifications");
const QString NotificationsPath = QStringLiteral("/org/freedesktop/Notifications");
// Where a tray that speaks StatusNotifierItem registers.
const QString TrayWatcherService = QStringLiteral("org.kde.StatusNotifierWatcher");
constexpr int TrayPollMs = 5000;

} // namespace

Presence::Presence(QWidget *window, const QDBusConnection &bus)
    : QObject(window)
    , m_window(window)
    , m_bus(bus)
{
    if (m_bus.isConnected())
        m_bus.connect(NotificationsService, NotificationsPath, NotificationsService,
            QStringLiteral("ActionInvoked"), this, SLOT(onActionInvoked(uint, QString)));
    if (QSystemTrayIcon::isSystemTrayAvailable())
        setUpTray();
    else
        watchForTray();
}

void Presence::watchForTray()
{
    // A panel may start after the console (a session restored in any
    // order): StatusNotifierItem trays announce themselves on the bus, and
    // a poll covers the older XEmbed trays, which do not.
    if (m_bus.isConnected()) {
        auto *watcher = new QDBusServiceWatcher(
            TrayWatcherService, m_bus, QDBusServiceWatcher::WatchForRegistration, this);
        connect(watcher, &QDBusServiceWatcher::serviceRegistered, this, [this] {
            if (!m_tray && QSystemTrayIcon::isSystemTrayAvailable())
                setUpTray();
        });
    }
    m_trayPoll.setInterval(TrayPollMs);
    connect(&m_trayPoll, &QTimer::timeout, this, [this] {
        if (QSystemTrayIcon::isSystemTrayAvailable())
            setUpTray();
    });
    m_trayPoll.start();
}

void Presence::setUpTray()
{
    m_trayPoll.stop();
    if (m_tray)
        return;
    m_tray = new QSystemTrayIcon(badgeIcon(0), this);
    m_tray->setObjectName(QStringLiteral("tray"));
    connect(m_tray, &QSystemTrayIcon::activated, this, &Presence::bringForward);
    m_tray->show();
    setPending(m_pending);
}

void Presence::bringForward()
{
    m_window->showNormal();
    m_window->raise();
    m_window->activateWindow();
}

void Presence::setPending(int pending)
{
    m_pending = pending;
    if (!m_tray)
        return;
    m_tray->setIcon(badgeIcon(pending));
    m_tray->setToolTip(pending > 0
            ? tr("Holdpoint: %1 waiting").arg(counted(pending, tr("call"), tr("calls")))
            : tr("Holdpoint: queue clear"));
}

void Presence::announce(const QString &title, const QString &body)
{
    if (m_window->isActiveWindow())
        return;
    QApplication::alert(m_window);
    if (m_tray && m_tray->isVisible())
        m_tray->showMessage(title, body, QSystemTrayIcon::Warning, 8000);
    else
        notify(title, body);
}

void Presence::notify(const QString &title, const QString &body)
{
    if (!m_bus.isConnected())
        return;
    // The body may hold markup for the service to render; what an agent
    // sent is escaped so it can only ever read as text.
    QDBusMessage call = QDBusMessage::createMethodCall(
        NotificationsService, NotificationsPath, NotificationsService, QStringLiteral("Notify"));
    QVariantMap hints;
    hints.insert(QStringLiteral("desktop-entry"), QStringLiteral("holdpoint"));
    hints.insert(QStringLiteral("urgency"), QVariant::fromValue(uchar(1)));
    call << QStringLiteral("Holdpoint") << m_notification << QStringLiteral("dialog-warning")
         << title << body.toHtmlEscaped() << QStringList { QStringLiteral("default"), tr("Review") }
         << hints << 8000;
    // Never blocks the window: a missing or slow service just means no message.
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        const QDBusPendingReply<uint> reply = *w;
        w->deleteLater();
        if (reply.isError())
            return;
        m_notification = reply.value();
        Q_EMIT notified(m_notification);
    });
}

void Presence::onActionInvoked(uint id, const QString &action)
{
    Q_UNUSED(action);
    if (id != 0 && id == m_notification)
        bringForward();
}

} // namespace holdpoint
