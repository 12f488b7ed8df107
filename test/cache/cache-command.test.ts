import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';

/** chars4 keeps these CLI tests fast; the tokenizers have their own tests. */
const run = (argv: string[], cwd: string, env: Record<string, string> = {}) => runCli(argv, cwd, { AIWG_TOKENIZER: 'chars4', ...env });

async function filledRepo() {
  const root = mkdtempSync(join(tmpdir(), 'aiwg-cache-cli-'));
  // Levels keyed by path: their entries do not carry the file's token count, so the token cache
  // gets an entry per file too (keyed by content, the detailed entry carries it and none is written).
  mkdirSync(join(root, '.aiwg', 'rag'), { recursive: true });
  writeFileSync(join(root, '.aiwg', 'rag', 'config.yaml'), 'summarization:\n  caching:\n    invalidate_on_change: false\n');
  writeFileSync(join(root, 'a.ts'), 'export function a(): number {\n  return 1;\n}\n');
  writeFileSync(join(root, 'b.md'), '# B\n\nAbout b.\n');
  for (const file of ['a.ts', 'b.md']) expect((await run(['summarize', file], root)).code).toBe(0);
  return root;
}

describe('aiwg cache', () => {
  it('stats --json lists entries, bytes and ages per cache', async () => {
    const root = await filledRepo();
    const { code, stdout } = await run(['cache', 'stats', '--json'], root);
    expect(code).toBe(0);
    const { caches } = JSON.parse(stdout);
    expect(caches.map((c: { name: string }) => c.name)).toEqual(['summaries', 'tokens', 'secrets']);
    // Two files: a detailed entry each, which carries the local summary; one token count each.
    expect(caches[0]).toMatchObject({ name: 'summaries', exists: true, entries: 2 });
    expect(caches[1]).toMatchObject({ name: 'tokens', exists: true, entries: 2 });
    expect(caches[0].bytes).toBeGreaterThan(0);
    expect(caches[0].oldest_age_hours).toBeGreaterThanOrEqual(0);
  });

  it('stats prints a table and includes embeddings when present', async () => {
    const root = await filledRepo();
    mkdirSync(join(root, '.aiwg', 'rag', 'embeddings', 'm'), { recursive: true });
    writeFileSync(join(root, '.aiwg', 'rag', 'embeddings', 'm', 'v.bin'), Buffer.alloc(10));
    const { stdout } = await run(['cache', 'stats', '--root', root], '/');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^cache\s+entries\s+size\s+oldest\s+newest\s+dir$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['summaries 2', 'tokens 2', 'secrets 2', 'embeddings 1']);
  });

  it('prune keeps fresh entries; clear removes them all', async () => {
    const root = await filledRepo();
    const pruned = JSON.parse((await run(['cache', 'prune', '--json'], root)).stdout);
    // summaries, tokens, secrets, then the index (no index yet: `summarize` keeps none)
    expect(pruned.caches.map((c: { removed: number; kept: number }) => [c.removed, c.kept])).toEqual([[0, 2], [0, 2], [0, 2], [0, 0]]);
    const cleared = await run(['cache', 'clear'], root);
    expect(cleared.stdout).toContain('cleared summaries: 2 files');
    const after = JSON.parse((await run(['cache', 'stats', '--json'], root)).stdout);
    expect(after.caches.map((c: { entries: number }) => c.entries)).toEqual([0, 0, 0]);
    const again = JSON.parse((await run(['summarize', 'a.ts', '--json'], root)).stdout);
    expect(again.cached).toBe(false);
  });

  it('AIWG_CACHE_DIR moves the caches to a shared directory', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'aiwg-shared-cli-'));
    const root = mkdtempSync(join(tmpdir(), 'aiwg-cache-cli-'));
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    await run(['summarize', 'a.ts'], root, { AIWG_CACHE_DIR: shared });
    expect(existsSync(join(shared, 'summaries'))).toBe(true);
    expect(existsSync(join(root, '.aiwg'))).toBe(false);
    const { caches } = JSON.parse((await run(['cache', 'stats', '--json'], root, { AIWG_CACHE_DIR: shared })).stdout);
    expect(caches[0].dir).toBe(join(shared, 'summaries'));
  });

  it('counts the persistent index and clears it, only the files its writers wrote: the next run starts cold', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aiwg-cache-cli-'));
    const body = Array.from({ length: 30 }, (_, i) => `  const v${i} = n + ${i};`).join('\n');
    writeFileSync(join(root, 'retry.ts'), `export function retry(n: number): number {\n${body}\n  return n;\n}\n\nexport function backoff(n: number): number {\n${body}\n  return n * 2;\n}\n`);
    writeFileSync(join(root, 'client.ts'), "import { retry } from './retry';\nexport const call = () => retry(1);\n");
    const task = ['context-budget', 'fix the retry backoff', '--scoring', 'keyword', '--json'];
    expect((await run(task, root)).code).toBe(0);
    const indexDir = join(root, '.aiwg', 'rag', 'index');
    writeFileSync(join(indexDir, 'notes.txt'), 'a file of mine\n');
    const byName = (out: string) => Object.fromEntries((JSON.parse(out).caches as Array<{ name: string }>).map((c) => [c.name, c]));
    const stats = byName((await run(['cache', 'stats', '--json'], root)).stdout).index as { entries: number; bytes: number };
    // the fact store, the kept import graph and the kept outline blocks
    expect(stats.entries).toBeGreaterThanOrEqual(3);
    expect(stats.bytes).toBeGreaterThan(0);
    const cleared = byName((await run(['cache', 'clear', '--json'], root)).stdout).index as { removed: number; kept: number };
    expect(cleared).toMatchObject({ removed: stats.entries, kept: 1 });
    expect(readdirSync(indexDir).sort()).toEqual(['.gitignore', 'notes.txt']);
    // cold again: the next run reads and indexes every file
    const after = JSON.parse((await run(task, root)).stdout) as { allocation: unknown };
    expect(after.allocation).toBeDefined();
    expect(existsSync(join(indexDir, 'facts.bin'))).toBe(true);
  });

  it('an unknown action is a usage error', async () => {
    const { code, stderr } = await run(['cache', 'wipe'], tmpdir());
    expect(code).toBe(2);
    expect(stderr).toContain('give one action: stats, prune, clear');
  });
});
