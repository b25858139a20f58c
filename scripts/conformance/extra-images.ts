/**
 * Images the lab's images.sh does not make, built here offline from what Debian installs, so the specs
 * that need them test the kubelet rather than the lab:
 * - agnhost:2.43 with curl and bash: the lab's agnhost plus one layer holding Debian's curl and bash
 *   and the shared libraries they load (the networking and exec-hook specs run curl inside agnhost,
 *   the probe specs of a terminating pod run their script with /bin/bash, as the upstream image,
 *   on Alpine with bash installed, has it). A netcat with -u
 *   would not help the UDP spec that lacks one: the image's busybox sh runs its own nc applet first;
 * - nonewprivs:1.3: a setuid-root program that prints its effective uid, compiled here statically;
 * - etcd:3.5.6-0: Debian's etcd (3.4) at /usr/local/bin/etcd with its libraries, the gRPC health
 *   server the gRPC probe specs ask;
 * - nonroot:1.4: the lab's busybox with `USER 1234` and nothing else, as the upstream Dockerfile
 *   (test/images/nonroot) has it on its base: the runAsNonRoot spec runs `id -u` and expects 1234;
 * - hostpathplugin (the tags the e2e binary lists), when KUBE_LAB_BIN has a hostpathplugin: the lab's
 *   busybox with it at /hostpathplugin. The DRA specs run their test driver inside e2e.test and
 *   reach the node through it, in its proxy mode, in a pod with a shell.
 * Layers are reproducible: sorted entries, mtime 0, owner root, gzip without a name or time. The
 * Debian packages they come from are installed first when missing, as .ci/containerd/up.sh does its own.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const EXTRA_IMAGES = {
  agnhost: 'registry.k8s.io/e2e-test-images/agnhost:2.43',
  nonewprivs: 'registry.k8s.io/e2e-test-images/nonewprivs:1.3',
  etcd: 'registry.k8s.io/etcd:3.5.6-0',
  nonroot: 'registry.k8s.io/e2e-test-images/nonroot:1.4',
} as const;

/** The hostpathplugin tags the v1.35 e2e binary lists (`--list-images`); the DRA specs take the highest. */
export const HOSTPATHPLUGIN_IMAGES = ['registry.k8s.io/sig-storage/hostpathplugin:v1.17.1', 'registry.k8s.io/sig-storage/hostpathplugin:v1.15.0'] as const;

/** The user the upstream nonroot image's Dockerfile names. */
export const NONROOT_USER = '1234';

interface Descriptor { mediaType: string; digest: string; size: number; annotations?: Record<string, string> }
interface ImageConfig {
  config: Record<string, unknown>;
  rootfs: { type: string; diff_ids: string[] };
  history?: { created: string; created_by: string }[];
  [key: string]: unknown;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const deterministicTar = (root: string, out: string, entries = ['.']) =>
  execFileSync('tar', ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '--format=gnu', '-C', root, '-cf', out, ...entries]);

/** The shared libraries `ldd` says a dynamically linked program loads (absolute paths). */
export function sharedLibraries(lddOutput: string): string[] {
  return [...new Set([...lddOutput.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!))];
}

/** Copies `program` to `to` under `root`, with every library it loads at the path it loads it from. */
function copyWithLibraries(root: string, program: string, to: string): void {
  const place = (from: string, at: string) => {
    mkdirSync(dirname(join(root, at)), { recursive: true });
    copyFileSync(realpathSync(from), join(root, at));
    chmodSync(join(root, at), statSync(realpathSync(from)).mode & 0o7777);
  };
  place(program, to);
  for (const lib of sharedLibraries(execFileSync('ldd', [program], { encoding: 'utf8' }))) place(lib, lib);
}

/** An empty image directory layout to write blobs into. */
class Layout {
  readonly blobs: string;
  constructor(readonly dir: string) {
    this.blobs = join(dir, 'blobs', 'sha256');
    mkdirSync(this.blobs, { recursive: true });
  }

  put(data: Buffer, mediaType: string): Descriptor {
    const digest = sha256(data);
    writeFileSync(join(this.blobs, digest), data);
    return { mediaType, digest: `sha256:${digest}`, size: data.length };
  }

  get(digest: string): Buffer {
    return readFileSync(join(this.blobs, digest.replace(/^sha256:/, '')));
  }
}

/**
 * Writes `out`, an OCI archive named `ref`: the layers of `base` (an OCI archive) if given, then
 * `root` as one more layer if given, with `process` (Entrypoint, Cmd, User …) over the base's config.
 */
