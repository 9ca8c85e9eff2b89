// SPDX-License-Identifier: Apache-2.0
#include "devicesdialog.h"

#include "devicesmodel.h"
#include "engine/consolecore.h"
#include "itemtext.h"
#include "qrimage.h"
#include "web/websessions.h"
#include "widgethelpers.h"

#include <QAction>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHostAddress>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QStackedWidget>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace holdpoint {

namespace {

// How the sessions list names a pairing asked for from this window.
constexpr char PairedVia[] = "console";
// About this wide on screen, the quiet zone included: big enough for a
// phone held at arm's length, small enough to leave room for the list.
constexpr int QrPixels = 240;
constexpr QRgb QrSpent = qRgb(0xc8, 0xc8, 0xc8); // an expired or used code: not worth a scan
constexpr QLatin1StringView WarningStyle("color: #a04000;");

// A phone cannot reach a page that listens on loopback only.
bool onlyThisComputer(const QString &origin)
{
    const QString host = QUrl(origin).host();
    return host == QLatin1String("localhost") || QHostAddress(host).isLoopback();
}

// In code type and on one line: a flag broken at a hyphen reads as two
// words, and Qt's rich text keeps "white-space" for whole paragraphs only.
QString command(const QString &text)
{
    QString kept = text.toHtmlEscaped();
    kept.replace(u' ', QChar(0x00A0)).replace(u'-', QStringLiteral("-\u2060")); // word joiner
    return QStringLiteral("<code>%1</code>").arg(kept);
}

} // namespace

QAction *DevicesDialog::makeAction(bool havePage, QObject *parent)
{
    auto *action = new QAction(tr("Pair a device\u2026"), parent);
    action->setObjectName(QStringLiteral("pairDeviceAction"));
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    // The button shows its key, as every button of the window does.
    action->setIconText(
        tr("Pair a device\u2026  [%1]").arg(action->shortcut().toString(QKeySequence::NativeText)));
    action->setEnabled(havePage);
    const QString tip = havePage
        ? tr("Pair a phone or browser with the reviewer page, and see or revoke the devices paired "
             "so far (%1)")
              .arg(action->shortcut().toString(QKeySequence::NativeText))
        : tr("Start the console with --web 127.0.0.1:8765 to review from a phone");
    action->setToolTip(tip);
    action->setStatusTip(tip);
    return action;
}

DevicesDialog::DevicesDialog(ConsoleCore *core, WebSessions *sessions, QWidget *parent)
    : QDialog(parent)
    , m_core(core)
    , m_sessions(sessions)
    , m_model(new DevicesModel(sessions, core->clock(), this))
{
    setObjectName(QStringLiteral("devicesDialog"));
    setWindowTitle(tr("Devices"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(buildPairing());
    layout->addWidget(buildDevices(), 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    // A device pairs, is revoked or idles out: the list says so at once.
    connect(m_sessions, &WebSessions::changed, m_model, &DevicesModel::refresh);
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &, int first, int last) { onDevicesAdded(first, last); });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &DevicesDialog::updateDevices);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &DevicesDialog::updateDevices);
    // The countdown and "last seen" follow the console's clock: each second,
    // and at once when a manual clock is moved.
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &DevicesDialog::tick);
    connect(m_core->clock(), &Clock::advanced, this, &DevicesDialog::tick);
    m_ticker.start();

    newLink();
    updateDevices();
    resize(760, 600);
}

DevicesDialog::~DevicesDialog() = default;

