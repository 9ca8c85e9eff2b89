// SPDX-License-Identifier: Apache-2.0
// QR codes checked against the structure ISO/IEC 18004 gives them
// and decoded back by a scanner of its own: zbarimg, run as a process.

#include "qr/qrcode.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace holdpoint;

namespace {

// Like the links `holdpoint-ctl web pair` prints: 60 characters.
const QByteArray PairLink = "http://127.0.0.1:8765/pair#AbCdEfGhIjKlMnOpQrStUvWxYz0123456";

// The terminal's cells: blank, upper half, lower half, full block; bit 0
// of the index lights the top half, bit 1 the bottom.
const QString Blocks = QStringLiteral(" \u2580\u2584\u2588");

// A picture for the scanner, true = dark, each row as wide as the first.
using Picture = std::vector<std::vector<bool>>;

Picture pictureOf(const QrCode &code)
{
    Picture rows;
    for (int y = -QrQuietZone; y < code.size + QrQuietZone; ++y) {
        rows.emplace_back();
        for (int x = -QrQuietZone; x < code.size + QrQuietZone; ++x)
            rows.back().push_back(code.dark(x, y));
    }
    return rows;
}

// The terminal's text as it shows: a cell's lit halves in the foreground
// colour, the rest in the background.
Picture pictureOf(const QString &terminal, bool darkForeground)
{
    Picture rows;
    for (const QString &line : terminal.split(u'\n', Qt::SkipEmptyParts)) {
        rows.resize(rows.size() + 2);
        for (const QChar c : line) {
            const qsizetype lit = Blocks.indexOf(c);
            rows[rows.size() - 2].push_back(bool(lit & 1) == darkForeground);
            rows.back().push_back(bool(lit & 2) == darkForeground);
        }
    }
    return rows;
}

// What zbarimg reads from the picture, 4 pixels a module, as raw bytes.
QByteArray scan(const QString &zbarimg, const Picture &picture)
{
    constexpr int Scale = 4;
    const int width = int(picture.front().size()) * Scale, height = int(picture.size()) * Scale;
    QByteArray pgm = "P5\n" + QByteArray::number(width) + ' ' + QByteArray::number(height);
    pgm += "\n255\n";
    for (const auto &row : picture)
        for (int i = 0; i < Scale; ++i)
            for (const bool dark : row)
                pgm.append(Scale, dark ? '\0' : '\xff');
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("code.pgm"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(pgm) != pgm.size())
        return "cannot write " + path.toUtf8();
    file.close();
    QProcess zbar;
    // Binary: the bytes as encoded, with no charset guess and no newline.
    zbar.start(zbarimg,
        { QStringLiteral("--raw"), QStringLiteral("-q"), QStringLiteral("-Sbinary"), path });
    if (!zbar.waitForFinished(30000) || zbar.exitCode() != 0)
        return "zbarimg failed, exit code " + QByteArray::number(zbar.exitCode()) + ": "
            + zbar.readAllStandardError();
    return zbar.readAllStandardOutput();
}

} // namespace

class TestQr : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void texts_data();
    void structure_data() { texts_data(); }
    void structure();
    void decodes_data() { texts_data(); }
    void decodes();
    void smallestVersion_data();
    void smallestVersion();
    void terminal_data();
    void terminal();
    void terminalScans_data() { terminal_data(); }
    void terminalScans();
    void doesNotFit_data();
    void doesNotFit();

private:
    QString m_zbarimg;
};

void TestQr::initTestCase()
{
    m_zbarimg = QStandardPaths::findExecutable(QStringLiteral("zbarimg"));
}

void TestQr::texts_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("pairing link") << PairLink;
    QTest::newRow("one byte") << QByteArray("A");
    QTest::newRow("binary") << QByteArray("a\0\xff\xe9\n", 5);
    QTest::newRow("UTF-8") << QByteArray("reviewer \xc3\xa9l\xc3\xa8ve \xe2\x9c\x93");
    QTest::newRow("largest") << QByteArray(QrMaxBytes, 'x');
}

