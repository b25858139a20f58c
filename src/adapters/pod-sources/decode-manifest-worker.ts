/** The worker thread of off-thread-decoder.ts: decodes the one manifest it is given and posts the result. */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeManifestText } from './decode-manifest.js';

const { file, text, nodeName } = workerData as { file: string; text: string; nodeName: string };
parentPort?.postMessage(decodeManifestText(file, text, nodeName));
