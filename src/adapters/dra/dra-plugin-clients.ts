/**
 * A registered DRA driver's kubelet plugin, called on the DRAPlugin service version chosen at its
 * registration (Go: DRAPlugin's NodePrepareResources and NodeUnprepareResources over the
 * DRAPluginManager's store). As Go, a connection is opened for each plugin as it registers, kept
 * connecting, and told to the registry each time it comes up or goes down (a driver with no plugin
 * connected is not usable and its slices are wiped); it is closed once the plugin deregistered.
 * The plugin to call is looked up in the registry on every use. Every call has Go's call timeout.
 * A failure is a KubeletError naming the driver, its endpoint and the call, with gRPC's status as
 * Go prints it; an answer over the bounds of dra-answer-bounds.ts is such a failure.
 */
import { draPluginMissing } from '../../domain/dra/plugin-services.js';
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { DraConnectionReports, RegisteredDraPlugin } from '../../ports/dra-drivers.js';
import type { DraClaim, DraDevice, DraPluginClient, DraPluginClients, DraPrepareResult, DraUnprepareResult } from '../../ports/dra-plugins.js';
import { grpcErrorText } from '../csi/grpc-status-text.js';
import { checkEntries, type AnswerOf } from '../csi/plugin-answer-bounds.js';
import { isOversizedAnswer, unixGrpcClient, type UnixGrpcClient } from '../csi/unix-grpc-client.js';
import type { Device__Output } from '../../generated/k8s/io/kubelet/pkg/apis/dra/v1/Device.js';
import type { DRAPluginDefinition } from '../../generated/k8s/io/kubelet/pkg/apis/dra/v1/DRAPlugin.js';
import { DRA_MAX_ANSWER_BYTES, MAX_CDI_IDS_PER_DEVICE, MAX_DEVICES_PER_CLAIM, MAX_REQUEST_NAMES_PER_DEVICE } from './dra-answer-bounds.js';
import { draPluginCodecs } from './dra-proto.js';

/** Go's defaultClientCallTimeout: half the kubelet's retry period of a pod's sync. */
export const DRA_CALL_TIMEOUT_MS = 45_000;

const peerOf = (plugin: RegisteredDraPlugin): string => `DRA driver ${plugin.driverName} at endpoint ${plugin.endpoint}`;

/** A failed call: the driver, its endpoint and the call named; an answer over the receive limit says so. */
const failedCall = (plugin: RegisteredDraPlugin) => (error: unknown, method: string): KubeletError => {
  const message = isOversizedAnswer(error)
    ? `${peerOf(plugin)} answered ${method} with more than the ${DRA_MAX_ANSWER_BYTES} bytes taken: ${grpcErrorText(error)}`
    : `${peerOf(plugin)}: ${method}: ${grpcErrorText(error)}`;
  return new KubeletError('KLT_ERR_DRA_PLUGIN', message, { cause: error, retryable: true });
};

/** The answers to the claims asked, by uid: a claim the plugin was not asked about is left out. */
function askedAnswers<T>(of: AnswerOf, claims: readonly DraClaim[], answers: Record<string, T>): [string, T][] {
  const entries = Object.entries(answers);
  checkEntries(of, 'claims', entries.length, claims.length);
  const asked = new Set(claims.map((c) => c.uid));
  return entries.filter(([uid]) => asked.has(uid));
}

function device(of: AnswerOf, d: Device__Output): DraDevice {
  checkEntries(of, 'request names for one device', d.request_names.length, MAX_REQUEST_NAMES_PER_DEVICE);
  checkEntries(of, 'CDI device IDs for one device', d.cdi_device_ids.length, MAX_CDI_IDS_PER_DEVICE);
  return { requestNames: [...d.request_names], poolName: d.pool_name, deviceName: d.device_name, cdiDeviceIds: [...d.cdi_device_ids] };
}

const toRequest = (claims: readonly DraClaim[]) => ({ claims: claims.map(({ namespace, uid, name }) => ({ namespace, uid, name })) });

function pluginClient(plugin: RegisteredDraPlugin, client: UnixGrpcClient<DRAPluginDefinition>, timeoutMs: number): DraPluginClient {
  const answerOf = (call: string): AnswerOf => ({ code: 'KLT_ERR_DRA_PLUGIN', peer: peerOf(plugin), call });
  return {
    async nodePrepareResources(claims) {
      const answer = await client.call.NodePrepareResources(toRequest(claims), timeoutMs);
      const of = answerOf('NodePrepareResources');
      return new Map(askedAnswers(of, claims, answer.claims).map(([uid, result]): [string, DraPrepareResult] => {
        if (result.error !== '') return [uid, { error: result.error }];
        checkEntries(of, 'devices for one claim', result.devices.length, MAX_DEVICES_PER_CLAIM);
        return [uid, { devices: result.devices.map((d) => device(of, d)) }];
      }));
    },
    async nodeUnprepareResources(claims) {
      const answer = await client.call.NodeUnprepareResources(toRequest(claims), timeoutMs);
      const of = answerOf('NodeUnprepareResources');
      return new Map(askedAnswers(of, claims, answer.claims).map(([uid, result]): [string, DraUnprepareResult] => [uid, { error: result.error }]));
    },
  };
}

/** A plugin that registered again on another endpoint or service gets its own connection. */
const keyOf = (plugin: RegisteredDraPlugin): string => `${plugin.driverName}\n${plugin.endpoint}\n${plugin.service}`;

export interface DraPluginClientsOptions {
  /** Where a connection's change is logged, as Go logs it. */
  logger?: Logger;
  timeoutMs?: number;
}

export function createDraPluginClients(registry: DraConnectionReports, o: DraPluginClientsOptions = {}): DraPluginClients {
  const timeoutMs = o.timeoutMs ?? DRA_CALL_TIMEOUT_MS;
  const clients = new Map<string, UnixGrpcClient<DRAPluginDefinition>>();
  const open = (plugin: RegisteredDraPlugin): UnixGrpcClient<DRAPluginDefinition> => {
    const client = unixGrpcClient(draPluginCodecs(plugin.service), plugin.endpoint, failedCall(plugin), DRA_MAX_ANSWER_BYTES);
    clients.set(keyOf(plugin), client);
    client.watchConnection((connected) => {
      o.logger?.info({ driverName: plugin.driverName, endpoint: plugin.endpoint, connected }, 'Connection changed');
      registry.setConnected(plugin.driverName, plugin.endpoint, connected);
    });
    return client;
  };
  /** Every registered plugin connected, every deregistered one's connection closed. */
  function follow(): void {
    const registered = new Map(registry.list().map((p) => [keyOf(p), p]));
    for (const [key, client] of clients) {
      if (registered.has(key)) continue;
      client.close();
      clients.delete(key);
    }
    for (const [key, plugin] of registered) if (!clients.has(key)) open(plugin);
  }
  const unsubscribe = registry.onChange(follow);
  follow();
  return {
    get(driverName) {
      const plugin = registry.get(driverName);
      const missing = draPluginMissing(driverName, plugin !== undefined);
      if (missing !== null || !plugin) throw new KubeletError('KLT_ERR_DRA_PLUGIN', missing ?? '');
      return pluginClient(plugin, clients.get(keyOf(plugin)) ?? open(plugin), timeoutMs);
    },
    close() {
      unsubscribe();
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
