// SPDX-License-Identifier: Apache-2.0
#include "jsonhighlighter.h"

#include <QGuiApplication>
#include <QPalette>

namespace holdpoint {

JsonHighlighter::JsonHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
    , m_tokens(QStringLiteral(
          R"re(("(?:[^"\\]|\\.)*")(\s*:)?|(-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|\b(true|false|null)\b)re"))
{
    const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
    m_key.setForeground(dark ? QColor(0x9c, 0xdc, 0xfe) : QColor(0x00, 0x45, 0x8b));
    m_string.setForeground(dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15));
    m_number.setForeground(dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58));
    m_literal.setForeground(dark ? QColor(0x56, 0x9c, 0xd6) : QColor(0x00, 0x00, 0xff));
    m_literal.setFontWeight(QFont::Bold);
    m_placeholder = m_string;
    m_placeholder.setBackground(dark ? QColor(0x5a, 0x4a, 0x10) : QColor(0xff, 0xf0, 0xb3));
}

void JsonHighlighter::highlightBlock(const QString &text)
{
    static const QRegularExpression secret(QStringLiteral(R"(\[secret:[a-z_]+:\d+\])"));
    for (auto it = m_tokens.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedLength(1) > 0) {
            const bool key = m.capturedLength(2) > 0;
            setFormat(int(m.capturedStart(1)), int(m.capturedLength(1)), key ? m_key : m_string);
            // Masked secrets stand out: editing around them is fine, the
            // placeholder itself stands for the real value.
            if (!key)
                for (auto s = secret.globalMatch(m.captured(1)); s.hasNext();) {
                    const auto sm = s.next();
                    setFormat(int(m.capturedStart(1) + sm.capturedStart()),
                        int(sm.capturedLength()), m_placeholder);
                }
        } else if (m.capturedLength(3) > 0) {
            setFormat(int(m.capturedStart(3)), int(m.capturedLength(3)), m_number);
        } else if (m.capturedLength(4) > 0) {
            setFormat(int(m.capturedStart(4)), int(m.capturedLength(4)), m_literal);
        }
    }
}

} // namespace holdpoint
