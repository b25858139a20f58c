/**
 * Go's reconstructVolumes for the CSI volumes: the pod volumes under `kubernetes.io~csi` read back
 * from their vol_data.json. A directory whose file is missing or unreadable is not reconstructed;
 * the orphan sweep removes or keeps it as it finds it (Go's volumesFailedReconstruction, cleaned
 * up once).
 */
import { reconstructedCsiVolume, type ReconstructedVolume } from '../../domain/volume-manager/reconstruction.js';
import { readCsiPodVolumes } from '../csi/vol-data-files.js';

export async function reconstructCsiVolumes(rootDir: string): Promise<ReconstructedVolume[]> {
  return (await readCsiPodVolumes(rootDir)).flatMap((v) => ('data' in v ? [reconstructedCsiVolume(v.podUid, v.dirName, v.data)] : []));
}
