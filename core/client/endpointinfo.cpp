// SPDX-License-Identifier: Apache-2.0
#include "endpointinfo.h"

#include "common/datadir.h"
#include "common/json.h"

#include "wire/endpoint.h"

namespace holdpoint {

bool readEndpointInfo(
    const QString &dataDir, bool withReviewer, EndpointInfo *info, QString *error, bool *absent)
{
    // One reader for every client: the hooks use wire's without Qt.
    wire::Endpoint e;
    std::string why;
    if (!wire::readEndpoint(dataDir.toStdString(), withReviewer, &e, &why, absent)) {
        *error = toQString(why);
        return false;
    }
    info->url = QUrl(toQString(e.url));
    if (!info->url.isValid()) {
        *error = dataDir + u'/' + QLatin1String(EndpointFileName)
            + QStringLiteral(": url is not a ws:// URL");
        return false;
    }
    info->agentToken = QByteArray::fromStdString(e.agentToken);
    info->reviewerToken = QByteArray::fromStdString(e.reviewerToken);
    info->pid = e.pid;
    return true;
}

} // namespace holdpoint
