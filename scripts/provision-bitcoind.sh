#!/usr/bin/env bash
# Provision a real bitcoind for the integration tests, at pinned versions, and cache it between runs.
#
# Debian bookworm has no bitcoind, so this fetches bitcoin-knots (a bitcoind-compatible node) from Debian's archive
# plus the shared libraries it needs, each at the exact version pinned below, checks every .deb against its pinned
# SHA-256 (a mismatch or a missing file stops it), unpacks them into a private folder and writes wrappers that run
# the binaries through the unpacked dynamic loader. Nothing is installed system-wide and the system's apt
# configuration is never touched.
#
# Usage: scripts/provision-bitcoind.sh [--prefer-system] [--force]
#        scripts/provision-bitcoind.sh --print-pins [SUITE]
#   --prefer-system  use a working `bitcoind` from PATH if there is one
#                    (or TOKEN_SERVICE_BITCOIND_PREFER_SYSTEM=1)
#   --force          re-provision even if the cache looks fine
#   --print-pins     resolve bitcoin-knots and its libraries in Debian SUITE (default: forky, i.e. testing) now,
#                    through apt and the suite's signed index, and print the PINS lines to paste below: how the
#                    pins are updated
#
# Environment:
#   TOKEN_SERVICE_BITCOIND_CACHE   cache dir (default ~/.cache/hardhat-token-service/bitcoind)
#   TOKEN_SERVICE_BITCOIND_MIRROR  Debian mirror URL (default: taken from the system's apt sources)
#
# The last line on stdout is the absolute path of a working bitcoind; a
# bitcoin-cli wrapper sits beside it. Progress goes to stderr.
set -euo pipefail

