// SPDX-License-Identifier: Apache-2.0
#include "webtls.h"

#include "common/reviewertokens.h"

#include <QSslCertificate>
#include <QSslKey>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace holdpoint {

namespace {

constexpr qint64 MaxPemBytes = 1024 * 1024;

template <typename T, void (*Free)(T *)> struct Freer
{
    void operator()(T *p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;

// OpenSSL's own test (X509_check_private_key): the one a handshake fails
// on later. Qt would accept the pair and every client would wait for a
// handshake that never finishes.
bool keyMatches(const QByteArray &certPem, const QByteArray &keyPem)
{
    Bio certBio(BIO_new_mem_buf(certPem.constData(), int(certPem.size())));
    Bio keyBio(BIO_new_mem_buf(keyPem.constData(), int(keyPem.size())));
    if (!certBio || !keyBio)
        return false;
    X509Ptr cert(PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr));
    // No passphrase callback: an encrypted key is refused, not prompted for.
    Pkey key(PEM_read_bio_PrivateKey(
        keyBio.get(), nullptr, [](char *, int, int, void *) { return 0; }, nullptr));
    return cert && key && X509_check_private_key(cert.get(), key.get()) == 1;
}

} // namespace

std::optional<QSslConfiguration> loadWebTls(
    const QString &certFile, const QString &keyFile, QString *error)
{
    // A FIFO is refused rather than waited on, a larger file rather than cut.
    QByteArray certPem;
    if (!readRegularFile(certFile, MaxPemBytes, &certPem, error)) {
        *error = QStringLiteral("--web-cert: ") + *error;
        return std::nullopt;
    }
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certPem, QSsl::Pem);
    if (chain.isEmpty()) {
        *error = QStringLiteral("--web-cert %1: no PEM certificate there").arg(certFile);
        return std::nullopt;
    }
    // The key as ssh takes its own: this user's, closed to everyone else
    // (a key others can read lets them be the page and read every
    // reviewer's cookie on the way), a regular file, never waited on.
    QByteArray keyPem;
    if (!readPrivateFile(keyFile, MaxPemBytes, &keyPem, error)) {
        *error = QStringLiteral("--web-key: ") + *error;
        return std::nullopt;
    }
    QSslKey key(keyPem, QSsl::Rsa);
    if (key.isNull())
        key = QSslKey(keyPem, QSsl::Ec);
    if (key.isNull()) {
        *error
            = QStringLiteral("--web-key %1: no unencrypted PEM RSA or EC key there").arg(keyFile);
        return std::nullopt;
    }
    if (!keyMatches(certPem, keyPem)) {
        *error = QStringLiteral(
            "--web-key %1 is not the key of --web-cert %2 (its first certificate): give the "
            "key the certificate was made for, or a certificate made for this key")
                     .arg(keyFile, certFile);
        return std::nullopt;
    }
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    c.setLocalCertificateChain(chain);
    c.setPrivateKey(key);
    c.setProtocol(QSsl::TlsV1_2OrLater);
    return c;
}

} // namespace holdpoint
