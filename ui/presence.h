// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the console makes itself noticed while the reviewer looks elsewhere:
// a tray icon with the pending count, and a message for new escalations.
// A tray that appears after the console started gets the icon then; with
// no tray, messages go to the desktop's notification service over D-Bus
// (org.freedesktop.Notifications).

#include <QDBusConnection>
#include <QObject>
#include <QTimer>

QT_BEGIN_NAMESPACE
class QSystemTrayIcon;
class QWidget;
QT_END_NAMESPACE

namespace holdpoint {

class Presence final : public QObject
{
    Q_OBJECT
public:
    // Activating the tray icon or a notification brings `window` forward.
    // `bus` is where the desktop's services are: the session bus.
    explicit Presence(QWidget *window, const QDBusConnection &bus = QDBusConnection::sessionBus());

    void setPending(int pending);
    // Shown only while the window is in the background.
    void announce(const QString &title, const QString &body);

    bool hasTray() const { return m_tray != nullptr; }
    // The id the notification service gave the last message; 0 before one.
    uint lastNotification() const { return m_notification; }

Q_SIGNALS:
    // The notification service answered a Notify call (for tests and logs).
    void notified(uint id);

private Q_SLOTS:
    // ActionInvoked of the notification service; a slot for QDBusConnection::connect.
    void onActionInvoked(uint id, const QString &action);

private:
    void watchForTray();
    void setUpTray();
    void bringForward();
    void notify(const QString &title, const QString &body);

    QWidget *m_window;
    QDBusConnection m_bus;
    QSystemTrayIcon *m_tray = nullptr;
    QTimer m_trayPoll;
    int m_pending = 0;
    uint m_notification = 0; // replaced by the next message, so they never pile up
};

} // namespace holdpoint