QWidget *DevicesDialog::buildPairing()
{
    auto *box = new QGroupBox(tr("Pair a device"), this);
    auto *row = new QHBoxLayout(box);
    row->setSpacing(16);

    m_qr = new QLabel(box);
    m_qr->setObjectName(QStringLiteral("pairQr"));
    m_qr->setAccessibleName(tr("QR code of the pairing link"));
    m_qr->setMinimumSize(QrPixels, QrPixels);
    m_qr->setAlignment(Qt::AlignCenter);
    row->addWidget(m_qr, 0, Qt::AlignTop);

    auto *side = new QVBoxLayout;
    m_intro = new QLabel(box);
    m_intro->setObjectName(QStringLiteral("pairIntro"));
    m_intro->setTextFormat(Qt::RichText);
    m_intro->setWordWrap(true);
    side->addWidget(m_intro);

    auto *linkRow = new QHBoxLayout;
    m_link = new QLineEdit(box);
    m_link->setObjectName(QStringLiteral("pairLink"));
    m_link->setReadOnly(true);
    m_link->setAccessibleName(tr("Pairing link"));
    m_copy = new QPushButton(tr("Copy link"), box);
    m_copy->setObjectName(QStringLiteral("copyLinkButton"));
    m_copy->setAutoDefault(false);
    connect(m_copy, &QPushButton::clicked, this, &DevicesDialog::copyLink);
    linkRow->addWidget(m_link, 1);
    linkRow->addWidget(m_copy);
    side->addLayout(linkRow);

    m_countdown = new QLabel(box);
    m_countdown->setObjectName(QStringLiteral("pairCountdown"));
    m_countdown->setTextFormat(Qt::PlainText);
    m_countdown->setWordWrap(true);
    side->addWidget(m_countdown);

    m_newLink = new QPushButton(tr("New link"), box);
    m_newLink->setObjectName(QStringLiteral("newLinkButton"));
    m_newLink->setVisible(false);
    connect(m_newLink, &QPushButton::clicked, this, &DevicesDialog::newLink);
    side->addWidget(m_newLink, 0, Qt::AlignLeft);

    if (onlyThisComputer(m_sessions->origin())) {
        auto *note = new QLabel(box);
        note->setObjectName(QStringLiteral("loopbackNote"));
        note->setTextFormat(Qt::RichText);
        note->setWordWrap(true);
        note->setStyleSheet(WarningStyle);
        note->setText(
            tr("Only this computer can open the link: the page listens on %1. For a "
               "phone, reach it through %2 or a reverse proxy with TLS (named with %3), "
               "or serve it on another address with %4 and %5.")
                .arg(command(QUrl(m_sessions->origin()).authority()),
                    command(QStringLiteral("tailscale serve")),
                    command(QStringLiteral("--web-origin")), command(QStringLiteral("--web-cert")),
                    command(QStringLiteral("--web-key"))));
        side->addSpacing(6);
        side->addWidget(note);
    }
    side->addStretch(1);
    row->addLayout(side, 1);
    return box;
}

QWidget *DevicesDialog::buildDevices()
{
    auto *box = new QGroupBox(tr("Paired devices"), this);
    auto *layout = new QVBoxLayout(box);

    m_devices = new QStackedWidget(box);
    auto *empty = new QLabel(tr("No paired devices"), m_devices);
    empty->setObjectName(QStringLiteral("noDevices"));
    empty->setAlignment(Qt::AlignCenter);
    empty->setEnabled(false); // the palette's quiet text
    m_devices->addWidget(empty);

    m_table = makeTable(m_model, QStringLiteral("devicesTable"), m_devices);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(DevicesModel::Device, QHeaderView::Stretch);
    m_devices->addWidget(m_table);
    layout->addWidget(m_devices, 1);

    auto *row = new QHBoxLayout;
    auto *hint = new QLabel(
        tr("Revoking ends a device's session at once: its page closes and it must pair again."),
        box);
    hint->setWordWrap(true);
    row->addWidget(hint, 1);
    m_revoke = new QPushButton(tr("Revoke"), box);
    m_revoke->setObjectName(QStringLiteral("revokeButton"));
    m_revoke->setAutoDefault(false); // Enter never ends a session
    m_revoke->setEnabled(false);
    connect(m_revoke, &QPushButton::clicked, this, &DevicesDialog::revokeSelected);
    row->addWidget(m_revoke);
    layout->addLayout(row);

    auto *del = new QShortcut(QKeySequence::Delete, m_table);
    del->setContext(Qt::WidgetShortcut);
    connect(del, &QShortcut::activated, this, &DevicesDialog::revokeSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        [this] { m_revoke->setEnabled(m_table->selectionModel()->hasSelection()); });
    return box;
}

void DevicesDialog::newLink()
{
    // In team mode the database says whom this login decides as; a console
    // that decides as nobody cannot lend that to a phone.
    m_reviewer = m_core->reviewerName();
    const QString why = m_core->reviewerError();
    if (m_reviewer.empty() || !why.isEmpty()) {
        m_intro->setText(
            tr("This console decides as nobody, so it cannot pair a device: %1")
                .arg((why.isEmpty() ? tr("it has no reviewer name") : why).toHtmlEscaped()));
        return setState(LinkState::Unavailable);
    }
    const PairingLink pairing = m_sessions->pairingLink(m_reviewer, PairedVia);
    m_url = pairing.url;
    m_expires = pairing.expires;
    m_madeAt = m_core->clock()->now();
    m_code = encodeQr(m_url.toUtf8());
    m_intro->setText(tr("Scan the code with the phone's camera, or open the link on the device. "
                        "It then reviews as <b>%1</b> until you revoke it below.")
                         .arg(displaySafe(toQString(m_reviewer), 60).toHtmlEscaped()));
    m_link->setText(m_url);
    m_link->setCursorPosition(0);
    setState(LinkState::Open);
}

