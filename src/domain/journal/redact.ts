/**
 * Redaction before anything reaches the journal, which never holds a secret in clear
 * (docs/ARCHITECTURE.md, The event log). Runs on plain JSON (after toJournalPayload) and returns
 * a redacted copy. The rules:
 * - values under keys that name a credential: tokens, passwords, private keys, authorization headers
 *   (but not a pod's `secret` volume source or projection, which holds names and modes);
 * - staticPodURLHeader: every header value (the Go kubelet masks them in /configz too);
 * - `argv` (the command line in the supervisor's input): the values of secret-bearing flags
 *   (redact-argv.ts: --manifest-url-header);
 * - a Kubernetes Secret's `data` and `stringData` values;
 * - a pod container's env entry whose value came from a secretKeyRef;
 * - CRI container env values (`envs: [{ key, value }]`): at that level nobody can tell which came
 *   from a Secret, so all are redacted; their keys stay.
 * Deterministic, so replay regenerates identical redacted records. Copy-on-write: data with
 * nothing to redact is returned as is.
 */
import { copyUntil, mapSame } from './copy-on-write.js';
import { FormsByIdentity, isPodObject } from './pod-forms.js';
import { redactArgv } from './redact-argv.js';

/** Each pod's redacted form, kept by identity (pod-forms.ts): what redaction does to a pod depends on nothing around it. */
const podForms = new FormsByIdentity();

export const REDACTED = '<redacted>';

const CREDENTIAL_KEYS = new Set(
  [
    'token', 'bearertoken', 'bearer_token', 'id-token', 'idtoken', 'refresh-token', 'access-token', 'accesstoken',
    'password', 'passwd', 'secret', 'clientkeydata', 'client-key-data', 'keydata', 'privatekey', 'private_key',
    'client-key', 'clientkey', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-auth-token',
  ],
);

export function redact(value: unknown): unknown {
  return walk(value);
}

/**
 * Whether a key names a credential, in any case. Remembered per key: lower-casing allocates a string
 * each time, for every key of every record; the keys are a small vocabulary, and the memo is bounded
 * for maps keyed by names or uids.
 */
const credentialKeys = new Map<string, boolean>();
const CREDENTIAL_KEY_MEMO = 4096;
function isCredentialKey(key: string): boolean {
  let hit = credentialKeys.get(key);
  if (hit === undefined) {
    hit = CREDENTIAL_KEYS.has(key.toLowerCase());
    if (credentialKeys.size >= CREDENTIAL_KEY_MEMO) credentialKeys.clear();
    credentialKeys.set(key, hit);
  }
  return hit;
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return mapSame(value, walk);
  if (typeof value !== 'object' || value === null) return value;
  if (isPodObject(value)) {
    const known = podForms.get(value);
    if (known !== undefined) return known;
    const form = walkObject(value as Record<string, unknown>);
    podForms.set(value, form);
    return form;
  }
  return walkObject(value as Record<string, unknown>);
}

function walkObject(obj: Record<string, unknown>): unknown {
  let out: Record<string, unknown> | null = null;
  // for-in: no array of keys per object (see payload.ts).
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    let r: unknown;
    if (k === 'staticPodURLHeader' && isRecord(v)) r = maskValues(v);
    else if ((k === 'data' || k === 'stringData') && obj.kind === 'Secret' && isRecord(v)) r = maskValues(v);
    else if (k === 'argv' && Array.isArray(v) && v.every((a) => typeof a === 'string')) r = sameOrNew(v, redactArgv(v, REDACTED));
    else if (k === 'env' && Array.isArray(v)) r = mapSame(v, redactPodEnv);
    else if (k === 'envs' && Array.isArray(v)) r = mapSame(v, redactCriEnv);
    // A pod's secret volume or projection ({ secretName | name, items, defaultMode, optional }) names
    // a Secret and holds none of it: the log keeps which Secret a pod mounts, and with which modes.
    else if (k === 'secret' && isRecord(v)) r = walk(v);
    else if (isCredentialKey(k)) r = isRecord(v) || Array.isArray(v) ? maskDeep(v) : REDACTED;
    else r = walk(v);
    if (r !== v && out === null) out = copyUntil(obj, k);
    if (out !== null) out[k] = r;
  }
  return out ?? obj;
}

/** `next` when it differs from `prev` element-wise, else `prev` (copy-on-write). */
function sameOrNew(prev: readonly string[], next: string[]): readonly string[] {
  return next.length === prev.length && next.every((a, i) => a === prev[i]) ? prev : next;
}

function redactPodEnv(entry: unknown): unknown {
  if (!isRecord(entry)) return walk(entry);
  const fromSecret = isRecord(entry.valueFrom) && entry.valueFrom.secretKeyRef !== undefined;
  const walked = walk(entry) as Record<string, unknown>;
  return fromSecret && 'value' in walked && walked.value !== REDACTED ? { ...walked, value: REDACTED } : walked;
}

function redactCriEnv(entry: unknown): unknown {
  if (!isRecord(entry) || !('key' in entry)) return walk(entry);
  const walked = walk(entry) as Record<string, unknown>;
  return walked.value === REDACTED ? walked : { ...walked, value: REDACTED };
}

function maskValues(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]));
}

function maskDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskDeep);
  if (isRecord(v)) return Object.fromEntries(Object.keys(v).map((k) => [k, maskDeep(v[k])]));
  return REDACTED;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
