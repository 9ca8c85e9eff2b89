// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace holdpoint {

// JSON syntax colours for the argument editor: keys, strings, numbers,
// literals. Colours follow the palette, so dark themes stay readable.
class JsonHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit JsonHighlighter(QTextDocument *document);

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_key, m_string, m_number, m_literal, m_placeholder;
    QRegularExpression m_tokens;
};

} // namespace holdpoint