export function buildImage(opts: { ref: string; root?: string; out: string; work: string; base?: string; process?: Record<string, unknown> }): void {
  const dir = mkdtempSync(join(opts.work, 'oci-'));
  try {
    const layout = new Layout(join(dir, 'image'));
    let layers: Descriptor[] = [];
    let config: ImageConfig = {
      architecture: 'amd64', os: 'linux', created: '1970-01-01T00:00:00Z',
      config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [] }, history: [],
    };
    if (opts.base) {
      execFileSync('tar', ['-C', layout.dir, '-xf', opts.base]);
      const index = JSON.parse(readFileSync(join(layout.dir, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
      const manifest = JSON.parse(layout.get(index.manifests[0]!.digest).toString()) as { config: Descriptor; layers: Descriptor[] };
      layers = manifest.layers;
      config = JSON.parse(layout.get(manifest.config.digest).toString()) as ImageConfig;
    }
    const diffIds = [...config.rootfs.diff_ids];
    if (opts.root !== undefined) {
      const tar = join(dir, 'layer.tar');
      deterministicTar(opts.root, tar);
      diffIds.push(`sha256:${sha256(readFileSync(tar))}`);
      layers.push(layout.put(execFileSync('gzip', ['-n', '-6', '-c', tar], { maxBuffer: 1 << 30 }), 'application/vnd.oci.image.layer.v1.tar+gzip'));
    }
    config = {
      ...config, config: { ...config.config, ...opts.process },
      rootfs: { type: 'layers', diff_ids: diffIds },
      history: [...(config.history ?? []), { created: '1970-01-01T00:00:00Z', created_by: 'kubelet-ts scripts/conformance/extra-images.ts', ...(opts.root === undefined ? { empty_layer: true } : {}) }],
    };
    const configDesc = layout.put(Buffer.from(JSON.stringify(config)), 'application/vnd.oci.image.config.v1+json');
    const manifestDesc = layout.put(Buffer.from(JSON.stringify({
      schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: configDesc, layers,
    })), 'application/vnd.oci.image.manifest.v1+json');
    // ctr import names the image from io.containerd.image.name.
    const annotations = { 'io.containerd.image.name': opts.ref, 'org.opencontainers.image.ref.name': opts.ref.slice(opts.ref.lastIndexOf(':') + 1) };
    writeFileSync(join(layout.dir, 'index.json'), JSON.stringify({
      schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{ ...manifestDesc, platform: { architecture: 'amd64', os: 'linux' }, annotations }],
    }));
    writeFileSync(join(layout.dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    deterministicTar(layout.dir, opts.out, ['oci-layout', 'index.json', 'blobs']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Prints the effective uid: 0 when the setuid bit took effect, the caller's uid under no_new_privs.
const NNP_SOURCE = '#include <stdio.h>\n#include <unistd.h>\nint main(void) { printf("Effective uid: %d\\n", (int)geteuid()); return 0; }\n';

/** The programs the images are made of, and the Debian package of each. */
const TOOLS: Record<string, string> = { curl: 'curl', etcd: 'etcd-server', gcc: 'gcc' };

const which = (command: string) => {
  try {
    return execFileSync('sh', ['-c', 'command -v "$1"', 'which', command], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

function ensureTools(): void {
  const missing = Object.entries(TOOLS).filter(([command]) => which(command) === '').map(([, pkg]) => pkg);
  // A static binary needs libc.a beside gcc.
  if (!statSafe('/usr/lib/x86_64-linux-gnu/libc.a')) missing.push('libc6-dev');
  if (missing.length === 0) return;
  execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', '-q', 'install', '-y', '--no-install-recommends', ...missing], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

const statSafe = (path: string) => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Builds the images into `dir` (agnhost on the lab's `agnhostArchive`, nonroot and hostpathplugin on
 * its `busyboxArchive`, the latter only given a `hostPathPlugin` binary); the archives' paths.
 */
export function buildExtraImages(dir: string, agnhostArchive: string, busyboxArchive: string, hostPathPlugin?: string): string[] {
  const work = mkdtempSync(join(dir, '.extra-'));
  const root = (name: string) => {
    const r = join(work, name);
    mkdirSync(join(r, 'tmp'), { recursive: true });
    chmodSync(join(r, 'tmp'), 0o1777);
    return r;
  };
  try {
    ensureTools();
    const curl = root('curl');
    copyWithLibraries(curl, which('curl'), '/usr/bin/curl');
    copyWithLibraries(curl, which('bash'), '/bin/bash');
    const out = { agnhost: join(dir, 'extra-agnhost.tar'), nonewprivs: join(dir, 'extra-nonewprivs.tar'), etcd: join(dir, 'extra-etcd.tar'), nonroot: join(dir, 'extra-nonroot.tar') };
    buildImage({ ref: EXTRA_IMAGES.agnhost, root: curl, out: out.agnhost, work, base: agnhostArchive });

    const nnp = root('nonewprivs');
    mkdirSync(join(nnp, 'usr/local/bin'), { recursive: true });
    writeFileSync(join(work, 'nnp.c'), NNP_SOURCE);
    execFileSync('gcc', ['-static', '-O2', '-o', join(nnp, 'usr/local/bin/nnp'), join(work, 'nnp.c')]);
    chmodSync(join(nnp, 'usr/local/bin/nnp'), 0o4755);
    buildImage({ ref: EXTRA_IMAGES.nonewprivs, root: nnp, out: out.nonewprivs, work, process: { Cmd: ['nnp'] } });

    const etcd = root('etcd');
    copyWithLibraries(etcd, which('etcd'), '/usr/local/bin/etcd');
    buildImage({ ref: EXTRA_IMAGES.etcd, root: etcd, out: out.etcd, work, process: { Entrypoint: ['/usr/local/bin/etcd'] } });

    buildImage({ ref: EXTRA_IMAGES.nonroot, base: busyboxArchive, out: out.nonroot, work, process: { User: NONROOT_USER } });
    const archives: string[] = Object.values(out);
    if (hostPathPlugin) {
      const plugin = root('hostpathplugin');
      copyFileSync(hostPathPlugin, join(plugin, 'hostpathplugin'));
      chmodSync(join(plugin, 'hostpathplugin'), 0o755);
      for (const [i, ref] of HOSTPATHPLUGIN_IMAGES.entries()) {
        const archive = join(dir, `extra-hostpathplugin-${i}.tar`);
        buildImage({ ref, base: busyboxArchive, root: plugin, out: archive, work, process: { Entrypoint: ['/hostpathplugin'] } });
        archives.push(archive);
      }
    }
    return archives;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
