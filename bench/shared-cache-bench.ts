import { spawn, execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * `node dist/bench/shared-cache-bench.js [REPO]` (also run by `npm run bench`): two hosts' worth of
 * cache reuse through one Redis (cache.redis_url). Host A runs `aiwg context-budget` cold (its
 * own cache directory, an empty Redis); host B then runs the same task on the same repository
 * with another, empty cache directory and the same Redis; the baseline is host B with no Redis
 * (fully cold). Prints B's Redis hit rate (keyspace hits / lookups during its run) and its
 * speed-up over the baseline, twice: keyword scoring (the summary and token-count caches) and
 * hybrid scoring, the default (the embeddings too). For hybrid every host gets the embedding
 * model built once beforehand (a model is installed per machine, not per run), so the figures
 * measure the caches, not the model build. Starts its own redis-server on a free loopback port;
 * REPO defaults to this project's checkout.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PROJECT, 'bin', 'aiwg.js');
const TASK = 'fix the retry backoff in the http request timeout handling and log the failed attempts';
const run = promisify(execFile);
type Method = 'keyword' | 'hybrid';

async function main(): Promise<void> {
  const repo = resolve(process.argv[2] ?? PROJECT);
  const work = mkdtempSync(join(tmpdir(), 'aiwg-shared-cache-bench-'));
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', work, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  try {
    await waitForRedis(port);
    for (const method of ['keyword', 'hybrid'] as const) await scenario({ repo, work, port, url, method });
  } finally {
    server.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

async function scenario(input: { repo: string; work: string; port: number; url: string; method: Method }): Promise<void> {
  const { repo, work, port, url, method } = input;
  await redisCli(port, ['FLUSHALL']);
  const seed = join(work, `${method}-model-seed`);
  if (method !== 'keyword') await timed(repo, { AIWG_CACHE_DIR: seed, AIWG_SCORING_METHOD: method });
  const host = (name: string, redis: boolean) => {
    const cacheDir = join(work, `${method}-${name}`);
    if (existsSync(join(seed, 'models'))) {
      mkdirSync(cacheDir, { recursive: true });
      cpSync(join(seed, 'models'), join(cacheDir, 'models'), { recursive: true });
    }
    return timed(repo, { AIWG_CACHE_DIR: cacheDir, AIWG_SCORING_METHOD: method, ...(redis ? { AIWG_CACHE_REDIS_URL: url } : {}) });
  };
  const baseline = await host('host-b-alone', false);
  const a = await host('host-a', true);
  await redisCli(port, ['CONFIG', 'RESETSTAT']);
  const b = await host('host-b', true);
  const stats = await redisCli(port, ['INFO', 'stats']);
  const hits = Number(/keyspace_hits:(\d+)/.exec(stats)?.[1] ?? 0);
  const misses = Number(/keyspace_misses:(\d+)/.exec(stats)?.[1] ?? 0);
  const keys = Number((await redisCli(port, ['DBSIZE'])).trim());
  const embeddingKeys = (await redisCli(port, ['--scan', '--pattern', 'aiwg:cache:*:embeddings/*'])).split('\n').filter((l) => l.trim() !== '').length;
  const rate = hits + misses === 0 ? 0 : hits / (hits + misses);
  console.log(`shared cache (two cache dirs, one Redis, ${repo}, ${method} scoring; load ${loadavg()[0]!.toFixed(1)}):`);
  console.log(`  host A cold, fills Redis: ${a.toFixed(2)} s (${keys} entries in Redis, ${embeddingKeys} of them embeddings)`);
  console.log(`  host B alone, fully cold: ${baseline.toFixed(2)} s`);
  console.log(`  host B with host A's Redis: ${b.toFixed(2)} s, Redis hit rate ${(rate * 100).toFixed(1)}% (${hits} of ${hits + misses}), speed-up x${(baseline / b).toFixed(2)}`);
}

async function timed(repo: string, env: Record<string, string>): Promise<number> {
  const start = process.hrtime.bigint();
  await run('node', [BIN, 'context-budget', TASK, '--root', repo, '--json', '--no-record'], { env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 });
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function redisCli(port: number, args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args], { maxBuffer: 256 * 1024 * 1024 })).stdout;
}

async function waitForRedis(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await redisCli(port, ['PING']).then((out) => out.includes('PONG')).catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start (apt-get install -y redis-server)');
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

await main();
