import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildBenchRepo, type BuiltRepo } from './build-repo.js';
import { writeFileAtomic } from '../src/util/atomic-write.js';
import { markdownTable } from '../src/eval/render-eval.js';
import { repositoryCacheDir } from '../src/cache/cache-dir.js';

/**
 * `npm run bench`: end-to-end cost of `aiwg context-budget` on repositories of 1,000, 5,000
 * and 20,000 files of real source text with a generated history. Every run is a fresh process
 * (`node bin/aiwg.js context-budget ... --json --no-record` under `/usr/bin/time -v` for the peak
 * memory): one cold run with the repository's caches removed, then warm runs with nothing
 * changed. Then the other areas' benchmark scripts, when built. Prints tables, writes
 * bench/out/results.json.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PROJECT, 'bin', 'aiwg.js');
const OUT = join(PROJECT, 'bench', 'out');
/**
 * The generated repositories live outside the project: under bench/ they would be compiled by
 * tsc (tsconfig includes bench/**) and collected by vitest. AIWG_BENCH_DIR moves them.
 */
const REPOS = process.env.AIWG_BENCH_DIR ?? join(tmpdir(), 'aiwg-bench-repos');
const TASK = 'fix the retry backoff in the http request timeout handling and log the failed attempts';
const DEFAULT_SIZES = [1000, 5000, 20000];
const TIME_BIN = '/usr/bin/time';

interface RunResult {
  size: number;
  kind: 'cold' | 'warm';
  ok: boolean;
  error?: string;
  wallSeconds: number;
  filesPerSecond: number;
  peakMemoryMB: number | null;
  timingsMs: Record<string, number>;
  /** Files in the context and tokens rendered, from the record. */
  included: number;
  renderedTokens: number;
  /** Content-addressed cache entries on disk after the run (records excluded). */
  cacheEntries: number;
  /** Entries this run added: a warm run that reuses everything adds none. */
  cacheEntriesAdded: number;
  /** 1 - added / entries present before: the share of cached work reused (warm runs). */
  cacheReuse: number | null;
  /** Cache counters the record reports (timings keys naming hits or misses), if any. */
  cacheCounters: Record<string, number>;
  /** Seconds spent building the embedding model inside this run (only the very first run). */
  modelBuildSeconds: number | null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      'warm-runs': { type: 'string' },
      'timeout-s': { type: 'string' },
      'skip-others': { type: 'boolean' },
    },
  });
  const sizes = values.sizes ? values.sizes.split(',').map((s) => Number(s.trim().replace(/_/g, ''))) : DEFAULT_SIZES;
  if (sizes.some((s) => !Number.isInteger(s) || s < 10)) throw new Error(`--sizes ${values.sizes}: pass whole file counts of at least 10, e.g. --sizes 1000,5000`);
  const warmRuns = Number(values['warm-runs'] ?? 2);
  const timeoutMs = Number(values['timeout-s'] ?? 900) * 1000;
  const machine = {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  log(`bench: sizes ${sizes.join(', ')}; ${machine.cores} cores (${machine.cpu}), ${machine.memoryGB} GB, node ${machine.node}`);
  if (!existsSync(TIME_BIN)) log(`bench: ${TIME_BIN} not found: peak memory will not be measured`);

  const repos: BuiltRepo[] = [];
  const runs: RunResult[] = [];
  for (const size of [...sizes].sort((a, b) => a - b)) {
    log(`bench: building the ${size}-file repository...`);
    const repo = await buildBenchRepo({ dir: join(REPOS, String(size)), count: size, nodeModules: join(PROJECT, 'node_modules') });
    repos.push(repo);
    log(`bench: ${repo.reused ? 'reused' : `built in ${repo.buildSeconds} s`}: ${repo.files} files, ${(repo.bytes / 1e6).toFixed(1)} MB, ${repo.commits} commits (${Object.entries(repo.pools).map(([k, v]) => `${k} ${v}`).join(', ')})`);
    await clearCaches(repo.root);
    let entries = await countCacheEntries(repo.root);
    for (let i = 0; i <= warmRuns; i += 1) {
      const kind = i === 0 ? 'cold' : 'warm';
      log(`bench: ${size} files, ${kind} run${kind === 'warm' ? ` ${i}/${warmRuns}` : ''}...`);
      const result = await timedRun(repo, kind, entries, timeoutMs);
      entries = result.cacheEntries;
      runs.push(result);
      log(`bench:   ${result.ok ? `${result.wallSeconds.toFixed(2)} s, ${result.peakMemoryMB ?? '?'} MB peak` : `failed: ${result.error}`}`);
      if (!result.ok && kind === 'cold') break;
    }
  }

  const others: Record<string, string> = {};
  if (values['skip-others'] !== true) {
    // Every other area's `bench/<name>-bench.ts`, as built by the tsc step of `npm run bench`.
    const built = await readdir(join(PROJECT, 'dist', 'bench')).catch(() => [] as string[]);
    for (const name of built.filter((f) => f.endsWith('-bench.js') && f !== 'run-bench.js').map((f) => f.slice(0, -3)).sort()) {
      const script = join(PROJECT, 'dist', 'bench', `${name}.js`);
      log(`bench: running ${name}...`);
      const result = await runProcess('node', [script], { cwd: PROJECT, timeoutMs });
      others[name] = result.code === 0 ? result.stdout : `failed (exit ${result.code}): ${result.stderr.slice(-2000)}`;
    }
  }

  const report = renderReport({ machine, repos, runs, others });
  process.stdout.write(report);
  await writeFileAtomic(join(OUT, 'results.json'), `${JSON.stringify({ machine, task: TASK, repos, runs, growth: growth(runs), others }, null, 2)}\n`);
  log(`bench: wrote ${join(OUT, 'results.json')}`);
}

