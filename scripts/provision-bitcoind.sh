#!/usr/bin/env bash
# Provision a real bitcoind for the integration tests and cache it between runs.
#
# Debian stable has no bitcoind, so this fetches Debian unstable's bitcoin-knots
# (a bitcoind-compatible node) plus the shared libraries it needs, unpacks them
# into a private folder and writes wrappers that run the binaries through the
# unpacked dynamic loader. Nothing is installed system-wide and the system's
# apt configuration is never touched: apt runs with its own private config.
#
# Usage: scripts/provision-bitcoind.sh [--prefer-system] [--force]
#   --prefer-system  use a working `bitcoind` from PATH if there is one
#                    (or TOKEN_SERVICE_BITCOIND_PREFER_SYSTEM=1)
#   --force          re-provision even if the cache looks fine
#
# Environment:
#   TOKEN_SERVICE_BITCOIND_CACHE   cache dir (default ~/.cache/hardhat-token-service/bitcoind)
#   TOKEN_SERVICE_BITCOIND_MIRROR  Debian mirror URL (default: taken from the system's apt sources)
#   TOKEN_SERVICE_BITCOIND_SUITE   Debian suite to fetch from (default: unstable)
#
# The last line on stdout is the absolute path of a working bitcoind; a
# bitcoin-cli wrapper sits beside it. Progress goes to stderr.
set -euo pipefail

CACHE=${TOKEN_SERVICE_BITCOIND_CACHE:-$HOME/.cache/hardhat-token-service/bitcoind}
SUITE=${TOKEN_SERVICE_BITCOIND_SUITE:-unstable}
PREFER_SYSTEM=${TOKEN_SERVICE_BITCOIND_PREFER_SYSTEM:-0}
FORCE=0
PACKAGE=bitcoin-knots
# bitcoind last: its wrapper marks a complete cache.
TOOLS=(bitcoin-cli bitcoind)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

log() { echo "provision-bitcoind: $*" >&2; }
die() { echo "provision-bitcoind: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --prefer-system) PREFER_SYSTEM=1 ;;
    --force) FORCE=1 ;;
    -h | --help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
  shift
done

works() { "$1" -version >/dev/null 2>&1; }

if [ "$PREFER_SYSTEM" = 1 ] && sys=$(command -v bitcoind) && works "$sys"; then
  log "using bitcoind from PATH"
  echo "$(cd "$(dirname "$sys")" && pwd)/$(basename "$sys")"
  exit 0
fi

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
BIN="$CACHE/bin"

exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "waiting for another provisioning run to finish ($CACHE/.lock)"
  flock -w 900 9 || die "timed out waiting for the lock on $CACHE/.lock"
fi

if [ "$FORCE" != 1 ] && [ -x "$BIN/bitcoind" ] && works "$BIN/bitcoind"; then
  echo "$BIN/bitcoind"
  exit 0
fi

[ "$(uname -m)" = x86_64 ] || die "only x86_64 is supported (this is $(uname -m))"
for tool in apt-get apt-cache apt-config dpkg; do
  command -v "$tool" >/dev/null || die "$tool not found: this script needs a Debian-based system"
done
[ -r "$KEYRING" ] || die "$KEYRING is missing (apt-get install debian-archive-keyring)"

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
APT_DIR="$STAGE/apt"
mkdir -p "$APT_DIR/etc/apt.conf.d" "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial" "$STAGE/debs"
: >"$APT_DIR/state/status"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$APT_DIR/etc/sources.list"

# Ignore the system's apt.conf(.d) too: it may hold hooks (e.g. cache cleaners)
# that would act on the system's apt dirs. Only its proxy settings are carried over.
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
  # unstable's Release may be past its Valid-Until on mirrors that are snapshots.
  -o "Acquire::Check-Valid-Until=false"
  -o "Acquire::Retries=3"
  -q
)
for key in Acquire::http::Proxy Acquire::https::Proxy; do
  value=$(apt-config dump "$key" 2>/dev/null | awk -v k="$key" '$1 == k { gsub(/[";]/, "", $2); print $2 }')
  [ -n "$value" ] && APT_OPTS+=(-o "$key=$value")
done
# apt-get download as root otherwise warns that _apt cannot write to $STAGE.
[ "$(id -u)" = 0 ] && APT_OPTS+=(-o "APT::Sandbox::User=root")

log "fetching the $SUITE package index from $MIRROR"
apt-get "${APT_OPTS[@]}" update >&2 || die "apt-get update against $MIRROR $SUITE failed"

# Hard dependencies of the given packages: the first installable alternative of
# each, library packages only (debconf, systemd, ... are not needed to run it).
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

apt-cache "${APT_OPTS[@]}" show "$PACKAGE" >/dev/null 2>&1 || die "$PACKAGE is not in $MIRROR $SUITE"
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
log "downloading ${packages[*]}"
(cd "$STAGE/debs" && apt-get "${APT_OPTS[@]}" download "${packages[@]}") >&2 || die "apt-get download failed"

ROOT="$STAGE/root"
for deb in "$STAGE"/debs/*.deb; do
  dpkg -x "$deb" "$ROOT" || die "could not unpack $deb"
done
[ -x "$ROOT/usr/bin/bitcoind" ] || die "$PACKAGE did not contain usr/bin/bitcoind"
[ -e "$ROOT/usr/lib64/ld-linux-x86-64.so.2" ] || die "libc6 did not contain usr/lib64/ld-linux-x86-64.so.2"
version=$(dpkg-deb -f "$STAGE"/debs/"${PACKAGE}"_*.deb Version)

# Swap in the new tree; the wrappers embed its final absolute path.
FINAL="$CACHE/root"
rm -rf "$BIN" "$FINAL"
mv "$ROOT" "$FINAL"
mkdir -p "$BIN"
for tool in "${TOOLS[@]}"; do
  [ -x "$FINAL/usr/bin/$tool" ] || continue
  cat >"$BIN/$tool.tmp" <<EOF
#!/bin/sh
# $tool from Debian $SUITE $PACKAGE $version, written by scripts/provision-bitcoind.sh.
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
log "provisioned $(echo "$out" | head -n1) ($PACKAGE $version) in $CACHE"
echo "$BIN/bitcoind"
