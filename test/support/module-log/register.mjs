// `node --import ./register.mjs …`: logs every module the process resolves (see hooks.mjs).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
