import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createDiskCache, parseEnvelope } from '../../src/cache/disk-cache.js';

/**
 * Several real processes fill one cache directory at once. The worker is plain JavaScript run by
 * `node` on the disk cache module, transpiled from src/ with the few modules it imports.
 */
const WORKERS = 3;
const SHARED = 150;
const OWN = 60;

const key = (text: string) => createHash('sha256').update(text).digest('hex');

const WORKER = `
import { createHash } from 'node:crypto';
const [modulePath, dir, id, shared, own] = process.argv.slice(2);
const { createDiskCache } = await import(modulePath);
const cache = createDiskCache({ dir });
const key = (text) => createHash('sha256').update(text).digest('hex');
const expected = (i) => 'shared value ' + i + ' '.repeat(i % 50) + 'x'.repeat(2000);
let bad = 0;
const jobs = [];
for (let i = 0; i < Number(shared); i++) jobs.push(async () => {
  await cache.set('summary', key('shared' + i), expected(i));
  const j = (i * 7 + Number(id)) % Number(shared);
  const seen = await cache.get('summary', key('shared' + j));
  if (seen !== undefined && seen !== expected(j)) bad++;
});
for (let i = 0; i < Number(own); i++) jobs.push(() => cache.set('summary', key('own' + id + '-' + i), 'own ' + id + ' ' + i));
// Interleave shared and own writes in batches so the processes overlap.
for (let i = 0; i < jobs.length; i += 16) await Promise.all(jobs.slice(i, i + 16).map((job) => job()));
process.exit(bad === 0 ? 0 : 3);
`;

function runWorker(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('disk cache under concurrent processes', () => {
  it(`${WORKERS} processes writing the same and their own keys lose nothing and corrupt nothing`, async () => {
    const work = mkdtempSync(join(tmpdir(), 'aiwg-cache-procs-'));
    writeFileSync(join(work, 'package.json'), '{"type":"module"}');
    for (const file of ['cache/disk-cache.ts', 'util/atomic-write.ts', 'util/hash.ts', 'util/weak-memo.ts', 'errors.ts']) {
      const source = readFileSync(join('src', file), 'utf8');
      const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      mkdirSync(dirname(join(work, file)), { recursive: true });
      writeFileSync(join(work, file.replace(/\.ts$/, '.js')), outputText);
    }
    const modulePath = join(work, 'cache', 'disk-cache.js');
    writeFileSync(join(work, 'worker.mjs'), WORKER);
    const dir = join(work, 'summaries');

    const results = await Promise.all(
      Array.from({ length: WORKERS }, (_, id) => runWorker([join(work, 'worker.mjs'), modulePath, dir, String(id), String(SHARED), String(OWN)])),
    );
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const cache = createDiskCache({ dir });
    for (let i = 0; i < SHARED; i++) {
      expect(await cache.get('summary', key(`shared${i}`))).toBe(`shared value ${i}${' '.repeat(i % 50)}${'x'.repeat(2000)}`);
    }
    for (let id = 0; id < WORKERS; id++) {
      for (let i = 0; i < OWN; i++) expect(await cache.get('summary', key(`own${id}-${i}`))).toBe(`own ${id} ${i}`);
    }
    const files = readdirSync(join(dir, 'summary'), { recursive: true }).map(String).filter((f) => f.includes('.json'));
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files).toHaveLength(SHARED + WORKERS * OWN);
    for (const f of files) expect(parseEnvelope(readFileSync(join(dir, 'summary', f), 'utf8'))).toBeDefined();
  });
});
