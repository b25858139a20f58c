/**
 * The cause families `explain` reads a pod's history with, one file each under families/. Each is
 * read independently; the story merges their lines by time.
 */
import type { FamilyExplainer } from './story.js';
import { containersFamily } from './families/containers.js';
import { killsFamily } from './families/kills.js';
import { probesFamily } from './families/probes.js';
import { restartsFamily } from './families/restarts.js';

export const FAMILIES: readonly FamilyExplainer[] = [
  containersFamily,
  probesFamily,
  killsFamily,
  restartsFamily,
];
