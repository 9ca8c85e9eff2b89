// SPDX-License-Identifier: Apache-2.0
// "Pair a device" in the window (core/web/WEB.md "Who gets in"): the link
// the dialog shows is a real pairing link, redeemed over HTTP as a phone
// would; its QR code scans back to it; it expires on the console's clock;
// and the devices it pairs are listed and revoked there.

#include "devicesdialog.h"
#include "devicesmodel.h"
#include "engine/consolecore.h"
#include "mainwindow.h"
#include "qr/qrcode.h"
#include "web/webclient.h"
#include "web/webserver.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

constexpr TimeMs Start = 1'800'000'000'000;
const QByteArray FirefoxAndroid
    = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0";
const QByteArray SafariIPhone
    = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
      "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

// A console on a manual clock with its window, and the reviewer page on
// 127.0.0.1, port 0, unless `withPage` is false.
struct DevicesHarness
{
    explicit DevicesHarness(bool withPage = true)
        : clock(Start)
    {
        ConsoleOptions o;
        o.dataDir = dir.path() + QStringLiteral("/data");
        o.broker.reviewerName = "tester";
        core = std::make_unique<ConsoleCore>(o, &clock);
        QString error;
        started = core->start(&error);
        if (withPage) {
            page = std::make_unique<WebServer>(core.get(), WebConfig {});
            started = started && page->start(&error);
        }
        if (!started)
            qWarning("%s", qPrintable(error));
        window = std::make_unique<MainWindow>(core.get(), page ? page->sessions() : nullptr);
        window->show();
        window->activateWindow();
        active = QTest::qWaitForWindowActive(window.get());
    }

    // Ctrl+Shift+P, as the reviewer presses it in the window.
    DevicesDialog *openWithShortcut()
    {
        QTest::keyClick(
            QApplication::focusWidget(), Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        return QTest::qWaitFor([&] { return window->devicesDialog() != nullptr; }, WaitMs)
            ? window->devicesDialog()
            : nullptr;
    }
    // What a phone's page does with the link: POST its fragment.
    HttpReply redeem(const QString &link, const QByteArray &userAgent) const
    {
        const QByteArray body = QByteArray::fromStdString(
            dumpJson({ { "code", link.section(u'#', 1).toStdString() } }));
        return http(page->port(), "POST", "/api/pair", body,
            { { "Origin", page->origin().toUtf8() }, { "User-Agent", userAgent } });
    }
    HttpReply me(const Device &device) const
    {
        return http(page->port(), "GET", "/api/me", {}, device.headers());
    }

    QTemporaryDir dir;
    ManualClock clock;
    std::unique_ptr<ConsoleCore> core;
    std::unique_ptr<WebServer> page;
    std::unique_ptr<MainWindow> window;
    bool started = false;
    bool active = false;
};

template <typename T> T *child(QWidget *parent, const char *name)
{
    return parent->findChild<T *>(QString::fromLatin1(name));
}

QImage shownQr(DevicesDialog *dialog)
{
    return child<QLabel>(dialog, "pairQr")
        ->pixmap()
        .toImage()
        .convertToFormat(QImage::Format_RGB32);
}

QSet<QRgb> coloursOf(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            colours.insert(image.pixel(x, y));
    return colours;
}

// What a phone's camera reads from the picture: Debian's zbarimg.
QString scan(const QImage &image)
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("qr.png"));
    if (!image.save(file))
        return QStringLiteral("(not saved)");
    QProcess zbar;
    zbar.start(QStringLiteral("zbarimg"), { QStringLiteral("--raw"), QStringLiteral("-q"), file });
    if (!zbar.waitForFinished(WaitMs))
        return QStringLiteral("(zbarimg did not finish)");
    return QString::fromUtf8(zbar.readAllStandardOutput()).trimmed();
}

QString cell(DevicesModel *model, int row, DevicesModel::Column column)
{
    return model->index(row, column).data().toString();
}

} // namespace

class TestDevices : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void deviceNames_data();
    void deviceNames();
    void withoutAPageTheActionSaysHowToGetOne();
    void theLinkPairsAPhoneOverHttpAndTheListShowsIt();
    void theQrCodeScansBackToTheLink();
    void theLinkExpiresOnTheConsolesClockAndANewOneWorks();
    void revokeEndsTheSelectedSessionsAndTheirCookies();
    void copyLinkAndEscape();
};

