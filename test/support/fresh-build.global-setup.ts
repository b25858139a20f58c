/**
 * The integration tests run the bundled binary (kubelet-bin.ts), not the sources: a run after an
 * edit without `npm run build` would test the old code and pass or fail for the wrong reason. So
 * the suite refuses to start when any build input is newer than the bundle, by the same check
 * `npm start` uses to decide whether to build (scripts/fresh-build.mjs).
 */
import { BUILD_INPUTS, staleBuildReason } from '../../scripts/fresh-build.mjs';
import { KUBELET_BIN } from './kubelet-bin.js';

export default function setup(): void {
  const reason = staleBuildReason(KUBELET_BIN, BUILD_INPUTS);
  if (reason) throw new Error(`the build is stale: ${reason}`);
}
