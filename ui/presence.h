#pragma once

// How the console makes itself noticed while the reviewer looks elsewhere:
// a tray icon with the pending count, and a message for new escalations.

#include <QObject>

QT_BEGIN_NAMESPACE
class QSystemTrayIcon;
class QWidget;
QT_END_NAMESPACE

namespace holdpoint {

class Presence final : public QObject
{
    Q_OBJECT
public:
    // Activating the tray icon brings `window` forward.
    explicit Presence(QWidget *window);

    void setPending(int pending);
    // Shown only while the window is in the background.
    void announce(const QString &title, const QString &body);

private:
    QWidget *m_window;
    QSystemTrayIcon *m_tray = nullptr;
};

} // namespace holdpoint
