// SPDX-License-Identifier: Apache-2.0
#include "qrcode.h"

#include <qrencode.h>

#include <memory>

namespace holdpoint {

bool QrCode::dark(int x, int y) const
{
    if (x < 0 || y < 0 || x >= size || y >= size)
        return false;
    return modules[std::size_t(y) * std::size_t(size) + std::size_t(x)];
}

QrCode encodeQr(const QByteArray &text)
{
    if (text.isEmpty() || text.size() > QrMaxBytes)
        return {};
    // Byte mode takes any bytes as they are; version 0 asks for the smallest
    // version that fits. Level M restores 15 % of the code: enough for glare
    // on a screen without growing the code as Q or H would.
    const auto *bytes = reinterpret_cast<const unsigned char *>(text.constData());
    const std::unique_ptr<QRcode, decltype(&QRcode_free)> qr(
        QRcode_encodeData(int(text.size()), bytes, 0, QR_ECLEVEL_M), &QRcode_free);
    if (!qr) // ENOMEM; the size checks above rule out EINVAL and ERANGE
        return {};
    QrCode code;
    code.size = qr->width;
    code.modules.resize(std::size_t(qr->width) * std::size_t(qr->width));
    for (std::size_t i = 0; i < code.modules.size(); ++i)
        code.modules[i] = qr->data[i] & 1; // bit 0 is the module's colour (qrencode.h)
    return code;
}

QString qrForTerminal(const QrCode &code, bool invert)
{
    if (code.size == 0)
        return {};
    // A terminal cell is about twice as tall as wide, so two module rows per
    // cell keep the modules square. Blank, upper half, lower half, full
    // block: bit 0 lights the top half, bit 1 the bottom.
    static constexpr char16_t Cells[] = { u' ', u'\u2580', u'\u2584', u'\u2588' };
    const int begin = -QrQuietZone, end = code.size + QrQuietZone;
    QString out;
    out.reserve((end - begin + 1) * ((end - begin + 1) / 2));
    for (int y = begin; y < end; y += 2) {
        for (int x = begin; x < end; ++x) {
            const bool top = code.dark(x, y) == invert;
            const bool bottom = code.dark(x, y + 1) == invert;
            out += QChar(Cells[int(top) | int(bottom) << 1]);
        }
        out += u'\n';
    }
    return out;
}

} // namespace holdpoint
