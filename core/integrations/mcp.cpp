// SPDX-License-Identifier: Apache-2.0
#include "mcp.h"

#include <cstring>

namespace holdpoint::mcp {

void LineFramer::feed(
    const char *data, qsizetype size, std::vector<QByteArray> *lines, int *dropped)
{
    qsizetype start = 0;
    while (start < size) {
        const char *nl
            = static_cast<const char *>(std::memchr(data + start, '\n', std::size_t(size - start)));
        const qsizetype end = nl ? qsizetype(nl - data) : size;
        if (!m_discarding) {
            m_buffer.append(data + start, end - start);
            if (m_buffer.size() > m_max) {
                m_buffer.clear();
                m_discarding = true;
                ++*dropped;
            }
        }
        if (!nl)
            break;
        if (!m_discarding) {
            if (m_buffer.endsWith('\r'))
                m_buffer.chop(1);
            if (!m_buffer.isEmpty())
                lines->push_back(std::exchange(m_buffer, {}));
        }
        m_discarding = false;
        m_buffer.clear();
        start = end + 1;
    }
}

QByteArray LineFramer::takeRest()
{
    QByteArray rest = std::exchange(m_buffer, {});
    if (rest.trimmed().isEmpty())
        return {};
    return rest;
}

QByteArray LineFramer::frame(const QByteArray &line)
{
    return line + '\n';
}

Message classify(const QByteArray &line)
{
    Message m;
    Json j = Json::parse(line.constBegin(), line.constEnd(), nullptr, false);
    if (!j.is_object())
        return m;
    auto method = j.find("method");
    auto id = j.find("id");
    const bool hasId = id != j.end() && (id->is_string() || id->is_number_integer());
    if (method != j.end() && method->is_string()) {
        m.method = method->get<std::string>();
        m.kind = hasId ? Kind::Request : Kind::Notification;
    } else if (hasId && (j.contains("result") || j.contains("error"))) {
        m.kind = Kind::Response;
    } else {
        return m;
    }
    if (hasId)
        m.id = *id;
    m.json = std::move(j);
    return m;
}

Json errorResult(const Json &id, const std::string &text)
{
    return Json { { "jsonrpc", "2.0" }, { "id", id },
        { "result",
            { { "content", Json::array({ { { "type", "text" }, { "text", text } } }) },
                { "isError", true } } } };
}

} // namespace holdpoint::mcp
