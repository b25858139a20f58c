#!/usr/bin/env node
// Composition root (placeholder until the supervisor is wired).
process.stdout.write('kubelet-ts\n');
