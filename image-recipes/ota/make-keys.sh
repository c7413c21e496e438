#!/usr/bin/env bash
# A bundle-signing PKI for RAUC with openssl: a CA whose certificate is the device's keyring, and a
# signing key whose certificate that CA issued. The tests make a throwaway one at test time; an owner
# makes theirs once, on a machine they trust, and keeps it off the station and out of this repository
# (image-recipes/ota/README.md, "Keys").
#
#   image-recipes/ota/make-keys.sh DIR [--name NAME] [--days DAYS]
#
# DIR gets:
#   ca.key.pem        the CA's private key: signs signing certificates only; keep it offline
#   ca.cert.pem       the CA's certificate
#   keyring.pem       the same certificate, as the image installs it (/etc/rauc/keyring.pem)
#   signing.key.pem   the key build-bundle.sh signs bundles with
#   signing.cert.pem  its certificate: extendedKeyUsage codeSigning, as the system.conf's
#                     check-purpose=codesign requires (RAUC docs, advanced.rst "Certificate Key Usage
#                     Attributes")
# An existing DIR/ca.key.pem is reused (a new signing key under the same CA), so a device's keyring
# keeps trusting bundles signed after a signing key is replaced.
set -euo pipefail
dir=${1:?usage: make-keys.sh DIR [--name NAME] [--days DAYS]}
shift
name="SnapStation"
days=3650
while (($#)); do
    case $1 in
        --name) name=$2; shift 2 ;;
        --days) days=$2; shift 2 ;;
        *) echo "make-keys.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$dir"
chmod 0700 "$dir"
umask 077
config=$(mktemp)
trap 'rm -f "$config" "$dir/signing.csr.pem"' EXIT
cat > "$config" <<CONF
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = $name
[ v3_ca ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ v3_signing ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
CONF

if [[ ! -f "$dir/ca.key.pem" ]]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
        -keyout "$dir/ca.key.pem" -out "$dir/ca.cert.pem" -days "$days" \
        -subj "/CN=$name update CA" -config "$config" -extensions v3_ca 2>/dev/null
fi
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
    -keyout "$dir/signing.key.pem" -out "$dir/signing.csr.pem" \
    -subj "/CN=$name bundle signing $(date -u +%Y-%m-%d)" -config "$config" 2>/dev/null
openssl x509 -req -in "$dir/signing.csr.pem" -CA "$dir/ca.cert.pem" -CAkey "$dir/ca.key.pem" \
    -CAcreateserial -CAserial "$dir/ca.serial" -sha256 -days "$days" \
    -extfile "$config" -extensions v3_signing -out "$dir/signing.cert.pem" 2>/dev/null
cp "$dir/ca.cert.pem" "$dir/keyring.pem"
chmod 0644 "$dir/ca.cert.pem" "$dir/keyring.pem" "$dir/signing.cert.pem"
openssl verify -CAfile "$dir/keyring.pem" -purpose any "$dir/signing.cert.pem" >/dev/null
echo "$dir"
