#!/usr/bin/env bash
# Starts a private containerd (Debian's package, CRI plugin) for kubelet-ts's CRI tests, offline.
#
#   eval "$(bash .ci/containerd/up.sh)"     # then run the tests; always finish with down.sh
#
# stdout carries only `export` lines for the caller to eval:
#   KUBELET_IT_CRI=unix://$LAB/containerd.sock, KUBELET_IT_CRI_LAB=$LAB, KUBELET_IT_CRI_CGROUP_PARENT,
#   KUBELET_IT_CRI_IMAGE, KUBELET_IT_CRI_PAUSE_IMAGE
# Everything else goes to stderr. Needs root (mounts, netns, cgroups) and no stdin.
# Everything lives in a per-run directory (LAB, default mktemp -d /tmp/kts-cri.XXXX) with its own
# socket, runc root, CNI bridge (BRIDGE, default kts0; POD_SUBNET, default 10.214.0.0/24) and cgroup
# parent (CGROUP_PARENT, default /kubelet-ts-ci), so it cannot collide with a developer's containerd,
# and a second containerd never shares a root. Two labs at once need a BRIDGE, POD_SUBNET and CNI_NETWORK
# (default kubelet-ts-ci: it names libcni's cache files, which down.sh removes) each; they are kept in
# $LAB/network.env for down.sh. PAUSE_REF (default kubelet-ts.local/pause:1.0) names the sandbox image
# it builds and configures, e.g. registry.k8s.io/pause:3.9 for the upstream e2e suite.
# REGISTRY_CONFIG_DIR (default unset: containerd's own registry defaults) is a hosts.toml directory
# (containerd's registry.config_path, one `<host:port>/hosts.toml` each, read at every pull) for tests
# that pull from a registry of their own, e.g. one whose CA they made; it is then exported as
# KUBELET_IT_CRI_REGISTRY_CONFIG.
# CONTAINERD_RELEASE=trixie (default bookworm: Debian 12's package, installed) runs Debian 13's
# containerd 1.7 instead, unpacked into a cache by trixie-containerd.sh, with CDI enabled on the spec
# directory $LAB/cdi, exported as KUBELET_IT_CRI_CDI_SPEC_DIR (1.6 drops the CRI's CDI devices), and
# on CDI_SPEC_DIRS (space-separated, say "/etc/cdi /var/run/cdi" where drivers write the host's) after it.
# Pitfalls it handles are in the CRI lab notes (shared/lab/cri/NOTES.md) §8 (copied into comments below).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB=${LAB:-$(mktemp -d /tmp/kts-cri.XXXX)}
SOCK=$LAB/containerd.sock
BRIDGE=${BRIDGE:-kts0}
POD_SUBNET=${POD_SUBNET:-10.214.0.0/24}
CGROUP_PARENT=${CGROUP_PARENT:-/kubelet-ts-ci}
CNI_NETWORK=${CNI_NETWORK:-kubelet-ts-ci}
PAUSE_REF=${PAUSE_REF:-kubelet-ts.local/pause:1.0}
REGISTRY_CONFIG_DIR=${REGISTRY_CONFIG_DIR:-}
CONTAINERD_RELEASE=${CONTAINERD_RELEASE:-bookworm}
BUSYBOX_REF=kubelet-ts.local/busybox:1.0
export DEBIAN_FRONTEND=noninteractive

log() { echo "up.sh: $*" >&2; }
started=$(date +%s.%N)

# 1. Packages. Always update first: the lists may be missing or stale on a fresh machine.
#    --no-install-recommends keeps criu & co out (9 packages instead of 17).
APT=(apt-get -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 -q)
"${APT[@]}" update >&2 </dev/null
"${APT[@]}" install -y --no-install-recommends containerd runc containernetworking-plugins busybox-static >&2 </dev/null
case "$CONTAINERD_RELEASE" in
  bookworm) BIN=$(dirname "$(command -v containerd)") ;;
  trixie) BIN=$(bash "$HERE/trixie-containerd.sh") ;;
  *) log "CONTAINERD_RELEASE=$CONTAINERD_RELEASE: bookworm or trixie"; exit 1 ;;
esac

# 2. The lab directory. A PID file means a containerd may already own this root: never start a
#    second one on it (it blocks on the bolt DB, or worse takes over the socket).
mkdir -p "$LAB"/{root,state,runc,opt,logs,images,cni/net.d,cni/ipam,cni/bin,cdi}
if [ -s "$LAB/containerd.pid" ] && kill -0 "$(cat "$LAB/containerd.pid")" 2>/dev/null; then
  log "containerd already running for $LAB (pid $(cat "$LAB/containerd.pid")); run down.sh first"; exit 1
fi
printf 'BRIDGE=%s\nCNI_NETWORK=%s\nCGROUP_PARENT=%s\n' "$BRIDGE" "$CNI_NETWORK" "$CGROUP_PARENT" > "$LAB/network.env"
# Whoever restarts this containerd runs the same binary, its shims found beside it first.
echo "$BIN" > "$LAB/containerd.bin"

