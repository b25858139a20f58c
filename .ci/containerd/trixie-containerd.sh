#!/usr/bin/env bash
# Prints the bin directory of Debian 13's containerd (1.7), unpacked, not installed, into a cache:
# Debian 12's containerd 1.6 drops the CRI's CDI devices, which DRA hands to the runtime, and 1.7
# runs on Debian 12 as it is. It is downloaded once through an apt configuration of its own (the
# machine's Debian mirror, suite trixie, the archive keyring); the machine's sources and packages
# stay as they are. Runs as root; CONTAINERD_TRIXIE_CACHE moves the cache.
set -euo pipefail
CACHE=${CONTAINERD_TRIXIE_CACHE:-/var/cache/kubelet-ts-containerd-trixie}
BIN=$CACHE/root/usr/bin
log() { echo "trixie-containerd.sh: $*" >&2; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # one download for labs started together
if [ ! -x "$BIN/containerd" ]; then
  mirror=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$mirror" ] || mirror=$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$mirror" ] || { log "no Debian mirror in the machine's apt sources"; exit 1; }
  apt_dir=$CACHE/apt
  rm -rf "$apt_dir"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/deb"
  cat > "$apt_dir/trixie.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  apt_opts=(-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$apt_dir" -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User=root)
  log "fetching Debian 13's containerd from $mirror into $CACHE"
  apt-get "${apt_opts[@]}" -q update >&2 </dev/null || { log "apt-get update (trixie) failed"; exit 1; }
  (cd "$apt_dir/deb" && apt-get "${apt_opts[@]}" -q download containerd >&2 </dev/null) || { log "cannot download containerd from trixie"; exit 1; }
  dpkg-deb -x "$(ls "$apt_dir"/deb/containerd_*.deb | tail -n1)" "$CACHE/root"
  rm -rf "$apt_dir"
fi
"$BIN/containerd" --version >/dev/null || { log "$BIN/containerd does not run"; exit 1; }
echo "$BIN"
