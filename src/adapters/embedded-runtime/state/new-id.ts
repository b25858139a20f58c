import { randomBytes } from 'node:crypto';

/** A fresh sandbox or container id: 64 hex digits, the shape of containerd's ids. */
export function newId(): string {
  return randomBytes(32).toString('hex');
}
