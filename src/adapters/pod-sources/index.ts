/** The real pod source I/O: the file source over node:fs (large manifests decoded off the event loop), the http source over global fetch. */
import type { PodSourceIo } from '../../ports/pod-sources.js';
import { createFileSourceReader } from './file-source.js';
import { decodeManifestOffThread } from './off-thread-decoder.js';
import { createHttpSourceReader } from './http-source.js';

export function createPodSourceIo(): PodSourceIo {
  return {
    fileSource: (opts) => createFileSourceReader({ ...opts, decode: decodeManifestOffThread }),
    httpSource: (opts) => createHttpSourceReader(opts),
  };
}
