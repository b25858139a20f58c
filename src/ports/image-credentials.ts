/**
 * Where registry credentials come from besides a pod's image pull secrets: the credential provider
 * plugins of --image-credential-provider-config (Go's providers keyring). Each answer is a docker
 * config tagged with the plugin's name, ready for the keyring (domain/credentials/keyring.ts).
 */
import type { DockerConfig } from '../domain/credentials/keyring.js';

export interface ImageCredentialProviders {
  /** The plugins' docker configs for a repository (`host/path`, no tag): only plugins whose matchImages match answer; a failing plugin answers nothing. */
  provide(repository: string): Promise<{ source: string; config: DockerConfig }[]>;
}
