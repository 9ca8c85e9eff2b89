// SPDX-License-Identifier: Apache-2.0
#include "webtls.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <sys/stat.h>

namespace holdpoint {

namespace {

constexpr qint64 MaxPemBytes = 1024 * 1024;

template<typename T, void (*Free)(T *)>
struct Freer
{
    void operator()(T *p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;

// The key's bytes, if only its owner may read them: a key others can read
// lets them be the page (and read every reviewer's cookie on the way).
bool readKeyFile(const QString &path, QByteArray *bytes, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("--web-key %1: %2").arg(path, file.errorString());
        return false;
    }
    // The open file, not the path: what is checked is what is read.
    struct stat st
    {
    };
    if (fstat(file.handle(), &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = QStringLiteral("--web-key %1: not a regular file").arg(path);
        return false;
    }
    if ((st.st_mode & 0077) != 0) {
        *error = QStringLiteral("--web-key %1 has mode %2: a TLS private key must be readable by its owner "
                                "alone; run `chmod 600 %1`")
                     .arg(path, QString::number(st.st_mode & 0777, 8).rightJustified(4, u'0'));
        return false;
    }
    *bytes = file.read(MaxPemBytes + 1);
    if (bytes->size() > MaxPemBytes) {
        *error = QStringLiteral("--web-key %1: larger than a PEM key can be").arg(path);
        return false;
    }
    return true;
}

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
    Pkey key(PEM_read_bio_PrivateKey(keyBio.get(), nullptr, [](char *, int, int, void *) { return 0; }, nullptr));
    return cert && key && X509_check_private_key(cert.get(), key.get()) == 1;
}

} // namespace

std::optional<QSslConfiguration> loadWebTls(const QString &certFile, const QString &keyFile, QString *error)
{
    QFile certIn(certFile);
    if (!certIn.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("--web-cert %1: %2").arg(certFile, certIn.errorString());
        return std::nullopt;
    }
    const QByteArray certPem = certIn.read(MaxPemBytes);
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certPem, QSsl::Pem);
    if (chain.isEmpty()) {
        *error = QStringLiteral("--web-cert %1: no PEM certificate there").arg(certFile);
        return std::nullopt;
    }
    QByteArray keyPem;
    if (!readKeyFile(keyFile, &keyPem, error))
        return std::nullopt;
    QSslKey key(keyPem, QSsl::Rsa);
    if (key.isNull())
        key = QSslKey(keyPem, QSsl::Ec);
    if (key.isNull()) {
        *error = QStringLiteral("--web-key %1: no unencrypted PEM RSA or EC key there").arg(keyFile);
        return std::nullopt;
    }
    if (!keyMatches(certPem, keyPem)) {
        *error = QStringLiteral("--web-key %1 is not the key of --web-cert %2 (its first certificate): give the "
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
