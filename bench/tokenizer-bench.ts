import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens as gptCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { readBpeTable, writeBpeTable } from '../src/tokenize/bpe-table.js';

/**
 * `node dist/bench/tokenizer-bench.js`: o200k token counting of this repository's TypeScript
 * (src/ and test/), the whole text of each file, as the summarize stage counts a file it has not
 * counted before: by the kept BPE table (bpe-table.ts), a fresh one as a new process reads it
 * (its pages read as counting needs them), then again (pre-tokens remembered); beside
 * gpt-tokenizer's countTokens on the same texts, first and second pass. The totals must be equal.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts')) out.push(readFileSync(path, 'utf8'));
  }
  return out;
}

function pass(count: (text: string) => number, texts: readonly string[]): { tokens: number; ms: number } {
  const started = performance.now();
  let tokens = 0;
  for (const text of texts) tokens += count(text);
  return { tokens, ms: performance.now() - started };
}

const texts = [...sources(join(PROJECT, 'src')), ...sources(join(PROJECT, 'test'))];
const chars = texts.reduce((sum, text) => sum + text.length, 0);
const dir = mkdtempSync(join(tmpdir(), 'aiwg-tokenizer-bench-'));
try {
  const file = join(dir, 'bpe-o200k.bin');
  if (!(await writeBpeTable(file, 'o200k'))) throw new Error(`could not write the BPE table to ${file}`);
  const table = readBpeTable(file, 'o200k');
  if (!table) throw new Error(`could not read the BPE table back from ${file}`);
  const rows: Array<[string, { tokens: number; ms: number }]> = [
    ['kept BPE table, first pass (fresh table)', pass((t) => table.countTokens(t), texts)],
    ['kept BPE table, second pass', pass((t) => table.countTokens(t), texts)],
    ['gpt-tokenizer countTokens, first pass', pass((t) => gptCountTokens(t, NO_SPECIAL), texts)],
    ['gpt-tokenizer countTokens, second pass', pass((t) => gptCountTokens(t, NO_SPECIAL), texts)],
  ];
  const totals = new Set(rows.map(([, r]) => r.tokens));
  if (totals.size !== 1) throw new Error(`the counts differ: ${rows.map(([name, r]) => `${name} ${r.tokens}`).join(', ')}`);
  console.log('## Token counting (o200k), this repository\'s TypeScript');
  console.log('');
  console.log(`${texts.length} files, ${(chars / 1e6).toFixed(2)} M characters, ${rows[0]![1].tokens} tokens; ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}`);
  console.log('');
  console.log('| counter | ms | M characters/s |');
  console.log('| --- | ---: | ---: |');
  for (const [name, r] of rows) console.log(`| ${name} | ${r.ms.toFixed(0)} | ${(chars / 1e3 / r.ms).toFixed(1)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
