// SPDX-License-Identifier: Apache-2.0
#pragma once

// The window's side of "Start at login" (autostart.h): a checkable action
// in a Settings menu on the status bar, since the window has no menu bar.

#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QAction;
class QMainWindow;
QT_END_NAMESPACE

namespace holdpoint {

// Adds the action ("startAtLoginAction") to `window`, checked when the
// entry is on; the "settingsButton" on its status bar opens the
// "settingsMenu" that holds it. Turning it on or off writes or removes the
// entry; a failure says why in a message box ("autostartError") and the
// check goes back.
QAction *addStartAtLoginAction(QMainWindow *window);

} // namespace holdpoint