PACKAGE=bitcoin-knots
# The package and the libraries it needs, amd64, as `--print-pins forky` printed them on 2026-11-25: name, version,
# path in the archive, SHA-256 of the .deb. bitcoin-knots is in Debian testing (forky) and unstable only, not in a
# stable release; the archive keeps a file while a suite lists it, so once testing moves on, either run --print-pins
# and replace these lines, or point TOKEN_SERVICE_BITCOIND_MIRROR at a snapshot of the archive that still has them
# (http://snapshot.debian.org/archive/debian/<date>, same paths).
PINS=(
  "bitcoin-knots 29.4.knots20260508.2-1 pool/main/b/bitcoin-knots/bitcoin-knots_29.4.knots20260508.2-1_amd64.deb a74135bb3ed5dca86ac0c2381e7697a94b0c7735c07f0ce5bb72147f750452cc"
  "libc6 2.43-7 pool/main/g/glibc/libc6_2.43-7_amd64.deb 5c71715c51103beb4fbba9fe9f8dff604af6610dfa71c70bff342f54a7860803"
  "libevent-core-2.1-7t64 2.1.13-stable-1 pool/main/libe/libevent/libevent-core-2.1-7t64_2.1.13-stable-1_amd64.deb 544ca760ced0fba6c4c24f8078726031a04e8b7d9890f576ea9cd724cdbb8ee1"
  "libevent-extra-2.1-7t64 2.1.13-stable-1 pool/main/libe/libevent/libevent-extra-2.1-7t64_2.1.13-stable-1_amd64.deb 2a37729497eb7fc3861041afd510cdef02b6431ca4daffa221d356290c82c0cd"
  "libevent-pthreads-2.1-7t64 2.1.13-stable-1 pool/main/libe/libevent/libevent-pthreads-2.1-7t64_2.1.13-stable-1_amd64.deb 3f51f4215f367f212fdcf0ea2fbd8ff941b72a329190f5f461cb9409e298f2dc"
  "libgcc-s1 16.2.0-3 pool/main/g/gcc-16/libgcc-s1_16.2.0-3_amd64.deb e716dc8baad27e884c45ff83a76955047a7a9e33a80e94f9459ee996ebb800b0"
  "libsqlite3-0 3.53.4-2 pool/main/s/sqlite3/libsqlite3-0_3.53.4-2_amd64.deb bbf13c9326764d05e37e6590debdaa6f33af6bd822e3ca1204789d9d1dc23b11"
  "libstdc++6 16.2.0-3 pool/main/g/gcc-16/libstdc++6_16.2.0-3_amd64.deb 7c9e1a89e6c0b9202699957b469c06d0b86f5c97e86c1ff912b6502ddd8793b6"
  "libzmq5 4.3.5-1+b8 pool/main/z/zeromq3/libzmq5_4.3.5-1+b8_amd64.deb 12165944843fa7021b8f21b9ac3e3b2eba053d320a7c44655d98052ccdddb988"
  "libbsd0 0.12.2-3 pool/main/libb/libbsd/libbsd0_0.12.2-3_amd64.deb 0383e47d704a5e58080606cbcafd2f2aa725702767ccf8b877fb224d04ff38c5"
  "libc-gconv-modules-extra 2.43-7 pool/main/g/glibc/libc-gconv-modules-extra_2.43-7_amd64.deb 8abae40b5e2bfca58fbc838329b48f525c98463e930b8d3ed075d0c9e960a57a"
  "libgssapi-krb5-2 1.22.1-3 pool/main/k/krb5/libgssapi-krb5-2_1.22.1-3_amd64.deb 8849ff8bdfabbc1e8d1664eb209852023b1eaba1889ffd821459b7c57604c777"
  "libnorm1t64 1.5.9+dfsg-4+b1 pool/main/n/norm/libnorm1t64_1.5.9+dfsg-4+b1_amd64.deb ccdf1f362d0ef4ef373013fc161e640e559987bfe9d02b842fe4db6b3c4418ed"
  "libpgm-5.3-0t64 5.3.128~dfsg-3 pool/main/libp/libpgm/libpgm-5.3-0t64_5.3.128~dfsg-3_amd64.deb 0e12512e70de27ff039cce571162f41b8602c40c442b44bf992051f7aba1c54d"
  "libsodium26 1.0.22-2 pool/main/libs/libsodium/libsodium26_1.0.22-2_amd64.deb 18d593b1aaab48f126bd3636f009fc5294f948c4960c171b7e73eab9f814f198"
  "libcom-err2 1.47.4-1+b2 pool/main/e/e2fsprogs/libcom-err2_1.47.4-1+b2_amd64.deb e75c8f6b8953ea4d2f452353120f22a3918aa824c3d05a7efe1e7b7a9057706c"
  "libk5crypto3 1.22.1-3 pool/main/k/krb5/libk5crypto3_1.22.1-3_amd64.deb 6567c39be649ff018ccb356174886c7358e1a6888e6d13e8a7e001c76c78a20c"
  "libkrb5-3 1.22.1-3 pool/main/k/krb5/libkrb5-3_1.22.1-3_amd64.deb 945966e0aeae286e8d79ab85e425340348024970587027acad3d3582471f1eef"
  "libkrb5support0 1.22.1-3 pool/main/k/krb5/libkrb5support0_1.22.1-3_amd64.deb e7e2d65fa4f016fdf7d982ddd5b9c2e5ecdf2c33f41f1e4ab20de7e59aaaaacf"
  "libmd0 1.3.0-1 pool/main/libm/libmd/libmd0_1.3.0-1_amd64.deb b93615e08319799bedd98a68643d607b06a7713365f829fb3cae131f8a3b81b1"
  "libkeyutils1 1.6.3-6+b2 pool/main/k/keyutils/libkeyutils1_1.6.3-6+b2_amd64.deb 0a71e3b62a39df17508fad4f6150459fd0f0dc4a0189b9eafbda2a74dcea1853"
  "libssl3t64 3.6.5-1 pool/main/o/openssl/libssl3t64_3.6.5-1_amd64.deb 0a0ec84fe860c5c93c74d53cbb071aea0793327a3761b483080e9d7b73c21b37"
  "libzstd1 1.5.7+dfsg-4 pool/main/libz/libzstd/libzstd1_1.5.7+dfsg-4_amd64.deb 93e7930e4c25b918f1dd980cc1c6d4487654a248f5fa71eacb976ed7bbe954bd"
)

CACHE=${TOKEN_SERVICE_BITCOIND_CACHE:-$HOME/.cache/hardhat-token-service/bitcoind}
PREFER_SYSTEM=${TOKEN_SERVICE_BITCOIND_PREFER_SYSTEM:-0}
FORCE=0
PRINT_PINS=
# bitcoind last: its wrapper marks a complete cache.
TOOLS=(bitcoin-cli bitcoind)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

log() { echo "provision-bitcoind: $*" >&2; }
die() { echo "provision-bitcoind: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --prefer-system) PREFER_SYSTEM=1 ;;
    --force) FORCE=1 ;;
    --print-pins)
      PRINT_PINS=forky
      if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then PRINT_PINS=$2; shift; fi
      ;;
    -h | --help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
  shift
done

works() { "$1" -version >/dev/null 2>&1; }

if [ -z "$PRINT_PINS" ] && [ "$PREFER_SYSTEM" = 1 ] && sys=$(command -v bitcoind) && works "$sys"; then
  log "using bitcoind from PATH"
  echo "$(cd "$(dirname "$sys")" && pwd)/$(basename "$sys")"
  exit 0