void TestDevices::deviceNames_data()
{
    QTest::addColumn<QByteArray>("userAgent");
    QTest::addColumn<QString>("name");
    QTest::newRow("firefox android") << FirefoxAndroid << QStringLiteral("Firefox on Android");
    QTest::newRow("safari iphone") << SafariIPhone << QStringLiteral("Safari on iPhone");
    QTest::newRow("chrome on ios") << QByteArray(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
        "Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1")
                                   << QStringLiteral("Chrome on iPhone");
    QTest::newRow("chrome android")
        << QByteArray("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
                      "Chrome/126.0.0.0 Mobile Safari/537.36")
        << QStringLiteral("Chrome on Android");
    QTest::newRow("samsung") << QByteArray(
        "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
        "SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36")
                             << QStringLiteral("Samsung Internet on Android");
    QTest::newRow("edge windows") << QByteArray(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0")
                                  << QStringLiteral("Edge on Windows");
    QTest::newRow("safari mac") << QByteArray(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.5 Safari/605.1.15")
                                << QStringLiteral("Safari on macOS");
    QTest::newRow("curl") << QByteArray("curl/8.5.0") << QStringLiteral("curl");
    QTest::newRow("unknown, shortened")
        << QByteArray("SomeKiosk build 1234567890 abcdefghijklmnopqrstuvwxyz0123456789")
        << QStringLiteral("SomeKiosk build 1234567890 abcdefghijklm\u2026");
    QTest::newRow("none") << QByteArray() << QStringLiteral("unknown device");
}

void TestDevices::deviceNames()
{
    QFETCH(QByteArray, userAgent);
    QFETCH(QString, name);
    QCOMPARE(deviceName(userAgent.toStdString()), name);
}

void TestDevices::withoutAPageTheActionSaysHowToGetOne()
{
    DevicesHarness h(false);
    QVERIFY(h.started && h.active);
    QAction *action = h.window->pairAction();
    QVERIFY(action);
    QCOMPARE(action->text(), QStringLiteral("Pair a device\u2026"));
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    QVERIFY(!action->isEnabled());
    const QString how
        = QStringLiteral("Start the console with --web 127.0.0.1:8765 to review from a phone");
    QCOMPARE(action->toolTip(), how);
    QCOMPARE(action->statusTip(), how);
    auto *button = child<QToolButton>(h.window.get(), "pairDeviceButton");
    QVERIFY(button && button->isVisible());
    QVERIFY(!button->isEnabled());
    QTest::keyClick(
        QApplication::focusWidget(), Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    h.window->openDevices();
    QVERIFY(!h.window->devicesDialog());
}

void TestDevices::theLinkPairsAPhoneOverHttpAndTheListShowsIt()
{
    DevicesHarness h;
    QVERIFY(h.started && h.active);
    QVERIFY(h.window->pairAction()->isEnabled());
    // The status bar's button opens it, and asking again raises the same dialog.
    auto *button = child<QToolButton>(h.window.get(), "pairDeviceButton");
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY(h.window->devicesDialog());
    DevicesDialog *dialog = h.window->devicesDialog();
    h.window->openDevices();
    QCOMPARE(h.window->devicesDialog(), dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QAbstractItemModelTester tester(
        dialog->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    const QString link = child<QLineEdit>(dialog, "pairLink")->text();
    QCOMPARE(link, dialog->link());
    QVERIFY2(link.startsWith(h.page->origin() + QStringLiteral("/pair#")), qPrintable(link));
    QCOMPARE(dialog->linkState(), DevicesDialog::LinkState::Open);
    QCOMPARE(
        child<QLabel>(dialog, "pairCountdown")->text(), QStringLiteral("Works once, for 5:00"));
    QVERIFY(!child<QPushButton>(dialog, "newLinkButton")->isVisible());
    // The page listens on loopback: the dialog says a phone cannot reach it.
    auto *note = child<QLabel>(dialog, "loopbackNote");
    QVERIFY(note && note->isVisible());
    // (Its commands are kept on one line with no-break spaces and word joiners.)
    const QString said = note->text().remove(QChar(0x2060)).replace(QChar(0x00A0), u' ');
    for (const char *words : { "127.0.0.1:", "tailscale serve", "--web-origin", "--web-cert" })
        QVERIFY2(said.contains(QLatin1String(words)), qPrintable(said));
    auto *table = child<QTableView>(dialog, "devicesTable");
    auto *noDevices = child<QLabel>(dialog, "noDevices");
    QVERIFY(noDevices->isVisible() && !table->isVisible());
    QCOMPARE(noDevices->text(), QStringLiteral("No paired devices"));

    const HttpReply paired = h.redeem(link, FirefoxAndroid);
    QCOMPARE(paired.status, 200);
    QCOMPARE(paired.json()["reviewer"], "tester");
    const Device device = deviceFrom(paired);
    QCOMPARE(h.me(device).status, 200);

    DevicesModel *model = dialog->model();
    QTRY_COMPARE(model->rowCount(), 1);
    QVERIFY(table->isVisible() && !noDevices->isVisible());
    QCOMPARE(cell(model, 0, DevicesModel::Reviewer), QStringLiteral("tester"));
    QCOMPARE(cell(model, 0, DevicesModel::Device), QStringLiteral("Firefox on Android"));
    QCOMPARE(model->index(0, DevicesModel::Device).data(Qt::ToolTipRole).toString(),
        QString::fromLatin1(FirefoxAndroid));
    QCOMPARE(cell(model, 0, DevicesModel::PairedVia), QStringLiteral("console"));
    QCOMPARE(cell(model, 0, DevicesModel::Created),
        QDateTime::fromMSecsSinceEpoch(Start).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    QCOMPARE(cell(model, 0, DevicesModel::LastSeen), QStringLiteral("just now"));
    QCOMPARE(cell(model, 0, DevicesModel::PageOpen), QStringLiteral("no"));
    // The link has done its work: it greys out, and a new one is a click away.
    QCOMPARE(dialog->linkState(), DevicesDialog::LinkState::Paired);
    QCOMPARE(child<QLabel>(dialog, "pairCountdown")->text(),
        QStringLiteral("Firefox on Android has paired. To pair another device, make a new link."));
    QVERIFY(child<QPushButton>(dialog, "newLinkButton")->isVisible());
    QVERIFY(!coloursOf(shownQr(dialog)).contains(qRgb(0, 0, 0)));

    // A page opened on the phone shows as open; "last seen" reads on the console's clock.
    LiveFeed feed(h.page->port(), h.page->origin().toUtf8(), device);
    QVERIFY(feed.connected());
    QTRY_COMPARE(cell(model, 0, DevicesModel::PageOpen), QStringLiteral("yes"));
    h.clock.advance(12 * 60'000);
    QCOMPARE(cell(model, 0, DevicesModel::LastSeen), QStringLiteral("12 min ago"));
}

void TestDevices::theQrCodeScansBackToTheLink()
{
    DevicesHarness h;
    QVERIFY(h.started && h.active);
    DevicesDialog *dialog = h.openWithShortcut();
    QVERIFY(dialog);
    const QImage qr = shownQr(dialog);
    // Two colours and whole pixels per module, the quiet zone included: crisp.
    QCOMPARE(coloursOf(qr), (QSet<QRgb> { qRgb(0, 0, 0), qRgb(255, 255, 255) }));
    const int modules = encodeQr(dialog->link().toUtf8()).size + 2 * QrQuietZone;
    QCOMPARE(qr.width(), qr.height());
    QCOMPARE(qr.width() % modules, 0);
    QVERIFY2(qr.width() >= 200 && qr.width() <= 280, qPrintable(QString::number(qr.width())));
    QCOMPARE(scan(qr), dialog->link());
}

void TestDevices::theLinkExpiresOnTheConsolesClockAndANewOneWorks()
{
    DevicesHarness h;
    QVERIFY(h.started && h.active);
    DevicesDialog *dialog = h.openWithShortcut();
    QVERIFY(dialog);
    auto *countdown = child<QLabel>(dialog, "pairCountdown");
    auto *newLink = child<QPushButton>(dialog, "newLinkButton");
    const QString first = dialog->link();
    h.clock.advance(1000);
    QCOMPARE(countdown->text(), QStringLiteral("Works once, for 4:59"));
    h.clock.advance(PairingLifetimeMs - 1000 - 1);
    QCOMPARE(countdown->text(), QStringLiteral("Works once, for 0:01"));
    QVERIFY(!newLink->isVisible());

    h.clock.advance(1);
    QCOMPARE(dialog->linkState(), DevicesDialog::LinkState::Expired);
    QCOMPARE(countdown->text(),
        QStringLiteral("This link has expired. Make a new one to pair a device."));
    QVERIFY(newLink->isVisible());
    QVERIFY(!child<QPushButton>(dialog, "copyLinkButton")->isEnabled());
    QVERIFY(!child<QLineEdit>(dialog, "pairLink")->isEnabled());
    const QSet<QRgb> grey = coloursOf(shownQr(dialog));
    QCOMPARE(grey.size(), 2);
    QVERIFY(!grey.contains(qRgb(0, 0, 0)));
    const HttpReply late = h.redeem(first, SafariIPhone);
    QCOMPARE(late.status, 410);
    QCOMPARE(late.error(), "pairing_expired");

    QTest::mouseClick(newLink, Qt::LeftButton);
    const QString second = dialog->link();
    QVERIFY(second != first);
    QCOMPARE(child<QLineEdit>(dialog, "pairLink")->text(), second);
    QCOMPARE(dialog->linkState(), DevicesDialog::LinkState::Open);
    QCOMPARE(countdown->text(), QStringLiteral("Works once, for 5:00"));
    QVERIFY(!newLink->isVisible());
    QVERIFY(coloursOf(shownQr(dialog)).contains(qRgb(0, 0, 0)));
    QCOMPARE(scan(shownQr(dialog)), second);
    QCOMPARE(h.redeem(second, SafariIPhone).status, 200);
    QTRY_COMPARE(dialog->model()->rowCount(), 1);
    QCOMPARE(cell(dialog->model(), 0, DevicesModel::Device), QStringLiteral("Safari on iPhone"));
}

void TestDevices::revokeEndsTheSelectedSessionsAndTheirCookies()
{
    DevicesHarness h;
    QVERIFY(h.started && h.active);
    DevicesDialog *dialog = h.openWithShortcut();
    QVERIFY(dialog);
    DevicesModel *model = dialog->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Device devices[3];
    const QByteArray agents[3] = { FirefoxAndroid, SafariIPhone, "curl/8.5.0" };
    for (int i = 0; i < 3; ++i) {
        dialog->newLink();
        devices[i] = deviceFrom(h.redeem(dialog->link(), agents[i]));
        QVERIFY(!devices[i].cookie.isEmpty() && !devices[i].key.isEmpty());
    }
    QTRY_COMPARE(model->rowCount(), 3);
    LiveFeed phonePage(h.page->port(), h.page->origin().toUtf8(), devices[0]);
    QVERIFY(phonePage.connected());
    QVERIFY(phonePage.next("snapshot").is_object()); // its device key taken

    auto *table = child<QTableView>(dialog, "devicesTable");
    auto *revoke = child<QPushButton>(dialog, "revokeButton");
    // Rows are picked as a person picks them: by clicking (Ctrl adds one).
    const auto click = [&](int row, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        QTest::mouseClick(table->viewport(), Qt::LeftButton, modifiers,
            table->visualRect(model->index(row, DevicesModel::Device)).center());
    };
    QVERIFY(!revoke->isEnabled());
    // Delete on the list revokes the selected device: its open page is told and closed.
    click(0);
    QVERIFY(revoke->isEnabled());
    QTest::keyClick(table, Qt::Key_Delete);
    QTRY_COMPARE(model->rowCount(), 2);
    QCOMPARE(cell(model, 0, DevicesModel::Device), QStringLiteral("Safari on iPhone"));
    QVERIFY(!phonePage.next("revoked").is_null());
    QVERIFY(phonePage.waitClosed());
    const HttpReply gone = h.me(devices[0]);
    QCOMPARE(gone.status, 401);
    QCOMPARE(gone.error(), "no_session");
    QCOMPARE(h.me(devices[1]).status, 200);

    // The button revokes every selected row.
    click(0);
    click(1, Qt::ControlModifier);
    QCOMPARE(table->selectionModel()->selectedRows().size(), 2);
    QTest::mouseClick(revoke, Qt::LeftButton);
    QTRY_COMPARE(model->rowCount(), 0);
    QCOMPARE(h.me(devices[1]).status, 401);
    QCOMPARE(h.me(devices[2]).status, 401);
    QVERIFY(h.page->sessions()->list().empty());
    QVERIFY(child<QLabel>(dialog, "noDevices")->isVisible());
    QVERIFY(!revoke->isEnabled());
}

void TestDevices::copyLinkAndEscape()
{
    DevicesHarness h;
    QVERIFY(h.started && h.active);
    DevicesDialog *dialog = h.openWithShortcut();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowActive(dialog));
    auto *copy = child<QPushButton>(dialog, "copyLinkButton");
    QTest::mouseClick(copy, Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), dialog->link());
    QCOMPARE(copy->text(), QStringLiteral("Copied"));
    QTRY_COMPARE(copy->text(), QStringLiteral("Copy link"));

    // Esc closes it, and the keyboard is back on the queue.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QTRY_VERIFY(!h.window->devicesDialog());
    QTRY_COMPARE(QApplication::focusWidget(), h.window->queueView());
}

QTEST_MAIN(TestDevices)
#include "tst_devices.moc"
