import { describe, expect, it } from 'vitest';
import { actorId, actorIdParts, podDirectoryActorId, podWorkerId, probeWorkerId, volumeActorId } from '../../src/domain/actor-ids.js';

describe('actor ids', () => {
  it('read as before for the uids and names the API allows', () => {
    expect(podWorkerId('0b4c1f5e-9f37-4c1e-8f1e-2f7d1c0b6a11')).toBe('pod:0b4c1f5e-9f37-4c1e-8f1e-2f7d1c0b6a11');
    expect(volumeActorId('u1', 'kube-api-access-x7k2p')).toBe('volume:u1:kube-api-access-x7k2p');
    expect(probeWorkerId('u1', 'web', 'readiness')).toBe('probe:u1:web:readiness');
    expect(podDirectoryActorId('u1')).toBe('podDirectory:u1');
  });

  it('never collide where joining the parts as written did: u1 + a:b and u1:a + b', () => {
    expect(volumeActorId('u1', 'a:b')).not.toBe(volumeActorId('u1:a', 'b'));
    expect(probeWorkerId('u1', 'a:b', 'liveness')).not.toBe(probeWorkerId('u1:a', 'b', 'liveness'));
    expect(volumeActorId('u1', 'a%3Ab')).not.toBe(volumeActorId('u1', 'a:b'));
  });

  it('give back their parts, and nothing for another kind or a malformed id', () => {
    expect(actorIdParts(volumeActorId('u1:a', 'b/c%'), 'volume')).toEqual(['u1:a', 'b/c%']);
    expect(actorIdParts(actorId('podDirectory', '../x'), 'podDirectory')).toEqual(['../x']);
    expect(actorIdParts('pod:u1', 'podDirectory')).toBeNull();
    expect(actorIdParts('pod:%E0%A4%A', 'pod')).toBeNull();
  });
});
