// SPDX-License-Identifier: Apache-2.0
#pragma once

// A QR code as a picture (core/qr draws only for terminals, as core never
// links Qt GUI).

#include "qr/qrcode.h"

#include <QColor>
#include <QImage>

namespace holdpoint {

// Each module `scale` x `scale` pixels, the quiet zone included, in exactly
// two colours: edges a scanner reads at once. Shown at its own size (never
// scaled with smoothing) it stays sharp. Null for an empty code.
QImage qrImage(const QrCode &code, int scale, QColor dark = Qt::black, QColor light = Qt::white);

// The whole number of pixels per module that makes the code, quiet zone
// included, closest to `pixels` wide; at least 1.
int qrScaleFor(const QrCode &code, int pixels);

} // namespace holdpoint
