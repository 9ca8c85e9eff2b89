// SPDX-License-Identifier: Apache-2.0
#include "widgethelpers.h"

#include <QDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QShortcut>
#include <QTableView>
#include <QToolButton>

namespace holdpoint {

QPushButton *makeButton(const QString &text, const QString &name, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(name);
    b->setFocusPolicy(Qt::NoFocus);
    return b;
}

QToolButton *makeActionButton(QAction *action, const QString &name, QWidget *parent)
{
    auto *b = new QToolButton(parent);
    b->setObjectName(name);
    b->setDefaultAction(action);
    b->setAutoRaise(true);
    return b;
}

QShortcut *queueShortcut(const QKeySequence &key, QWidget *view, std::function<void()> fn)
{
    auto *s = new QShortcut(key, view);
    s->setContext(Qt::WidgetShortcut);
    QObject::connect(s, &QShortcut::activated, view, std::move(fn));
    return s;
}

QTableView *makeTable(QAbstractItemModel *model, const QString &name, QWidget *parent)
{
    auto *view = new QTableView(parent);
    setUpTable(view, model, name);
    return view;
}

void setUpTable(QTableView *view, QAbstractItemModel *model, const QString &name)
{
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 10);
    view->horizontalHeader()->setStretchLastSection(true);
}

QLabel *makeBanner(const QString &name, const QString &background, QWidget *parent)
{
    auto *banner = new QLabel(parent);
    banner->setObjectName(name);
    banner->setTextFormat(Qt::PlainText);
    banner->setWordWrap(true);
    banner->setMargin(10);
    banner->setStyleSheet(
        QStringLiteral("background: %1; color: white; font-weight: bold;").arg(background));
    banner->setVisible(false);
    return banner;
}

void showBanner(QLabel *banner, const QString &text)
{
    banner->setText(text);
    banner->setVisible(!text.isEmpty());
}

void presentDialog(QDialog *dialog, bool modal)
{
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (modal)
        dialog->open();
    else
        dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

QIcon badgeIcon(int pending)
{
    QPixmap pm = QIcon(QStringLiteral(":/holdpoint/icons/holdpoint.png")).pixmap(64, 64);
    if (pm.isNull()) {
        pm = QPixmap(64, 64);
        pm.fill(QColor(0x2c, 0x3e, 0x50));
    }
    if (pending > 0) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(QColor(0xc0, 0x39, 0x2b));
        p.setPen(Qt::NoPen);
        p.drawEllipse(QRect(28, 0, 36, 36));
        p.setPen(Qt::white);
        QFont f = p.font();
        f.setBold(true);
        f.setPixelSize(pending > 99 ? 14 : 20);
        p.setFont(f);
        p.drawText(QRect(28, 0, 36, 36), Qt::AlignCenter,
            pending > 99 ? QStringLiteral("99+") : QString::number(pending));
    }
    return QIcon(pm);
}

} // namespace holdpoint
