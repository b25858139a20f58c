/**
 * The embedded runtime's images: names only, no content. "Present" means seeded by the runtime's
 * `images` option (always there at start) or recorded by PullImage (persisted in images.json).
 * RemoveImage forgets a pulled image for good; a seeded one only until the next start.
 */
import { join } from 'node:path';
import type { Image } from '../../../ports/cri.js';
import { readJsonFile, writeFileAtomic } from '../shim/atomic-file.js';
import { imageIdFor, looksLikeImageId, normalizeImageRef } from './image-ref.js';

export const DEFAULT_EMBEDDED_IMAGES: readonly string[] = ['kubelet-ts.local/busybox:1.0', 'kubelet-ts.local/pause:1.0'];

const IMAGES_FILE = 'images.json';

/**
 * There is no content, so no real size. A runtime's images are never empty (containerd reports the
 * unpacked layers, about a megabyte for busybox), and the kubelet's node status and image GC account in
 * sizes, so every image reports this nominal constant instead of 0.
 */
export const NOMINAL_IMAGE_SIZE_BYTES = 1024 * 1024;

interface ImagesFile { pulled: string[] }

export class ImageStore {
  private constructor(
    private readonly file: string,
    private readonly present: Set<string>,
    private readonly pulled: Set<string>,
  ) {}

  static async open(stateDir: string, seeded: readonly string[]): Promise<ImageStore> {
    const file = join(stateDir, IMAGES_FILE);
    const read = await readJsonFile<ImagesFile>(file);
    const pulled = new Set(read.kind === 'ok' && Array.isArray(read.value.pulled) ? read.value.pulled.map(normalizeImageRef) : []);
    const present = new Set([...seeded.map(normalizeImageRef), ...pulled]);
    return new ImageStore(file, present, pulled);
  }

  list(): Image[] {
    return [...this.present].sort().map(toImage);
  }

  /** By name (normalized) or by id (`sha256:…` or bare hex). */
  find(ref: string): Image | undefined {
    const name = this.resolveName(ref);
    return name === undefined ? undefined : toImage(name);
  }

  async record(ref: string): Promise<Image> {
    const name = normalizeImageRef(ref);
    this.present.add(name);
    this.pulled.add(name);
    await this.save();
    return toImage(name);
  }

  /** Idempotent: removing an absent image succeeds, as containerd's RemoveImage does. */
  async remove(ref: string): Promise<void> {
    const name = this.resolveName(ref);
    if (name === undefined) return;
    this.present.delete(name);
    if (this.pulled.delete(name)) await this.save();
  }

  private resolveName(ref: string): string | undefined {
    if (looksLikeImageId(ref)) {
      const id = ref.startsWith('sha256:') ? ref : `sha256:${ref}`;
      return [...this.present].find((name) => imageIdFor(name) === id);
    }
    const name = normalizeImageRef(ref);
    return this.present.has(name) ? name : undefined;
  }

  private async save(): Promise<void> {
    const content: ImagesFile = { pulled: [...this.pulled].sort() };
    await writeFileAtomic(this.file, JSON.stringify(content));
  }
}

function toImage(name: string): Image {
  const id = imageIdFor(name);
  // No repo digest: containerd has none for imported images either. The uid is the one a container of
  // this image really runs as when it sets no run_as_user: the runtime's own, so the kubelet's
  // runAsNonRoot check judges what will actually happen.
  return { id, repo_tags: [name], repo_digests: [], size: String(NOMINAL_IMAGE_SIZE_BYTES), uid: { value: String(runtimeUid()) }, username: '', spec: { image: id, annotations: {}, user_specified_image: '', runtime_handler: '' }, pinned: false };
}

/** The uid the runtime runs as, which a container without run_as_user runs as too. */
export function runtimeUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}
