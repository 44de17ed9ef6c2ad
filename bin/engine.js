#!/usr/bin/env node
// Node 22 and newer keep the compiled code of the CLI's modules on disk between runs: loading them is most of a short
// command (and of the engine's start). Without the API (Node 20) nothing changes.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/cli/main.js');
