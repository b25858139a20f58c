/**
 * The message fields a runtime always sets on what it lists or reports (an object's metadata, a
 * container's image) are declared present in the port. A runtime that leaves one out is read the way
 * proto3 reads an absent message, as its defaults (Go's nil-safe getters give the same empty name),
 * so nothing downstream meets a null there. A well-formed list is handed back as the very array
 * decoded: repeated-answers.ts hands back the same frozen answer while nothing changed.
 */
import type { Container__Output } from '../../generated/runtime/v1/Container.js';
import type { ContainerMetadata__Output } from '../../generated/runtime/v1/ContainerMetadata.js';
import type { ContainerStatusResponse__Output } from '../../generated/runtime/v1/ContainerStatusResponse.js';
import type { ImageSpec__Output } from '../../generated/runtime/v1/ImageSpec.js';
import type { PodSandbox__Output } from '../../generated/runtime/v1/PodSandbox.js';
import type { PodSandboxMetadata__Output } from '../../generated/runtime/v1/PodSandboxMetadata.js';
import type { PodSandboxStatusResponse__Output } from '../../generated/runtime/v1/PodSandboxStatusResponse.js';
import type { Container, ContainerStatusResponse, PodSandbox, PodSandboxStatusResponse } from '../../ports/cri.js';

const noSandboxMetadata = (): PodSandboxMetadata__Output => ({ name: '', uid: '', namespace: '', attempt: 0 });
const noContainerMetadata = (): ContainerMetadata__Output => ({ name: '', attempt: 0 });
const noImage = (): ImageSpec__Output => ({ image: '', annotations: {}, user_specified_image: '', runtime_handler: '' });

function isComplete(sandbox: PodSandbox__Output): sandbox is PodSandbox {
  return sandbox.metadata !== null;
}

function hasMetadataAndImage(container: Container__Output): container is Container {
  return container.metadata !== null && container.image !== null;
}

export function listedSandboxes(items: PodSandbox__Output[]): PodSandbox[] {
  if (items.every(isComplete)) return items;
  return items.map((s) => ({ ...s, metadata: s.metadata ?? noSandboxMetadata() }));
}

export function listedContainers(items: Container__Output[]): Container[] {
  if (items.every(hasMetadataAndImage)) return items;
  return items.map((c) => ({ ...c, metadata: c.metadata ?? noContainerMetadata(), image: c.image ?? noImage() }));
}

export function completeSandboxStatus(answer: PodSandboxStatusResponse__Output): PodSandboxStatusResponse {
  const { status } = answer;
  if (status === null) return { ...answer, status };
  return { ...answer, status: { ...status, metadata: status.metadata ?? noSandboxMetadata() } };
}

export function completeContainerStatus(answer: ContainerStatusResponse__Output): ContainerStatusResponse {
  const { status } = answer;
  if (status === null) return { ...answer, status };
  return { ...answer, status: { ...status, metadata: status.metadata ?? noContainerMetadata(), image: status.image ?? noImage() } };
}
