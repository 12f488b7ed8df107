#!/usr/bin/env node
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// tree-sitter's grammars are WebAssembly. In a one-shot command V8's background tier-up of their
// huge lexer functions made the main thread wait ~0.5 s (a cold vite run, traced on this 2-core
// machine); its baseline code is fast enough for one run. The long-lived server keeps tier-up.
if (process.argv[2] !== 'mcp') setFlagsFromString('--liftoff-only');

// The command line's bundle (scripts/bundle-cli.mjs, made by `npm run build` after tsc; CommonJS,
// required): a warm context-budget loads ~50 of its files, not ~295 modules. Where it is missing
// or older than tsc's output (tsc run alone), tsc's modules run instead, so a build never runs
// stale code.
const bundle = new URL('../dist/cli/main.cjs', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const builtAt = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
const { runMain } = builtAt(bundle) >= builtAt(compiled) ? createRequire(import.meta.url)(fileURLToPath(bundle)) : await import(compiled.href);

process.exitCode = await runMain(process.argv.slice(2));