fi

# One cache folder per pin set: other pins (another checkout) never replace what this one runs.
pin_version() {
  local pin name version rest
  for pin in "${PINS[@]}"; do
    read -r name version rest <<<"$pin"
    if [ "$name" = "$1" ]; then echo "$version"; fi
  done
}
VERSION=$(pin_version "$PACKAGE")
[ -n "$PRINT_PINS" ] || [ -n "$VERSION" ] || die "no pin for $PACKAGE"
PIN_SET=$(printf '%s\n' "${PINS[@]}" | sha256sum | cut -c1-12)
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
HERE="$CACHE/$PACKAGE-$VERSION-$PIN_SET"
BIN="$HERE/bin"

if [ -z "$PRINT_PINS" ] && [ "$FORCE" != 1 ] && [ -x "$BIN/bitcoind" ] && works "$BIN/bitcoind"; then
  echo "$BIN/bitcoind"
  exit 0
fi

[ "$(uname -m)" = x86_64 ] || die "only x86_64 is supported (this is $(uname -m))"
for tool in apt-get apt-cache apt-config dpkg dpkg-deb sha256sum flock; do
  command -v "$tool" >/dev/null || die "$tool not found: this script needs a Debian-based system"
done
APT_HELPER=/usr/lib/apt/apt-helper
[ -x "$APT_HELPER" ] || die "$APT_HELPER not found (it comes with apt)"

exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "waiting for another provisioning run to finish ($CACHE/.lock)"
  flock -w 900 9 || die "timed out waiting for the lock on $CACHE/.lock"
fi
if [ -z "$PRINT_PINS" ] && [ "$FORCE" != 1 ] && [ -x "$BIN/bitcoind" ] && works "$BIN/bitcoind"; then
  echo "$BIN/bitcoind"
  exit 0
fi

# First Debian archive URI (path ending in /debian) in the system's apt sources.
find_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk '$1 == "deb" { sub(/\[[^]]*\]/, ""); print $2 }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
  done
} 2>/dev/null
MIRROR=${TOKEN_SERVICE_BITCOIND_MIRROR:-$(find_mirror | grep -E '^https?://[^ ]*/debian/?$' | head -n1 || true)}
[ -n "$MIRROR" ] || die "no Debian mirror found in /etc/apt/sources*; set TOKEN_SERVICE_BITCOIND_MIRROR"
MIRROR=${MIRROR%/}

