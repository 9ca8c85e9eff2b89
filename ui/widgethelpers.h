// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small builders every panel of the window uses, so buttons, tables and
// queue shortcuts behave the same everywhere.

#include <QIcon>
#include <QKeySequence>

#include <functional>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QAction;
class QDialog;
class QLabel;
class QPushButton;
class QShortcut;
class QTableView;
class QToolButton;
class QWidget;
QT_END_NAMESPACE

namespace holdpoint {

// A button the keyboard never lands on: focus stays on the queue or the editor.
QPushButton *makeButton(const QString &text, const QString &name, QWidget *parent);

// A flat button for an action, as a bar shows it: the action's text,
// tooltip and enabled state, and its shortcut wherever the window has focus.
QToolButton *makeActionButton(QAction *action, const QString &name, QWidget *parent);

// A read-only table of whole rows, as every view of the window shows.
QTableView *makeTable(QAbstractItemModel *model, const QString &name, QWidget *parent);
void setUpTable(QTableView *view, QAbstractItemModel *model, const QString &name);

// A shortcut that acts only while `view` has focus, so typing in the
// argument editor or a filter never approves or denies anything.
QShortcut *queueShortcut(const QKeySequence &key, QWidget *view, std::function<void()> fn);

// A hidden bar of bold plain text on `background`, for what the reviewer
// must see: the audit log's state, an error to act on.
QLabel *makeBanner(const QString &name, const QString &background, QWidget *parent);
// Shows `text` on `banner`, or hides it when there is none.
void showBanner(QLabel *banner, const QString &text);

// Shows `dialog`, deleted when it closes (window-modal with `modal`), and
// gives it the keyboard: without a window manager nobody activates it, and
// the keys the reviewer types next must reach it, not the window behind.
void presentDialog(QDialog *dialog, bool modal);

// The application icon with the pending count on it, for the tray.
QIcon badgeIcon(int pending);

} // namespace holdpoint
