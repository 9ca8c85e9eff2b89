// SPDX-License-Identifier: Apache-2.0
#pragma once

// QR codes for the pairing link, through libqrencode: a well-kept encoder
// beats one of our own. Drawing for the terminal is here; drawing into a
// QImage belongs to ui/, as core never links Qt GUI.

#include <QByteArray>
#include <QString>

#include <vector>

namespace holdpoint {

// The most bytes a code holds: version 40, level M, byte mode (ISO/IEC
// 18004, the data capacity table).
inline constexpr int QrMaxBytes = 2331;
// The light border a scanner needs around the code, in modules (ISO/IEC
// 18004, quiet zone).
inline constexpr int QrQuietZone = 4;

// A QR code's modules: size x size, row by row, true = dark. Empty (size 0)
// when the text is empty or does not fit.
struct QrCode
{
    int size = 0;
    std::vector<bool> modules;
    // Outside the code is the quiet zone: light.
    bool dark(int x, int y) const;
};

// Byte mode, error correction level M, the smallest version that holds the text.
QrCode encodeQr(const QByteArray &text);

// The code with its quiet zone for a terminal: one character per module
// column, two module rows per line (Unicode half blocks), each line ending
// in '\n'; (size + 8) / 2 lines rounded up, the half row past the end light.
// Modules are either "lit" (the half block, in the terminal's foreground
// colour) or blank (its background). By default light modules are lit and
// dark ones blank, which shows dark on light in a terminal with light text
// on a dark background; `invert` lights the dark modules instead, for
// terminals with dark text on a light background. Empty for an empty code.
QString qrForTerminal(const QrCode &code, bool invert = false);

} // namespace holdpoint
