// SPDX-License-Identifier: Apache-2.0
#include "httpframing.h"

namespace holdpoint {

namespace {

// tchar (RFC 9110 §5.6.2): what a method and a field name are made of.
bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTokenChar);
}

QByteArrayView trimmedOws(QByteArrayView text)
{
    while (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t'))
        text = text.sliced(1);
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t'))
        text.chop(1);
    return text;
}

bool isName(QByteArrayView name, QByteArrayView lower)
{
    return name.size() == lower.size() && QByteArray(name.data(), name.size()).toLower() == lower;
}

} // namespace

RequestFramer::Status RequestFramer::fail(QString why)
{
    m_status = Status::Invalid;
    m_error = std::move(why);
    return m_status;
}

RequestFramer::Status RequestFramer::feed(QByteArrayView bytes, qsizetype *used)
{
    *used = 0;
    for (qsizetype i = 0; i < bytes.size() && m_status == Status::NeedMore; ++i) {
        const char c = bytes[i];
        m_head.append(c);
        ++*used;
        const qsizetype at = m_head.size() - 1;
        if (c == '\n') {
            // RFC 9112 §2.2 lets a recipient take a lone LF as a line's end;
            // a proxy that does not would see other lines than ours.
            if (at == m_lineStart || m_head[at - 1] != '\r')
                return fail(QStringLiteral("a line ends in a bare LF, not CRLF (RFC 9112 §2.2)"));
            const QByteArrayView text(m_head.constData() + m_lineStart, at - 1 - m_lineStart);
            m_lineStart = m_head.size();
            line(text);
        } else if (c == '\0') {
            return fail(QStringLiteral("a NUL byte in the request's head (RFC 9110 §5.5)"));
        } else if (at > m_lineStart && m_head[at - 1] == '\r') {
            return fail(QStringLiteral("a bare CR in the request's head (RFC 9112 §2.2)"));
        }
    }
    return m_status;
}

RequestFramer::Status RequestFramer::line(QByteArrayView text)
{
    if (!m_seenRequestLine) {
        // RFC 9112 §2.2: empty lines before the request line are ignored.
        return text.isEmpty() ? m_status : requestLine(text);
    }
    return text.isEmpty() ? headEnds() : field(text);
}

RequestFramer::Status RequestFramer::requestLine(QByteArrayView text)
{
    m_seenRequestLine = true;
    // RFC 9112 §3: method SP request-target SP HTTP-version, single spaces.
    const qsizetype first = text.indexOf(' ');
    const qsizetype last = text.lastIndexOf(' ');
    if (first <= 0 || last == first || last == text.size() - 1)
        return fail(QStringLiteral("the request line is not METHOD TARGET HTTP/1.1 (RFC 9112 §3)"));
    const QByteArrayView method = text.first(first);
    const QByteArrayView target = text.sliced(first + 1, last - first - 1);
    const QByteArrayView version = text.sliced(last + 1);
    if (!isToken(method))
        return fail(QStringLiteral("the request's method is not a token (RFC 9112 §3.1)"));
    if (target.isEmpty()
        || !std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
        return fail(QStringLiteral(
            "the request target holds a space or a control character (RFC 9112 §3.2)"));
    if (version == "HTTP/1.1")
        m_http11 = true;
    else if (version != "HTTP/1.0")
        return fail(QStringLiteral("only HTTP/1.1 and HTTP/1.0 are served here (RFC 9112 §2.3)"));
    return m_status;
}

RequestFramer::Status RequestFramer::field(QByteArrayView text)
{
    if (++m_fields > m_maxFields)
        return fail(QStringLiteral("more than %1 header fields").arg(m_maxFields));
    if (text.size() > MaxFieldLineBytes)
        return fail(QStringLiteral("a header field line over %1 bytes").arg(MaxFieldLineBytes));
    if (text.front() == ' ' || text.front() == '\t')
        return fail(QStringLiteral("a field line folded onto the next (obs-fold, RFC 9112 §5.2)"));
    const qsizetype colon = text.indexOf(':');
    if (colon <= 0)
        return fail(QStringLiteral("a field line without a name and a colon (RFC 9112 §5)"));
    const QByteArrayView name = text.first(colon);
    if (name.back() == ' ' || name.back() == '\t')
        return fail(
            QStringLiteral("whitespace between a field name and its colon (RFC 9112 §5.1)"));
    if (!isToken(name))
        return fail(QStringLiteral("a field name that is not a token (RFC 9110 §5.1)"));
    const QByteArrayView value = trimmedOws(text.sliced(colon + 1));
    if (std::any_of(value.begin(), value.end(),
            [](char c) { return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f; }))
        return fail(QStringLiteral("a control character in a field value (RFC 9110 §5.5)"));

    if (isName(name, "transfer-encoding")) {
        // Nothing the page sends has a transfer coding, and a chunked body
        // is where proxies and servers disagree most; with a Content-Length
        // as well it is a smuggling attempt by definition (RFC 9112 §6.3).
        return fail(QStringLiteral(
            "Transfer-Encoding is not taken here; send a Content-Length (RFC 9112 §6.3)"));
    }
    if (isName(name, "content-length")) {
        // RFC 9110 §8.6 lets a recipient merge repeated equal values; two
        // readers of "0, 5" or of two lines can still disagree, so any
        // second value, list, sign or non-digit ends the connection.
        if (++m_contentLengths > 1)
            return fail(QStringLiteral("more than one Content-Length (RFC 9112 §6.3)"));
        if (value.isEmpty() || value.size() > MaxContentLengthDigits
            || !std::all_of(
                value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return fail(QStringLiteral(
                "Content-Length is not one decimal number of bytes (RFC 9110 §8.6)"));
        m_contentLength = QByteArray(value.data(), value.size()).toLongLong();
    } else if (isName(name, "host") && ++m_hosts > 1) {
        return fail(QStringLiteral("more than one Host (RFC 9112 §3.2)"));
    }
    return m_status;
}

RequestFramer::Status RequestFramer::headEnds()
{
    if (m_http11 && m_hosts == 0)
        return fail(QStringLiteral("an HTTP/1.1 request without a Host (RFC 9112 §3.2)"));
    m_status = Status::Complete;
    return m_status;
}

} // namespace holdpoint
