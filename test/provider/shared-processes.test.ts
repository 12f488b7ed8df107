import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/fixture-repo.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { createSharedContext } from '../../src/provider/shared-factory.js';
import { createRedisSharedContext } from '../../src/provider/shared-redis.js';

/**
 * Separate `node` processes share one mission context through the embedded store and through
 * Redis: the context is created by the CLI in one process, two worker processes write and read
 * it at the same time, and this process checks the result. The workers run the built package
 * (dist/, which `npm test` compiles first, as the e2e tests' bin/aiwg.js does).
 */

const run = promisify(execFile);
const BIN = resolve('bin/aiwg.js');
const FACTORY = pathToFileURL(resolve('dist/src/provider/shared-factory.js')).href;
const SCHEMA = pathToFileURL(resolve('dist/src/config/schema.js')).href;
const PER_WORKER = 25;
const BUMPS = 8;

/** A worker: PER_WORKER injects, BUMPS conflict-retried counter increments, then waits to see the peer's writes. */
const WORKER = `
const [factoryUrl, schemaUrl, root, store, name, peer, count, bumps] = process.argv.slice(2);
const { createSharedContext } = await import(factoryUrl);
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike',
  'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'xray', 'yankee'];
const { ConfigSchema } = await import(schemaUrl);
const shared = createSharedContext({ root, config: ConfigSchema.parse({ shared_context: { url: store } }) });
let conflicts = 0;
for (let i = 0; i < Number(count); i++) {
  await shared.inject('mission-1', { key: name + '/' + i, content: 'finding ' + WORDS[i] + ' of ' + name });
  if (i < Number(bumps)) {
    for (;;) {
      const current = (await shared.entries('mission-1')).find((e) => e.key === 'counter');
      try {
        await shared.inject('mission-1', { key: 'counter', content: String(Number(current?.content ?? 0) + 1), expectSequence: current?.sequence ?? 0 });
        break;
      } catch (error) {
        if (error.code !== 'E_SHARED_CONFLICT') throw error;
        conflicts++;
      }
    }
  }
}
let seen = 0;
for (let tries = 0; tries < 2000 && seen < Number(count); tries++) {
  seen = (await shared.entries('mission-1')).filter((e) => e.key.startsWith(peer + '/')).length;
  if (seen < Number(count)) await new Promise((r) => setTimeout(r, 20));
}
await shared.close();
process.stdout.write(JSON.stringify({ seenFromPeer: seen, conflicts }));
`;

function runWorker(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer({ persist: true });
});

afterAll(async () => {
  await redis?.close();
});

describe.each([
  { name: 'embedded store', store: () => 'file:' },
  { name: 'redis', store: () => redis.url },
])('two node processes share one mission context: $name', ({ store }) => {
  it('both write at once and each reads the other; nothing is lost, the counter has every bump', async () => {
    const { root } = makeTempDir('aiwg-shared-procs-');
    const worker = join(root, 'worker.mjs');
    writeFileSync(worker, WORKER);
    const env = { ...process.env, AIWG_SHARED_CONTEXT: store() };
    // Redis keeps state between tests of this file: start from a clean context.
    await run('node', [BIN, 'shared', 'create', 'mission-1', '--replace'], { cwd: root, env });
    const common = [FACTORY, SCHEMA, root, store()];
    const [a, b] = await Promise.all([
      runWorker([worker, ...common, 'alice', 'bob', String(PER_WORKER), String(BUMPS)]),
      runWorker([worker, ...common, 'bob', 'alice', String(PER_WORKER), String(BUMPS)]),
    ]);
    expect(a.stderr).toBe('');
    expect(b.stderr).toBe('');
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(JSON.parse(a.stdout).seenFromPeer).toBe(PER_WORKER);
    expect(JSON.parse(b.stdout).seenFromPeer).toBe(PER_WORKER);

    const shared = createSharedContext({ root, config: ConfigSchema.parse({ shared_context: { url: store() } }) });
    const entries = await shared.entries('mission-1');
    await shared.close();
    expect(entries.filter((e) => e.key.startsWith('alice/'))).toHaveLength(PER_WORKER);
    expect(entries.filter((e) => e.key.startsWith('bob/'))).toHaveLength(PER_WORKER);
    expect(entries.find((e) => e.key === 'counter')?.content).toBe(String(2 * BUMPS));
    // Each worker's own writes keep their order.
    const order = entries.filter((e) => e.key.startsWith('alice/')).map((e) => Number(e.key.split('/')[1]));
    expect(order).toEqual([...order].sort((x, y) => x - y));

    const { stdout } = await run('node', [BIN, 'shared', 'query', 'mission-1', 'hotel finding of bob', '--limit', '1', '--json'], { cwd: root, env });
    expect(JSON.parse(stdout).hits[0].key).toBe('bob/7');
  });
});

describe('redis adapter across a server restart', () => {
  it('reconnects by itself and still has what was written before (persistent server)', async () => {
    const shared = createRedisSharedContext({ url: redis.url, workspace: 'restart' });
    try {
      await shared.createContext('m1', { ttlMs: 0 });
      await shared.inject('m1', { key: 'before', content: 'written before the restart' });
      await redis.restart();
      expect(await shared.inject('m1', { key: 'after', content: 'written after the restart' })).toBe(2);
      expect((await shared.entries('m1')).map((e) => e.key)).toEqual(['before', 'after']);
    } finally {
      await shared.close();
    }
  });
});
