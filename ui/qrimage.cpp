// SPDX-License-Identifier: Apache-2.0
#include "qrimage.h"

#include <algorithm>

namespace holdpoint {

QImage qrImage(const QrCode &code, int scale, QColor dark, QColor light)
{
    if (code.size <= 0 || scale <= 0)
        return {};
    const int side = (code.size + 2 * QrQuietZone) * scale;
    // Indexed: one byte a pixel, and no colour but these two can appear.
    QImage image(side, side, QImage::Format_Indexed8);
    image.setColorTable({ light.rgb(), dark.rgb() });
    for (int y = 0; y < side; ++y) {
        uchar *line = image.scanLine(y);
        const int row = y / scale - QrQuietZone;
        for (int x = 0; x < side; ++x)
            line[x] = code.dark(x / scale - QrQuietZone, row) ? 1 : 0;
    }
    return image;
}

int qrScaleFor(const QrCode &code, int pixels)
{
    const int modules = code.size + 2 * QrQuietZone;
    return std::max(1, int(double(pixels) / modules + 0.5));
}

} // namespace holdpoint
