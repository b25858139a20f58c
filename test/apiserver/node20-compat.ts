/**
 * Tests that load @kubernetes/client-node directly import this first: client-node 2.0.1's undici
 * needs Node 22 functions that Node 20 lacks. The stand-ins live with the adapter that needs
 * them in production (src/adapters/apiserver/node20-compat.ts); this only makes sure tests get them
 * before client-node is loaded.
 */
import '../../src/adapters/apiserver/node20-compat.js';