void DevicesDialog::copyLink()
{
    if (m_state != LinkState::Open)
        return;
    QGuiApplication::clipboard()->setText(m_url);
    m_copy->setText(tr("Copied"));
    QTimer::singleShot(1500, m_copy, [this] { m_copy->setText(tr("Copy link")); });
}

void DevicesDialog::revokeSelected()
{
    std::vector<std::string> ids;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        ids.push_back(m_model->session(index.row()).id);
    // The list's changed() takes each row away.
    for (const std::string &id : ids)
        m_sessions->revoke(id);
}

void DevicesDialog::setState(LinkState state)
{
    // The keyboard stays on the link's controls as they change, and is
    // never taken from the list.
    const bool linkHadFocus = m_link->hasFocus() || m_copy->hasFocus() || m_newLink->hasFocus();
    m_state = state;
    const bool open = state == LinkState::Open;
    const bool usable = state != LinkState::Unavailable;
    m_qr->setVisible(usable);
    m_link->setVisible(usable);
    m_copy->setVisible(usable);
    m_link->setEnabled(open);
    m_copy->setEnabled(open);
    m_newLink->setVisible(usable && !open);
    m_newLink->setDefault(usable && !open);
    m_countdown->setStyleSheet(state == LinkState::Expired ? QString(WarningStyle) : QString());
    switch (state) {
    case LinkState::Open:
        tick();
        break;
    case LinkState::Paired:
        m_countdown->setText(
            tr("%1 has paired. To pair another device, make a new link.").arg(m_pairedDevice));
        break;
    case LinkState::Expired:
        m_countdown->setText(tr("This link has expired. Make a new one to pair a device."));
        break;
    case LinkState::Unavailable:
        m_countdown->clear();
        break;
    }
    renderQr();
    if (linkHadFocus && usable)
        (open ? m_copy : m_newLink)->setFocus();
}

void DevicesDialog::showEvent(QShowEvent *event)
{
    renderQr(); // in the pixels of the screen it is shown on
    QDialog::showEvent(event);
}

void DevicesDialog::tick()
{
    m_model->refresh(); // last use and open pages change without a signal
    if (m_state != LinkState::Open)
        return;
    const TimeMs left = m_expires - m_core->clock()->now();
    if (left <= 0)
        return setState(LinkState::Expired);
    // Rounded up: "0:00" is when it stops working, not a second before.
    const qint64 s = (left + 999) / 1000;
    m_countdown->setText(
        tr("Works once, for %1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0')));
}

void DevicesDialog::renderQr()
{
    if (m_code.size == 0) {
        m_qr->setPixmap({});
        m_qr->setText(tr("The link is too long for a QR code: copy it instead."));
        return;
    }
    // Whole device pixels per module, and shown at exactly that size: no
    // scaling, no smoothing, edges a camera reads at once.
    const qreal ratio = devicePixelRatioF();
    QImage image = qrImage(m_code, qrScaleFor(m_code, qRound(QrPixels * ratio)),
        m_state == LinkState::Open ? QColor(Qt::black) : QColor(QrSpent));
    image.setDevicePixelRatio(ratio);
    m_qr->setPixmap(QPixmap::fromImage(image));
}

void DevicesDialog::onDevicesAdded(int first, int last)
{
    if (m_state != LinkState::Open)
        return;
    // Which code a session spent is not recorded; a device this reviewer
    // paired through a console link since this one was made most likely
    // used it, and the reviewer now wants either nothing or a new link.
    for (int row = first; row <= last; ++row) {
        const WebSession &s = m_model->session(row);
        if (s.pairedVia == PairedVia && s.reviewer == m_reviewer && s.created >= m_madeAt) {
            m_pairedDevice = deviceName(s.userAgent);
            return setState(LinkState::Paired);
        }
    }
}

void DevicesDialog::updateDevices()
{
    m_devices->setCurrentIndex(m_model->rowCount() > 0 ? 1 : 0);
    m_revoke->setEnabled(m_table->selectionModel()->hasSelection());
}

} // namespace holdpoint
