#!/usr/bin/env bash
# Makes the X.509 certificates of the TLS tests (tests/tls.cpp) and of
# bench_two_party --tls: a test CA with alice, bob and carol under it, and
# mallory under a rogue CA, each with the name <name>.tandem.test. EC P-256,
# valid for 100 years. The CAs' keys are thrown away. Run it again only to
# replace them all: the committed files are what the tests use.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
days=36500

make_ca() {  # make_ca NAME: $tmp/NAME.key, NAME.pem
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$days" \
    -subj "/CN=$1" -keyout "$tmp/$1.key" -out "$1.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
}
make_leaf() {  # make_leaf NAME CA: NAME.key, NAME.pem signed by CA
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1.tandem.test" \
    -keyout "$1.key" -out "$tmp/$1.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:%s.tandem.test\nextendedKeyUsage=serverAuth,clientAuth\n' "$1" \
    > "$tmp/$1.ext"
  openssl x509 -req -in "$tmp/$1.csr" -CA "$2.pem" -CAkey "$tmp/$2.key" -CAcreateserial -days "$days" \
    -extfile "$tmp/$1.ext" -out "$1.pem" 2>/dev/null
}

make_ca tandem-test-ca
make_ca rogue-ca
for name in alice bob carol; do make_leaf "$name" tandem-test-ca; done
# mallory calls itself alice, under a CA nobody trusts
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=alice.tandem.test" \
  -keyout mallory.key -out "$tmp/mallory.csr" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:alice.tandem.test\nextendedKeyUsage=serverAuth,clientAuth\n' \
  > "$tmp/mallory.ext"
openssl x509 -req -in "$tmp/mallory.csr" -CA rogue-ca.pem -CAkey "$tmp/rogue-ca.key" -CAcreateserial \
  -days "$days" -extfile "$tmp/mallory.ext" -out mallory.pem 2>/dev/null
rm -f ./*.srl
