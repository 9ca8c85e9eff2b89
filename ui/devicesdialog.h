// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/clock.h"
#include "qr/qrcode.h"

#include <QDialog>
#include <QTimer>

#include <string>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableView;
QT_END_NAMESPACE

namespace holdpoint {

class ConsoleCore;
class DevicesModel;
class WebSessions;

// "Pair a device" (WEB.md "Who gets in"): a link to the reviewer page that
// works once, for 5 minutes, shown as a QR code and as text with its time
// left on the console's clock; and the devices paired so far, each
// revocable. Not modal: the queue stays at hand while a phone pairs.
class DevicesDialog final : public QDialog
{
    Q_OBJECT
public:
    // `sessions` are the reviewer page's device sessions; they outlive the dialog.
    DevicesDialog(ConsoleCore *core, WebSessions *sessions, QWidget *parent = nullptr);
    ~DevicesDialog() override;

    // The window's way here, Ctrl+Shift+P. Without a page it is disabled
    // and says how to start the console with one.
    static QAction *makeAction(bool havePage, QObject *parent);

    enum class LinkState
    {
        Open, // shown, and good for the time the countdown says
        Paired, // a device paired through a console link since it was made
        Expired,
        Unavailable, // this console decides as nobody, so it pairs nobody
    };
    LinkState linkState() const { return m_state; }
    QString link() const { return m_url; }
    DevicesModel *model() const { return m_model; }

    // Makes a fresh link; the previous one still works until it expires.
    void newLink();
    void copyLink();
    // Ends the selected devices' sessions: their pages close at once and
    // their cookies no longer admit them.
    void revokeSelected();

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildPairing();
    QWidget *buildDevices();
    void setState(LinkState state);
    void tick();
    void renderQr();
    void onDevicesAdded(int first, int last);
    void updateDevices();

    ConsoleCore *m_core;
    WebSessions *m_sessions;
    DevicesModel *m_model;

    LinkState m_state = LinkState::Unavailable;
    std::string m_reviewer;
    QString m_url;
    QrCode m_code;
    TimeMs m_madeAt = 0;
    TimeMs m_expires = 0;
    QString m_pairedDevice;
    QTimer m_ticker;

    QLabel *m_qr = nullptr;
    QLabel *m_intro = nullptr;
    QLineEdit *m_link = nullptr;
    QPushButton *m_copy = nullptr;
    QLabel *m_countdown = nullptr;
    QPushButton *m_newLink = nullptr;
    QStackedWidget *m_devices = nullptr;
    QTableView *m_table = nullptr;
    QPushButton *m_revoke = nullptr;
};

} // namespace holdpoint
