/** How the kubelet's API clients say who they are, as Go's rest.DefaultKubernetesUserAgent does. */
import { KUBELET_TS_VERSION } from '../../domain/config/version.js';

export const kubeletUserAgent = (): string => `kubelet-ts/${KUBELET_TS_VERSION} (${process.platform}/${process.arch})`;