# CNI: our bin_dir links Debian's plugins. containerd runs `loopback` from it itself, so link them all.
CNI_PLUGINS=$(dirname "$(dpkg -L containernetworking-plugins | grep '/bridge$' | head -n1)")
ln -sfn "$CNI_PLUGINS"/* "$LAB/cni/bin/"

# restrict_oom_score_adj: this VM's root lacks CAP_SYS_RESOURCE, so runc cannot lower a sandbox's
#   oom_score_adj to -998 and every RunPodSandbox fails with "can't get final child's PID from pipe".
# SystemdCgroup = false: no systemd here (cgroupfs driver).
# Root under $LAB: runc's default state dir is shared by every containerd on the machine.
# netns_mounts_under_state_dir: pod netns bind mounts stay under $LAB, where down.sh unmounts them.
cdi=""
if [ "$CONTAINERD_RELEASE" = trixie ]; then
  dirs="\"$LAB/cdi\""
  for d in ${CDI_SPEC_DIRS:-}; do dirs="$dirs, \"$d\""; done
  cdi="enable_cdi = true
    cdi_spec_dirs = [$dirs]"
fi
cat > "$LAB/config.toml" <<TOML
version = 2
root = "$LAB/root"
state = "$LAB/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[debug]
  level = "info"
[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = "$LAB/opt"
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$PAUSE_REF"
    disable_apparmor = true
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    systemd_cgroup = false
    $cdi
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
          Root = "$LAB/runc"
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "$LAB/cni/bin"
      conf_dir = "$LAB/cni/net.d"
      max_conf_num = 1
TOML
if [ -n "$REGISTRY_CONFIG_DIR" ]; then
  mkdir -p "$REGISTRY_CONFIG_DIR"
  printf '    [plugins."io.containerd.grpc.v1.cri".registry]\n      config_path = "%s"\n' "$REGISTRY_CONFIG_DIR" >> "$LAB/config.toml"
fi

# ipMasq false keeps iptables out of it; NetworkReady turns true once this file exists.
cat > "$LAB/cni/net.d/10-kubelet-ts.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "$CNI_NETWORK",
  "plugins": [
    { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$LAB/cni/ipam",
                "ranges": [[{ "subnet": "$POD_SUBNET" }]], "routes": [{ "dst": "0.0.0.0/0" }] } }
  ]
}
JSON

# 3. Images, built here from busybox-static: nothing is ever pulled (every PullImage fails offline).
PAUSE_REF=$PAUSE_REF BUSYBOX_REF=$BUSYBOX_REF bash "$HERE/build-images.sh" "$LAB/images"

# 4. containerd in its own session with stdio on a file: if it (or a shim) kept CI's pipes open,
#    the CI runner would wait for EOF forever.
rm -f "$SOCK" "$SOCK.ttrpc"
PATH=$BIN:$PATH setsid "$BIN/containerd" --config "$LAB/config.toml" </dev/null >>"$LAB/containerd.log" 2>&1 &
echo $! > "$LAB/containerd.pid"
PID=$(cat "$LAB/containerd.pid")

ctr_() { "$BIN/ctr" --address "$SOCK" "$@"; }
fail() { log "$*"; tail -n 20 "$LAB/containerd.log" >&2 || true; exit 1; }
ready=0
for _ in $(seq 1 300); do   # 30 s at most; it normally answers in ~0.1 s
  kill -0 "$PID" 2>/dev/null || fail "containerd (pid $PID) exited during start-up"
  if [ -S "$SOCK" ] && ctr_ version >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
[ "$ready" = 1 ] || fail "containerd socket $SOCK did not answer within 30 s"
# A socket that answers is not enough: the CRI plugin itself must have loaded.
ctr_ plugins ls | grep -Eq 'io\.containerd\.grpc\.v1 +cri +.* ok' || { ctr_ plugins ls >&2 || true; fail "CRI plugin is not ok"; }

# 5. Images into k8s.io, the CRI plugin's namespace (any other namespace is invisible to CRI).
ctr_ -n k8s.io images import "$LAB/images/pause.tar" >&2
ctr_ -n k8s.io images import "$LAB/images/busybox.tar" >&2

log "containerd $(ctr_ version 2>/dev/null | awk '/Version/ {print $2; exit}') ready at $SOCK (pid $PID) in $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
echo "export KUBELET_IT_CRI=unix://$SOCK"
echo "export KUBELET_IT_CRI_LAB=$LAB"
echo "export KUBELET_IT_CRI_CGROUP_PARENT=$CGROUP_PARENT"
echo "export KUBELET_IT_CRI_IMAGE=$BUSYBOX_REF"
echo "export KUBELET_IT_CRI_PAUSE_IMAGE=$PAUSE_REF"
if [ "$CONTAINERD_RELEASE" = trixie ]; then echo "export KUBELET_IT_CRI_CDI_SPEC_DIR=$LAB/cdi"; fi
if [ -n "$REGISTRY_CONFIG_DIR" ]; then echo "export KUBELET_IT_CRI_REGISTRY_CONFIG=$REGISTRY_CONFIG_DIR"; fi
