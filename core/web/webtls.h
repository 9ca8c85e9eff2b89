// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reviewer page's TLS set-up (WEB.md "TLS"), checked once at start so
// that a mistake is a message saying what to fix, not handshakes that hang:
// a certificate chain, a private key only its owner may read, and the key
// that belongs to the chain's first certificate.

#include <QSslConfiguration>
#include <QString>

#include <optional>

namespace holdpoint {

// The server configuration for `certFile` and `keyFile` (PEM), or nullopt
// with `*error` naming the file and the fix.
std::optional<QSslConfiguration> loadWebTls(
    const QString &certFile, const QString &keyFile, QString *error);

} // namespace holdpoint
