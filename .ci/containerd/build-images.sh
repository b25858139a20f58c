#!/usr/bin/env bash
# Builds kubelet-ts's two test images offline, as OCI archives for `ctr images import`:
#   $OUT/pause.tar    -> $PAUSE_REF    (the sandbox image: sleeps, exits 0 on SIGTERM/SIGINT)
#   $OUT/busybox.tar  -> $BUSYBOX_REF  (Cmd ["sh"], every busybox applet in /bin)
# The only input is Debian's busybox-static binary; both images share one layer. Output is
# reproducible byte for byte (sorted entries, mtime 0, owner 0, gzip -n, fixed `created`), so image
# ids are stable across runs and machines.
# Needs: bash, coreutils, GNU tar, gzip, busybox-static.
set -euo pipefail
umask 022

OUT=${1:?usage: build-images.sh OUTDIR}
PAUSE_REF=${PAUSE_REF:-kubelet-ts.local/pause:1.0}
BUSYBOX_REF=${BUSYBOX_REF:-kubelet-ts.local/busybox:1.0}
BUSYBOX_BIN=${BUSYBOX_BIN:-$(command -v busybox || echo /bin/busybox)}

if [ ! -x "$BUSYBOX_BIN" ]; then
  echo "build-images.sh: $BUSYBOX_BIN missing (apt-get install busybox-static)" >&2; exit 1
fi
# A dynamically linked busybox would not run inside an image that has no libc.
if ldd "$BUSYBOX_BIN" >/dev/null 2>&1; then
  echo "build-images.sh: $BUSYBOX_BIN is dynamically linked; busybox-static is required" >&2; exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kts-images.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

digest_of() { sha256sum "$1" | cut -d' ' -f1; }
size_of() { stat -c %s "$1"; }
deterministic_tar() { tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu "$@"; }

# 1. The root filesystem: busybox, one symlink per applet, the users the tests run as.
ROOTFS=$TMP/rootfs
mkdir -p "$ROOTFS"/bin "$ROOTFS"/etc "$ROOTFS"/dev "$ROOTFS"/proc "$ROOTFS"/sys "$ROOTFS"/run "$ROOTFS"/var \
  "$ROOTFS"/root "$ROOTFS"/tmp
chmod 1777 "$ROOTFS/tmp"
chmod 0700 "$ROOTFS/root"
install -m 0755 "$BUSYBOX_BIN" "$ROOTFS/bin/busybox"
"$BUSYBOX_BIN" --list | while read -r applet; do
  [ "$applet" = busybox ] || ln -s busybox "$ROOTFS/bin/$applet"
done
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$ROOTFS/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$ROOTFS/etc/group"
chmod 0644 "$ROOTFS/etc/passwd" "$ROOTFS/etc/group"

# 2. The shared layer: diff_id is the digest of the plain tar, the blob is its gzip.
deterministic_tar -C "$ROOTFS" -cf "$TMP/layer.tar" .
DIFF_ID=$(digest_of "$TMP/layer.tar")
gzip -n -9 -c "$TMP/layer.tar" > "$TMP/layer.tar.gz"
LAYER=$(digest_of "$TMP/layer.tar.gz")
LAYER_SIZE=$(size_of "$TMP/layer.tar.gz")

# 3. One OCI image layout per image, tarred. $3 is the JSON of the config's process fields.
make_image() {
  local name=$1 ref=$2 process_json=$3
  local dir=$TMP/$name blobs=$TMP/$name/blobs/sha256
  mkdir -p "$blobs"
  cp "$TMP/layer.tar.gz" "$blobs/$LAYER"

  local config=$TMP/$name.config.json
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",' > "$config"
  printf '"config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"WorkingDir":"/",%s},' "$process_json" >> "$config"
  printf '"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},' "$DIFF_ID" >> "$config"
  printf '"history":[{"created":"1970-01-01T00:00:00Z","created_by":"kubelet-ts .ci/containerd/build-images.sh"}]}' >> "$config"
  local config_digest config_size
  config_digest=$(digest_of "$config"); config_size=$(size_of "$config")
  cp "$config" "$blobs/$config_digest"

  local manifest=$TMP/$name.manifest.json
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",' > "$manifest"
  printf '"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},' "$config_digest" "$config_size" >> "$manifest"
  printf '"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' "$LAYER" "$LAYER_SIZE" >> "$manifest"
  local manifest_digest manifest_size
  manifest_digest=$(digest_of "$manifest"); manifest_size=$(size_of "$manifest")
  cp "$manifest" "$blobs/$manifest_digest"

  printf '{"imageLayoutVersion":"1.0.0"}' > "$dir/oci-layout"
  # ctr import names the image from io.containerd.image.name; ref.name carries the tag for other tools.
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest_digest" "$manifest_size" "$ref" "${ref##*:}" > "$dir/index.json"

  deterministic_tar -C "$dir" -cf "$OUT/$name.tar" oci-layout index.json blobs
  echo "$OUT/$name.tar $ref image-id sha256:$config_digest" >&2
}

# The pause process must be PID 1 with a TERM handler, or StopPodSandbox waits for SIGKILL.
make_image pause "$PAUSE_REF" \
  '"Entrypoint":["/bin/sh","-c","trap '"'"'exit 0'"'"' TERM INT; while :; do sleep 3600 & wait $!; done"]'
make_image busybox "$BUSYBOX_REF" '"Cmd":["sh"]'
