/**
 * The CSI plugin's vol_data.json files on disk: written beside a publish target or a staging
 * directory, read back at teardown, and scanned across every pod directory to learn whether another
 * pod still publishes a staged volume (Go asks its actual state of world; this works from the disk
 * alone, so it also holds after a restart).
 *
 * Each file is read as a regular file within a small bound, without following a link (Go's
 * loadVolumeData reads whatever the path leads to): the stats period reads every pod's file, and a
 * link to /dev/zero or a huge sparse file in a pod's volume directory would cost memory and seconds
 * on each read.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { csiPluginName, podCsiVolumePaths } from '../../domain/csi/csi-paths.js';
import { encodeVolData, parsePodVolData, parseStagingVolData, type PodVolData, type StagingVolData } from '../../domain/csi/vol-data.js';
import { KubeletError } from '../../domain/errors.js';
import { escapedPluginName, podsDirectory } from '../../domain/pod/pod-paths.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';

/** A vol_data.json holds a handful of names and ids: real ones are under 1 KiB. */
export const VOL_DATA_MAX_BYTES = 64 * 1024;

export async function writeVolData(dataDir: string, path: string, data: PodVolData | StagingVolData): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o750 });
  await writeFile(path, encodeVolData(data), { mode: 0o640 });
}

/** The file's text; a missing file's error is node's own (ENOENT, its callers' test), any other names the file. */
async function readVolDataText(path: string): Promise<string> {
  try {
    return (await readRegularFile(path, VOL_DATA_MAX_BYTES, { noFollow: true })).text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

export async function readPodVolData(path: string): Promise<PodVolData> {
  return parsePodVolData(await readVolDataText(path), path);
}

/** The staging directory's file, or undefined when there is none. */
export async function readStagingVolData(path: string): Promise<StagingVolData | undefined> {
  try {
    return parseStagingVolData(await readVolDataText(path), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The directories in `dir` (a symlink is not one: nothing is read through it). */
async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

/** A pod CSI volume found on disk: its vol_data.json read, or why it could not be. */
export type CsiPodVolumeFile = { podUid: string; dirName: string } & ({ data: PodVolData } | { error: unknown });

/** Every pod CSI volume directory on the node that has a vol_data.json (a missing file is left out), in directory order. */
export async function readCsiPodVolumes(rootDir: string): Promise<CsiPodVolumeFile[]> {
  const found: CsiPodVolumeFile[] = [];
  for (const podUid of await names(podsDirectory(rootDir))) {
    for (const dirName of await names(`${podsDirectory(rootDir)}/${podUid}/volumes/${escapedPluginName(csiPluginName)}`)) {
      try {
        found.push({ podUid, dirName, data: await readPodVolData(podCsiVolumePaths(rootDir, podUid, dirName).volDataPath) });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') found.push({ podUid, dirName, error });
      }
    }
  }
  return found;
}

/**
 * Every pod CSI volume on the node whose vol_data.json names `driver` and `volumeHandle`, as
 * `<podUid>/<dirName>`. An unreadable or malformed file counts as a publisher: the volume is then
 * not unstaged under a pod that may still use it.
 */
export async function podsPublishing(rootDir: string, driver: string, volumeHandle: string): Promise<string[]> {
  return (await readCsiPodVolumes(rootDir))
    .filter((v) => !('data' in v) || (v.data.driverName === driver && v.data.volumeHandle === volumeHandle))
    .map((v) => `${v.podUid}/${v.dirName}`);
}
