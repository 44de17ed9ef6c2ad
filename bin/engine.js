#!/usr/bin/env node
// The CLI and the engine are loaded as one bundle (scripts/bundle.mjs): loading modules is most of a short command and
// much of the engine's start. Node 22 and newer also keep its compiled code on disk between runs.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/bundle/main.js');
