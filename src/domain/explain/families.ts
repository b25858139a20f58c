/**
 * The cause families `explain` reads a pod's history with, one file each under families/. Each is
 * read independently; the story merges their lines by time. Lines read from one record keep this
 * order, which is the order things happen within one sync: a container exits, is killed or counted as
 * restarted before its successor starts.
 */
import type { FamilyExplainer } from './story.js';
import { admissionFamily } from './families/admission.js';
import { containersFamily } from './families/containers.js';
import { imagesFamily } from './families/images.js';
import { killsFamily } from './families/kills.js';
import { probesFamily } from './families/probes.js';
import { resizeFamily } from './families/resize.js';
import { restartsFamily } from './families/restarts.js';
import { sandboxFamily } from './families/sandbox.js';
import { statusFamily } from './families/status.js';
import { volumesFamily } from './families/volumes.js';

export const FAMILIES: readonly FamilyExplainer[] = [
  admissionFamily,
  volumesFamily,
  sandboxFamily,
  imagesFamily,
  probesFamily,
  killsFamily,
  restartsFamily,
  containersFamily,
  resizeFamily,
  statusFamily,
];
