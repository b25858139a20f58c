/**
 * The cause families `explain` reads a pod's history with, one file each under families/. Each is
 * read independently; the story merges their lines by time.
 */
import type { FamilyExplainer } from './story.js';
import { admissionFamily } from './families/admission.js';
import { containersFamily } from './families/containers.js';
import { imagesFamily } from './families/images.js';
import { sandboxFamily } from './families/sandbox.js';
import { statusFamily } from './families/status.js';
import { volumesFamily } from './families/volumes.js';

export const FAMILIES: readonly FamilyExplainer[] = [
  admissionFamily,
  volumesFamily,
  sandboxFamily,
  imagesFamily,
  containersFamily,
  statusFamily,
];
