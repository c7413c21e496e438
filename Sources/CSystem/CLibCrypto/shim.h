// OpenSSL's libcrypto, for the owner's page: SHA-256 of session tokens (stored hashed), random bytes,
// the self-signed certificate of `web.tls = "self-signed"`, and a backup sealed with a passphrase (scrypt
// and ChaCha20-Poly1305). libcurl already links it on Debian (libcurl4-openssl-dev), so it costs nothing more.
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

// The PEM text of a BIO's contents, malloc'd and NUL-terminated (NULL when out of memory).
static inline char *ss_bio_text(BIO *bio) {
    char *data = NULL;
    long length = BIO_get_mem_data(bio, &data);
    char *text = malloc((size_t)length + 1);
    if (text) {
        memcpy(text, data, (size_t)length);
        text[length] = 0;
    }
    return text;
}

// A self-signed certificate for the page: a new P-256 key, the subject `common_name`, the subject
// alternative names `alt_names` ("DNS:kitchen.local,IP:192.168.1.20", OpenSSL's config syntax), valid
// from an hour ago for `days` days, not a CA, for TLS servers. On success returns 0 and sets
// `*certificate_pem` and `*key_pem` (malloc'd PEM text, the caller frees) and `fingerprint` (32 bytes,
// the certificate's SHA-256, as browsers show it). On failure returns the step that failed (1…).
static inline int ss_self_signed(const char *common_name, const char *alt_names, int days, char **certificate_pem,
                                 char **key_pem, unsigned char *fingerprint) {
    int step = 1;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *certificate = X509_new();
    BIGNUM *serial = BN_new();
    BIO *certificate_bio = BIO_new(BIO_s_mem());
    BIO *key_bio = BIO_new(BIO_s_mem());
    X509_EXTENSION *extension = NULL;
    *certificate_pem = NULL;
    *key_pem = NULL;
    if (!key || !certificate || !serial || !certificate_bio || !key_bio) goto done;
    step = 2;  // A random positive serial of 159 bits (RFC 5280: at most 20 octets).
    if (!BN_rand(serial, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)) goto done;
    if (!BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate))) goto done;
    step = 3;
    if (!X509_set_version(certificate, X509_VERSION_3)) goto done;
    if (!X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)) goto done;
    if (!X509_gmtime_adj(X509_getm_notAfter(certificate), (long)days * 86400)) goto done;
    if (!X509_set_pubkey(certificate, key)) goto done;
    step = 4;
    X509_NAME *name = X509_get_subject_name(certificate);
    if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0))
        goto done;
    if (!X509_set_issuer_name(certificate, name)) goto done;
    step = 5;
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, certificate, certificate, NULL, NULL, 0);
    const struct { int nid; const char *value; } extensions[] = {
        {NID_subject_alt_name, alt_names},
        {NID_basic_constraints, "critical,CA:FALSE"},
        {NID_key_usage, "critical,digitalSignature"},
        {NID_ext_key_usage, "serverAuth"},
        {NID_subject_key_identifier, "hash"},
    };
    for (size_t index = 0; index < sizeof extensions / sizeof extensions[0]; index++) {
        extension = X509V3_EXT_conf_nid(NULL, &context, extensions[index].nid, extensions[index].value);
        if (!extension || !X509_add_ext(certificate, extension, -1)) goto done;
        X509_EXTENSION_free(extension);
        extension = NULL;
    }
    step = 6;
    if (!X509_sign(certificate, key, EVP_sha256())) goto done;
    unsigned int length = 0;
    if (!X509_digest(certificate, EVP_sha256(), fingerprint, &length) || length != 32) goto done;
    step = 7;
    if (!PEM_write_bio_X509(certificate_bio, certificate)) goto done;
    if (!PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL)) goto done;
    *certificate_pem = ss_bio_text(certificate_bio);
    *key_pem = ss_bio_text(key_bio);
    if (!*certificate_pem || !*key_pem) {
        free(*certificate_pem);
        free(*key_pem);
        *certificate_pem = NULL;
        *key_pem = NULL;
        goto done;
    }
    step = 0;
done:
    X509_EXTENSION_free(extension);
    BIO_free(key_bio);
    BIO_free(certificate_bio);
    BN_free(serial);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return step;
}

// The first certificate in a PEM text (the caller frees it), or NULL.
static inline X509 *ss_read_certificate(const char *pem) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    X509 *certificate = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    return certificate;
}

// Whether the PEM key text is the private key of the PEM certificate text: 1 when it is.
static inline int ss_key_matches_certificate(const char *certificate_pem, const char *key_pem) {
    X509 *certificate = ss_read_certificate(certificate_pem);
    BIO *key_bio = BIO_new_mem_buf(key_pem, -1);
    EVP_PKEY *key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, NULL) : NULL;
    int matches = certificate && key && X509_check_private_key(certificate, key) == 1;
    EVP_PKEY_free(key);
    BIO_free(key_bio);
    X509_free(certificate);
    return matches;
}

// The SHA-256 of the first certificate in a PEM text, as browsers show it; 0 on success.
static inline int ss_certificate_fingerprint(const char *pem, unsigned char *fingerprint) {
    X509 *certificate = ss_read_certificate(pem);
    unsigned int length = 0;
    int failed = !certificate || !X509_digest(certificate, EVP_sha256(), fingerprint, &length) || length != 32;
    X509_free(certificate);
    return failed;
}

// One piece of a sealed backup with ChaCha20-Poly1305 (RFC 8439): `length` bytes of `input` with the
// 32-byte `key`, the 12-byte `nonce` and `aad_length` bytes of `aad`, into `output` (as long as
// `input`) and the 16-byte `tag`. `open` 0 seals; 1 opens, checking `tag`. Returns 1 when done (and, on
// opening, the tag matched), 0 otherwise.
static inline int ss_chacha_poly(int open, const unsigned char *key, const unsigned char *nonce,
                                 const unsigned char *aad, int aad_length, const unsigned char *input, int length,
                                 unsigned char *output, unsigned char *tag) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, done = 0;
    if (!context) return 0;
    if (EVP_CipherInit_ex(context, EVP_chacha20_poly1305(), NULL, NULL, NULL, open ? 0 : 1) != 1) goto end;
    if (EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1) goto end;
    if (EVP_CipherInit_ex(context, NULL, NULL, key, nonce, -1) != 1) goto end;
    if (open && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) goto end;
    if (aad_length > 0 && EVP_CipherUpdate(context, NULL, &written, aad, aad_length) != 1) goto end;
    if (length > 0 && EVP_CipherUpdate(context, output, &written, input, length) != 1) goto end;
    if (EVP_CipherFinal_ex(context, output + (length > 0 ? written : 0), &written) != 1) goto end;
    if (!open && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) goto end;
    done = 1;
end:
    EVP_CIPHER_CTX_free(context);
    return done;
}