STAGE=$(mktemp -d "$CACHE/.stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# apt with a private configuration: the system's apt.conf(.d) may hold hooks (e.g. cache cleaners) that would act on
# the system's apt dirs. Only its proxy settings are carried over.
APT_DIR="$STAGE/apt"
mkdir -p "$APT_DIR/etc/apt.conf.d" "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial"
: >"$APT_DIR/state/status"
APT_OPTS=(
  -o "Dir::Etc::Main=/dev/null"
  -o "Dir::Etc::Parts=$APT_DIR/etc/apt.conf.d"
  -o "Dir::Etc::SourceList=$APT_DIR/etc/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::Etc::Preferences=/dev/null"
  -o "Dir::Etc::PreferencesParts=/dev/null"
  -o "Dir::State=$APT_DIR/state"
  -o "Dir::State::status=$APT_DIR/state/status"
  -o "Dir::Cache=$APT_DIR/cache"
  -o "APT::Architecture=amd64"
  -o "APT::Architectures::=amd64"
  -o "Acquire::Languages=none"
  -o "Acquire::Retries=3"
  # A snapshot mirror's Release is past its Valid-Until.
  -o "Acquire::Check-Valid-Until=false"
  -q
)
for key in Acquire::http::Proxy Acquire::https::Proxy; do
  value=$(apt-config dump "$key" 2>/dev/null | awk -v k="$key" '$1 == k { gsub(/[";]/, "", $2); print $2 }')
  [ -n "$value" ] && APT_OPTS+=(-o "$key=$value")
done
# As root, apt would otherwise download as _apt, which cannot write to $STAGE.
[ "$(id -u)" = 0 ] && APT_OPTS+=(-o "APT::Sandbox::User=root")

if [ -n "$PRINT_PINS" ]; then
  [ -r "$KEYRING" ] || die "$KEYRING is missing (apt-get install debian-archive-keyring)"
  echo "deb [signed-by=$KEYRING] $MIRROR $PRINT_PINS main" >"$APT_DIR/etc/sources.list"
  log "fetching the $PRINT_PINS package index from $MIRROR"
  apt-get "${APT_OPTS[@]}" update >&2 || die "apt-get update against $MIRROR $PRINT_PINS failed"

  # Hard dependencies of the given packages: the first installable alternative of each, library packages only
  # (debconf, systemd, ... are not needed to run it).
  lib_deps() {
    apt-cache "${APT_OPTS[@]}" depends --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "$@" |
      awk '/^ +\|?(Pre)?Depends: / {
        alt = ($1 ~ /^\|/); name = $2
        if (!cont) taken = 0
        if (!taken && name !~ /^</) { print name; taken = 1 }
        cont = alt
      }' | sed 's/:any$//' | grep -E '^lib' | sort -u || true
  }

  apt-cache "${APT_OPTS[@]}" show "$PACKAGE" >/dev/null 2>&1 || die "$PACKAGE is not in $MIRROR $PRINT_PINS"
  packages=("$PACKAGE")
  frontier=("$PACKAGE")
  declare -A seen=(["$PACKAGE"]=1)
  while [ ${#frontier[@]} -gt 0 ]; do
    mapfile -t deps < <(lib_deps "${frontier[@]}")
    frontier=()
    for dep in "${deps[@]}"; do
      [ -n "${seen[$dep]:-}" ] && continue
      seen[$dep]=1
      packages+=("$dep")
      frontier+=("$dep")
    done
  done
  # The candidate of each (one suite, so one version), from the signed index.
  for name in "${packages[@]}"; do
    apt-cache "${APT_OPTS[@]}" show --no-all-versions "$name" |
      awk -v name="$name" '$1 == "Version:" { v = $2 } $1 == "Filename:" { f = $2 } $1 == "SHA256:" { s = $2 }
        END { if (v == "" || f == "" || s == "") exit 1; printf "  \"%s %s %s %s\"\n", name, v, f, s }' ||
      die "no version, file or SHA256 for $name in $PRINT_PINS"
  done
  exit 0
fi

log "downloading $PACKAGE $VERSION and its libraries (${#PINS[@]} packages) from $MIRROR"
mkdir -p "$STAGE/debs"
for pin in "${PINS[@]}"; do
  read -r name version file sha256 <<<"$pin"
  deb="$STAGE/debs/$(basename "$file")"
  "$APT_HELPER" "${APT_OPTS[@]}" download-file "$MIRROR/$file" "$deb" >&2 ||
    die "could not download $name $version ($MIRROR/$file): if the archive no longer has it, update the pins (--print-pins) or set TOKEN_SERVICE_BITCOIND_MIRROR to a snapshot that has it"
  actual=$(sha256sum "$deb" | cut -d' ' -f1)
  [ "$actual" = "$sha256" ] || die "SHA-256 mismatch for $name $version ($file): expected $sha256, got $actual"
  [ "$(dpkg-deb -f "$deb" Package)" = "$name" ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
    die "$file is not $name $version"
done

ROOT="$STAGE/root"
for deb in "$STAGE"/debs/*.deb; do
  dpkg -x "$deb" "$ROOT" || die "could not unpack $deb"
done
[ -x "$ROOT/usr/bin/bitcoind" ] || die "$PACKAGE did not contain usr/bin/bitcoind"
[ -e "$ROOT/usr/lib64/ld-linux-x86-64.so.2" ] || die "libc6 did not contain usr/lib64/ld-linux-x86-64.so.2"

# Swap in the new tree; the wrappers embed its final absolute path.
FINAL="$HERE/root"
rm -rf "$BIN" "$FINAL"
mkdir -p "$HERE"
mv "$ROOT" "$FINAL"
mkdir -p "$BIN"
for tool in "${TOOLS[@]}"; do
  [ -x "$FINAL/usr/bin/$tool" ] || continue
  cat >"$BIN/$tool.tmp" <<EOF
#!/bin/sh
# $tool from Debian's $PACKAGE $VERSION (pinned, SHA-256 checked), written by scripts/provision-bitcoind.sh.
# Runs through its own glibc so it works on an older Debian.
exec "$FINAL/usr/lib64/ld-linux-x86-64.so.2" --library-path "$FINAL/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu" "$FINAL/usr/bin/$tool" "\$@"
EOF
  chmod +x "$BIN/$tool.tmp"
  mv "$BIN/$tool.tmp" "$BIN/$tool"
done

if ! out=$("$BIN/bitcoind" -version 2>&1); then
  rm -rf "$BIN"
  die "the provisioned bitcoind does not run: $out"
fi
log "provisioned $(echo "$out" | head -n1) ($PACKAGE $VERSION) in $HERE"
echo "$BIN/bitcoind"
