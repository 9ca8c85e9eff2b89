// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where a request ends, decided before Qt HTTP Server's parser sees a byte
// of it (RFC 9112 §6.3). Qt's parser reads everything the socket holds in
// one go, merges what follows a request into it, and goes on after a
// framing it should have refused; behind a reverse proxy that reads the
// same bytes differently, the difference is request smuggling. So the
// listener frames each request itself, with one strict reading: a request
// this parser cannot frame is answered 400 and its connection closed, with
// nothing after it read (§6.3: "the server MUST respond with a 400 (Bad
// Request) status code and then close the connection").

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace holdpoint {

// A Content-Length of more digits than this is no length a request here
// can have (and would overflow before the byte cap refused it).
inline constexpr qsizetype MaxContentLengthDigits = 18;

// Qt HTTP Server 6.4 hands a request's head to QtNetwork's
// QHttpHeaderParser, which gives up on more than 100 field lines or on one
// over 8 KiB (Apache's LimitRequestFields and LimitRequestFieldSize); Qt
// then reads the request as having no fields at all, no Content-Length
// included, and parses its body as the next request. A head past either
// limit is refused here instead, so the two readings never differ.
inline constexpr int MaxHeaderFields = 100;
inline constexpr qsizetype MaxFieldLineBytes = 8 * 1024; // name, colon and value, CRLF not counted

// Fed a request's head as it arrives, one piece after another; says when
// the head is whole and how long the body after it is, or why the request
// cannot be framed. Pure: no socket, no clock.
class RequestFramer final
{
public:
    enum class Status
    {
        NeedMore, // every line so far is well formed; the head goes on
        Complete, // headBytes() and contentLength() are known
        Invalid, // error() says why; nothing after it may be read
    };

    // Takes bytes from `bytes` up to the end of the head at most; `*used`
    // says how many (all of them unless Complete).
    // `maxFields` is never above MaxHeaderFields but in a test that shows
    // what happens when this framer and Qt's parser disagree.
    explicit RequestFramer(int maxFields = MaxHeaderFields)
        : m_maxFields(maxFields)
    { }

    Status feed(QByteArrayView bytes, qsizetype *used);
    void reset() { *this = RequestFramer(m_maxFields); }

    Status status() const { return m_status; }
    // The head's bytes so far, its blank line included once Complete.
    qsizetype headBytes() const { return m_head.size(); }
    qint64 contentLength() const { return m_contentLength; }
    // Field lines in the head so far, as Qt's parser counts them.
    int fields() const { return m_fields; }
    const QString &error() const { return m_error; }

private:
    Status fail(QString why);
    // One line, its CRLF stripped: the request line, a field, or the end.
    Status line(QByteArrayView text);
    Status requestLine(QByteArrayView text);
    Status field(QByteArrayView text);
    Status headEnds();

    int m_maxFields;
    QByteArray m_head;
    qsizetype m_lineStart = 0; // where the line being read starts in m_head
    bool m_seenRequestLine = false;
    bool m_http11 = false;
    int m_fields = 0;
    int m_contentLengths = 0;
    int m_hosts = 0;
    qint64 m_contentLength = 0;
    Status m_status = Status::NeedMore;
    QString m_error;
};

} // namespace holdpoint
