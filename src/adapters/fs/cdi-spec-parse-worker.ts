/** The worker thread of cdi-spec-parse.ts: parses the one spec it is given and posts the result. */
import { parentPort, workerData } from 'node:worker_threads';
import { parseCdiSpecText } from './cdi-spec-parse.js';

parentPort?.postMessage(parseCdiSpecText((workerData as { text: string }).text));
