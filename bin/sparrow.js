#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader: no build step between a checkout and a running service.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
