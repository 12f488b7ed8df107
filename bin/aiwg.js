#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// tree-sitter's grammars are WebAssembly. In a one-shot command V8's background tier-up of their
// huge lexer functions made the main thread wait ~0.5 s (a cold vite run, traced on this 2-core
// machine); its baseline code is fast enough for one run. The long-lived server keeps tier-up.
if (process.argv[2] !== 'mcp') setFlagsFromString('--liftoff-only');
// The command line's bundle (scripts/bundle-cli.mjs, made by `npm run build`): a few files to load, not ~300.
const { runMain } = await import('../dist/cli/main.js');

process.exitCode = await runMain(process.argv.slice(2));