async function timedRun(repo: BuiltRepo, kind: 'cold' | 'warm', entriesBefore: number, timeoutMs: number): Promise<RunResult> {
  const command = ['node', BIN, 'context-budget', TASK, '--root', repo.root, '--json', '--no-record'];
  const useTime = existsSync(TIME_BIN);
  const env = { ...process.env, AIWG_CACHE_DIR: undefined, NO_COLOR: '1' };
  const started = performance.now();
  const result = useTime
    ? await runProcess(TIME_BIN, ['-v', ...command], { cwd: PROJECT, timeoutMs, env })
    : await runProcess(command[0] as string, command.slice(1), { cwd: PROJECT, timeoutMs, env });
  const wallSeconds = (performance.now() - started) / 1000;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
  const cacheEntries = await countCacheEntries(repo.root);
  const modelBuild = /embedding model ready:.*?([\d.]+) s\b/.exec(result.stderr);
  const base = {
    modelBuildSeconds: modelBuild ? Number(modelBuild[1]) : null,
    size: repo.files,
    kind,
    wallSeconds,
    filesPerSecond: repo.files / wallSeconds,
    peakMemoryMB: rss ? Math.round(Number(rss[1]) / 1024) : null,
    cacheEntries,
    cacheEntriesAdded: Math.max(0, cacheEntries - entriesBefore),
    cacheReuse: kind === 'warm' && entriesBefore > 0 ? 1 - Math.max(0, cacheEntries - entriesBefore) / entriesBefore : null,
  };
  let record: { timings_ms: Record<string, number>; metrics: { rendered_tokens: number }; allocation: Record<string, { files: unknown[] }> } | undefined;
  try {
    record = result.code === 0 ? JSON.parse(result.stdout) : undefined;
  } catch {
    record = undefined;
  }
  if (!record) {
    const why = result.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${result.code}: ${lastLines(result.stderr)}`;
    return { ...base, ok: false, error: why, timingsMs: {}, included: 0, renderedTokens: 0, cacheCounters: {} };
  }
  const timingsMs = record.timings_ms;
  return {
    ...base,
    ok: true,
    timingsMs,
    included: Object.values(record.allocation).reduce((n, tier) => n + tier.files.length, 0),
    renderedTokens: record.metrics.rendered_tokens,
    cacheCounters: Object.fromEntries(Object.entries(timingsMs).filter(([key]) => /hit|miss|cache/i.test(key))),
  };
}

/** Cost growth between consecutive sizes: the exponent k of time ~ files^k (1 = linear). */
function growth(runs: RunResult[]): Array<{ kind: string; from: number; to: number; wallRatio: number; exponent: number }> {
  const out: Array<{ kind: string; from: number; to: number; wallRatio: number; exponent: number }> = [];
  for (const kind of ['cold', 'warm'] as const) {
    const bySize = new Map<number, number>();
    for (const run of runs.filter((r) => r.kind === kind && r.ok)) bySize.set(run.size, Math.min(bySize.get(run.size) ?? Infinity, run.wallSeconds));
    const sizes = [...bySize.keys()].sort((a, b) => a - b);
    for (let i = 1; i < sizes.length; i += 1) {
      const a = sizes[i - 1] as number;
      const b = sizes[i] as number;
      const ratio = (bySize.get(b) as number) / (bySize.get(a) as number);
      out.push({ kind, from: a, to: b, wallRatio: ratio, exponent: Math.log(ratio) / Math.log(b / a) });
    }
  }
  return out;
}

function renderReport(input: { machine: Record<string, string | number>; repos: BuiltRepo[]; runs: RunResult[]; others: Record<string, string> }): string {
  const { machine, runs } = input;
  const lines = [
    `aiwg context-budget end to end (${machine.date}; ${machine.cores} cores ${machine.cpu}; ${machine.memoryGB} GB; node ${machine.node})`,
    `Task: "${TASK}"; default config (hybrid scoring, 100,000-token budget); fresh process per run.`,
    '',
  ];
  const stage = (r: RunResult, key: string) => (r.timingsMs[key] === undefined ? '-' : String(Math.round(r.timingsMs[key] as number)));
  const rows = runs.map((r) => [
    String(r.size),
    r.kind,
    r.ok ? r.wallSeconds.toFixed(2) : 'failed',
    r.ok ? String(Math.round(r.filesPerSecond)) : '-',
    r.peakMemoryMB === null ? '-' : String(r.peakMemoryMB),
    stage(r, 'collect'),
    stage(r, 'score'),
    stage(r, 'summarize'),
    stage(r, 'allocate'),
    String(r.cacheEntries),
    r.cacheReuse === null ? '-' : `${(r.cacheReuse * 100).toFixed(1)}%`,
    r.ok ? `${r.included} / ${r.renderedTokens}` : (r.error ?? ''),
  ]);
  lines.push(...markdownTable(['files', 'run', 'wall s', 'files/s', 'peak MB', 'collect ms', 'score ms', 'summarize ms', 'allocate ms', 'cache entries', 'cache reuse', 'files / tokens in context'], rows), '');
  for (const r of runs.filter((run) => run.modelBuildSeconds !== null)) {
    lines.push(`The ${r.size}-file ${r.kind} run includes building the default embedding model once (${r.modelBuildSeconds} s; a one-time step per cache directory).`, '');
  }
  const counters = runs.filter((r) => Object.keys(r.cacheCounters).length > 0);
  if (counters.length > 0) {
    lines.push('Cache counters reported by the record:');
    for (const r of counters) lines.push(`  ${r.size} ${r.kind}: ${Object.entries(r.cacheCounters).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    lines.push('');
  }
  const grow = growth(runs);
  if (grow.length > 0) {
    lines.push('Growth (time ~ files^k; k = 1 is linear):');
    for (const g of grow) lines.push(`  ${g.kind} ${g.from} -> ${g.to} files: wall x${g.wallRatio.toFixed(2)}, k = ${g.exponent.toFixed(2)}`);
    lines.push('');
  }
  for (const [name, output] of Object.entries(input.others)) lines.push(`== ${name} ==`, output.trimEnd(), '');
  return `${lines.join('\n')}\n`;
}

/**
 * Cold = every content-addressed cache of the repository emptied. The default embedding model
 * lives in the per-user model cache (built once per machine, reported on its own when a run
 * builds it), so a cold run measures the repository work.
 */
async function clearCaches(root: string): Promise<void> {
  for (const dir of cacheDirsOf(root)) await rm(dir, { recursive: true, force: true });
}

/** Where a run without cache.dir keeps its caches: the repository's cache (src/cache/cache-dir.ts), and `<root>/.aiwg`. */
function cacheDirsOf(root: string): string[] {
  const shared = repositoryCacheDir(root);
  return [join(root, '.aiwg'), ...(shared === undefined ? [] : [shared])];
}

async function countCacheEntries(root: string): Promise<number> {
  let count = 0;
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
      if (entry.name === 'budget-records' || entry.name === 'models' || entry.name.endsWith('.jsonl')) continue;
      const abs = join(path, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile() && (await stat(abs)).size > 0) count += 1;
    }
  };
  for (const dir of cacheDirsOf(root)) await walk(dir);
  return count;
}

function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolvePromise) => {
    // Own process group, so a timeout ends `time` and the node process under it together.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? 1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), timedOut });
    });
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').filter((l) => !/^\s+(Command being timed|User time|System time|Percent|Elapsed|Average|Maximum|Major|Minor|Voluntary|Involuntary|Swaps|File system|Socket|Signals|Page size|Exit status)/.test(l)).slice(-3).join(' | ');
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

await main();
