#!/usr/bin/env bash
# Tears down what up.sh started, leaving nothing: safe to run twice, safe after a crash.
#
#   bash .ci/containerd/down.sh [LAB]       # LAB defaults to $KUBELET_IT_CRI_LAB
#
# Removing pods through CRI (StopContainer → StopPodSandbox → RemovePodSandbox) is the test suite's
# job and comes first; this script then handles whatever is left, in the order that works:
# containerd by its PID → runc containers → shims naming our socket (by PID) → mounts, deepest
# first → the lab's bridge → its empty pod cgroups → the lab directory.
# It never kills by process name.
set -u

LAB=${1:-${KUBELET_IT_CRI_LAB:-}}
SHIM_SOCKET_DIR=/run/containerd/s   # containerd 1.6's compiled-in place for shim sockets

log() { echo "down.sh: $*" >&2; }
# Guard the rm -rf below: only a directory up.sh made (its default name, or one holding its config).
case "$LAB" in
  /tmp/kts-cri.*) ;;
  /?*) [ -f "$LAB/config.toml" ] || { log "refusing LAB='$LAB': no config.toml from up.sh in it"; exit 2; } ;;
  *) log "refusing LAB='$LAB': give the absolute directory up.sh printed"; exit 2 ;;
esac
SOCK=$LAB/containerd.sock
# The bridge, CNI network and cgroup parent up.sh was given (network.env), else its defaults.
BRIDGE=kts0
CNI_NETWORK=kubelet-ts-ci
CGROUP_PARENT=/kubelet-ts-ci
# shellcheck disable=SC1091
[ -s "$LAB/network.env" ] && . "$LAB/network.env"
CGROUP_PARENT=${CGROUP_PARENT#/}

# 1. containerd, by its recorded PID: SIGTERM, then SIGKILL after 10 s. The comm check guards
#    against a recycled PID. Pods survive this (shims are re-parented), hence the steps after.
if [ -s "$LAB/containerd.pid" ]; then
  pid=$(cat "$LAB/containerd.pid")
  if kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = containerd ]; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { log "containerd $pid ignored SIGTERM; SIGKILL"; kill -KILL "$pid" 2>/dev/null; }
  fi
  rm -f "$LAB/containerd.pid"
fi

# 2. Containers still running, through runc's state under our own root.
if [ -d "$LAB/runc/k8s.io" ] && command -v runc >/dev/null; then
  for id in $(runc --root "$LAB/runc/k8s.io" list -q 2>/dev/null); do
    runc --root "$LAB/runc/k8s.io" kill "$id" KILL 2>/dev/null
    runc --root "$LAB/runc/k8s.io" delete --force "$id" 2>/dev/null
  done
fi

# Sandbox/task ids of this lab, for the files containerd and CNI keep outside $LAB (steps 3 and 5).
ids=""
if [ -d "$LAB/state/io.containerd.runtime.v2.task/k8s.io" ]; then
  ids=$(ls "$LAB/state/io.containerd.runtime.v2.task/k8s.io")
fi

# 3. Shims whose command line names our socket, each by PID. A shim's own socket lives outside
#    $LAB, at $SHIM_SOCKET_DIR/sha256(<containerd address>/<namespace>/<id>); remove ours too.
for proc in /proc/[0-9]*; do
  cmdline=$(tr '\0' ' ' 2>/dev/null < "$proc/cmdline") || continue
  case "$cmdline" in
    *containerd-shim*"-address $SOCK "*)
      ns=$(echo "$cmdline" | sed -n 's/.*-namespace \([^ ]*\).*/\1/p')
      id=$(echo "$cmdline" | sed -n 's/.*-id \([^ ]*\).*/\1/p')
      kill -KILL "${proc#/proc/}" 2>/dev/null
      ids="$ids $id"
      if [ -n "$ns" ] && [ -n "$id" ]; then
        rm -f "$SHIM_SOCKET_DIR/$(printf '%s' "$SOCK/$ns/$id" | sha256sum | cut -d' ' -f1)"
      fi
      ;;
  esac
done
sleep 0.3

# 4. Mounts under $LAB (overlay rootfs, sandbox /dev/shm, netns bind mounts), deepest first,
#    or rm -rf fails with EBUSY.
for _ in 1 2 3; do
  mounts=$(awk -v p="$LAB/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r)
  [ -z "$mounts" ] && break
  echo "$mounts" | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
done

# 5. The CNI bridge outlives its pods (the veths go with their netns). libcni caches each
#    attachment's result under /var/lib/cni/results (not configurable in containerd 1.6); a pod
#    removed through CRI drops its entries, a leaked one does not.
if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE" 2>/dev/null; fi
CNI_RESULTS=/var/lib/cni/results
rm -f "$CNI_RESULTS"/"$CNI_NETWORK"-* 2>/dev/null
for id in $ids; do rm -f "$CNI_RESULTS/cni-loopback-$id-lo" 2>/dev/null; done
# Directories containerd/CNI created outside $LAB go too, but only when empty (never another user's).
rmdir "$CNI_RESULTS" /var/lib/cni "$SHIM_SOCKET_DIR" /run/containerd 2>/dev/null

# 6. Pod-level cgroups: runc removes only the container's leaf, never /kubelet-ts-ci/pod<uid>.
for c in /sys/fs/cgroup/*/"$CGROUP_PARENT"; do
  [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
done

# 7. The lab itself.
rm -rf "$LAB" 2>/dev/null

left_mounts=$(awk -v p="$LAB/" 'index($2, p) == 1' /proc/mounts | wc -l)
left_cgroups=$(ls -d /sys/fs/cgroup/*/"$CGROUP_PARENT" 2>/dev/null | wc -l)
bridge=$(ip link show "$BRIDGE" >/dev/null 2>&1 && echo present || echo gone)
left_shims=0
for proc in /proc/[0-9]*; do
  case "$(tr '\0' ' ' 2>/dev/null < "$proc/cmdline")" in *containerd-shim*"-address $SOCK "*) left_shims=$((left_shims + 1)) ;; esac
done
log "done: mounts left $left_mounts, shims left $left_shims, cgroup dirs left $left_cgroups, bridge $bridge, lab $([ -e "$LAB" ] && echo present || echo gone)"
[ "$left_mounts" = 0 ] && [ "$left_shims" = 0 ] && [ "$left_cgroups" = 0 ] && [ "$bridge" = gone ] && [ ! -e "$LAB" ]