void TestQr::structure()
{
    QFETCH(QByteArray, text);
    const QrCode code = encodeQr(text);
    const int n = code.size;
    // Version V is 17 + 4V modules wide, V from 1 to 40.
    QVERIFY2(n >= 21 && n <= 177 && (n - 21) % 4 == 0, qPrintable(QString::number(n)));
    QCOMPARE(code.modules.size(), std::size_t(n) * std::size_t(n));

    // Finder patterns in three corners: a dark 7x7 ring, a light ring, a dark
    // 3x3 centre, each with a light separator towards the code.
    for (const auto &[left, top] : { std::pair { 0, 0 }, { n - 7, 0 }, { 0, n - 7 } }) {
        for (int y = -1; y <= 7; ++y)
            for (int x = -1; x <= 7; ++x) {
                const int ring = std::max(std::abs(x - 3), std::abs(y - 3));
                const bool dark = ring == 3 || ring <= 1;
                const QString at = QStringLiteral("finder %1,%2 module %3,%4").arg(left).arg(top);
                QVERIFY2(code.dark(left + x, top + y) == dark, qPrintable(at.arg(x).arg(y)));
            }
    }
    // Timing patterns between them on row and column 6, dark first.
    for (int i = 8; i < n - 8; ++i) {
        QCOMPARE(code.dark(i, 6), i % 2 == 0);
        QCOMPARE(code.dark(6, i), i % 2 == 0);
    }
    // The dark module beside the bottom-left finder, at (8, 4V + 9).
    QVERIFY(code.dark(8, n - 8));
    // From version 2 an alignment pattern, 5x5 rings, centred 7 modules from
    // the bottom-right corner.
    if (n > 21)
        for (int y = -2; y <= 2; ++y)
            for (int x = -2; x <= 2; ++x)
                QCOMPARE(code.dark(n - 7 + x, n - 7 + y), std::max(std::abs(x), std::abs(y)) != 1);
}

void TestQr::decodes()
{
    if (m_zbarimg.isEmpty())
        QSKIP("zbarimg is not installed (Debian: zbar-tools)");
    QFETCH(QByteArray, text);
    QCOMPARE(scan(m_zbarimg, pictureOf(encodeQr(text))), text);
}

void TestQr::smallestVersion_data()
{
    // Byte-mode capacities at level M (the standard's data capacity table):
    // each row is the most a version holds, or one byte more.
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("size");
    QTest::newRow("version 1 full") << 14 << 21;
    QTest::newRow("version 2") << 15 << 25;
    QTest::newRow("version 4 full") << 62 << 33;
    QTest::newRow("version 5") << 63 << 37;
    QTest::newRow("version 40 full") << QrMaxBytes << 177;
}

void TestQr::smallestVersion()
{
    QFETCH(int, bytes);
    QFETCH(int, size);
    QCOMPARE(encodeQr(QByteArray(bytes, 'x')).size, size);
}

void TestQr::terminal_data()
{
    QTest::addColumn<bool>("invert");
    QTest::newRow("dark terminal") << false;
    QTest::newRow("light terminal (invert)") << true;
}

void TestQr::terminal()
{
    QFETCH(bool, invert);
    const QrCode code = encodeQr(PairLink);
    const QString text = qrForTerminal(code, invert);
    QVERIFY(text.endsWith(u'\n'));
    const QStringList lines = text.split(u'\n', Qt::SkipEmptyParts);
    const int side = code.size + 2 * QrQuietZone;
    QCOMPARE(lines.size(), (side + 1) / 2);
    for (const QString &line : lines) {
        QCOMPARE(line.size(), side);
        for (const QChar c : line)
            QVERIFY(Blocks.contains(c));
    }

    // Lit halves are the light modules, or with invert the dark ones; the
    // half row past the end is quiet zone.
    const Picture shown = pictureOf(text, invert);
    QCOMPARE(int(shown.size()), side + 1);
    for (int y = 0; y <= side; ++y)
        for (int x = 0; x < side; ++x)
            QCOMPARE(shown[y][x], code.dark(x - QrQuietZone, y - QrQuietZone));

    // The two renderings are each other's complement, cell by cell.
    const QString other = qrForTerminal(code, !invert);
    QCOMPARE(other.size(), text.size());
    for (qsizetype i = 0; i < text.size(); ++i)
        QCOMPARE(other[i], text[i] == u'\n' ? QChar(u'\n') : Blocks[3 - Blocks.indexOf(text[i])]);
}

void TestQr::terminalScans()
{
    if (m_zbarimg.isEmpty())
        QSKIP("zbarimg is not installed (Debian: zbar-tools)");
    QFETCH(bool, invert);
    // A dark terminal has a light foreground; a light one, a dark foreground.
    const bool darkForeground = invert;
    const QString text = qrForTerminal(encodeQr(PairLink), invert);
    QCOMPARE(scan(m_zbarimg, pictureOf(text, darkForeground)), PairLink);
}

void TestQr::doesNotFit_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("4000 bytes") << QByteArray(4000, 'x');
    QTest::newRow("one byte too many") << QByteArray(QrMaxBytes + 1, 'x');
    QTest::newRow("empty") << QByteArray();
}

void TestQr::doesNotFit()
{
    QFETCH(QByteArray, text);
    const QrCode code = encodeQr(text);
    QCOMPARE(code.size, 0);
    QVERIFY(code.modules.empty());
    QVERIFY(!code.dark(0, 0));
    QVERIFY(qrForTerminal(code).isEmpty());
    QVERIFY(qrForTerminal(code, true).isEmpty());
}

QTEST_GUILESS_MAIN(TestQr)
#include "tst_qr.moc"
