// SPDX-License-Identifier: Apache-2.0
#include "autostartaction.h"

#include "autostart.h"
#include "widgethelpers.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolButton>

namespace holdpoint {

namespace {

void toggleStartAtLogin(QMainWindow *window, QAction *action, bool on)
{
    const Autostart entry;
    QString error;
    if (on ? entry.turnOn(&error) : entry.turnOff(&error)) {
        window->statusBar()->showMessage(on
                ? Autostart::tr("Holdpoint will start when you log in")
                : Autostart::tr("Holdpoint will not start when you log in"),
            6000);
        return;
    }
    action->setChecked(!on);
    auto *box = new QMessageBox(QMessageBox::Warning, Autostart::tr("Start at login"),
        on ? Autostart::tr("Holdpoint cannot start at login: %1.").arg(error)
           : Autostart::tr("Holdpoint still starts at login: %1.").arg(error),
        QMessageBox::Ok, window);
    box->setObjectName(QStringLiteral("autostartError"));
    box->setTextFormat(Qt::PlainText);
    QObject::connect(box, &QDialog::finished, window, [window] { window->activateWindow(); });
    presentDialog(box, true);
}

} // namespace

QAction *addStartAtLoginAction(QMainWindow *window)
{
    auto *action = new QAction(Autostart::tr("Start at login"), window);
    action->setObjectName(QStringLiteral("startAtLoginAction"));
    action->setCheckable(true);
    action->setChecked(Autostart().isOn());
    const QString tip = Autostart::tr("Start Holdpoint when you log in to this computer (adds "
                                      "it to your desktop's autostart entries)");
    action->setToolTip(tip);
    action->setStatusTip(tip);
    // triggered, not toggled: putting the check back after a failure is no
    // second request.
    QObject::connect(action, &QAction::triggered, window,
        [window, action](bool on) { toggleStartAtLogin(window, action, on); });
    window->addAction(action);

    auto *menu = new QMenu(Autostart::tr("Settings"), window);
    menu->setObjectName(QStringLiteral("settingsMenu"));
    menu->addAction(action);
    // The entry may have changed since (another console, the desktop's
    // own settings): the menu shows it as it is.
    QObject::connect(
        menu, &QMenu::aboutToShow, action, [action] { action->setChecked(Autostart().isOn()); });
    auto *button = new QToolButton(window);
    button->setObjectName(QStringLiteral("settingsButton"));
    button->setText(Autostart::tr("Settings"));
    button->setMenu(menu);
    button->setPopupMode(QToolButton::InstantPopup);
    button->setAutoRaise(true);
    window->statusBar()->addPermanentWidget(button);
    return action;
}

} // namespace holdpoint
