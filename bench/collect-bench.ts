import { execFile } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { simpleGit } from 'simple-git';
import { buildBenchRepo } from './build-repo.js';
import { createCollectStage } from '../src/collect/collect-files.js';
import { defaultConfig } from '../src/config/schema.js';
import { createChars4Tokenizer } from '../src/tokenize/tokenizer.js';
import { silentReporter } from '../src/util/reporter.js';
import type { RunContext } from '../src/types.js';

/**
 * `node dist/bench/collect-bench.js`: the collect stage alone on the benchmark repositories
 * (bench/build-repo.ts: real source text, 300 commits of history; built once under the OS temp dir). Per size: the first run in
 * this process and the median of warm runs, wall and in-process CPU time (git's own CPU is in
 * child processes and not counted), files read per second. Then `git ls-files` through
 * execFile and through simple-git, the choice collect-ports.ts documents. Prints Markdown.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SIZES = [1000, 5000, 20000];
const WARM_RUNS = 7;
const GIT_RUNS = 15;

async function main(): Promise<void> {
  const ctx: RunContext = { config: defaultConfig(), tokenizer: createChars4Tokenizer(), reporter: silentReporter(), nowMs: Date.now(), warnings: [] };
  const rows: string[] = [];
  let gitRoot = '';
  for (const size of SIZES) {
    // Outside the project: tsconfig compiles bench/**/*.ts, and these repositories hold real .ts sources.
    const repo = await buildBenchRepo({ dir: join(tmpdir(), 'aiwg-collect-bench', String(size)), count: size, nodeModules: join(PROJECT, 'node_modules') });
    if (size === 5000) gitRoot = repo.root;
    const collect = createCollectStage();
    const first = await measure(() => collect({ root: repo.root }, ctx));
    const warm: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let i = 0; i < WARM_RUNS; i++) warm.push(await measure(() => collect({ root: repo.root }, ctx)));
    const wall = median(warm.map((w) => w.wallMs));
    const cpu = median(warm.map((w) => w.cpuMs));
    const result = await collect({ root: repo.root }, ctx);
    rows.push(
      `| ${size} | ${result.files.length} | ${result.excluded.length} | ${result.git.lastCommitMs.size} | ${first.wallMs.toFixed(0)} | ${wall.toFixed(0)} | ${cpu.toFixed(0)} | ${Math.round(result.files.length / (wall / 1000))} |`,
    );
  }

  const run = promisify(execFile);
  const exec = median(await repeat(GIT_RUNS, () => run('git', ['ls-files', '-z', '--cached'], { cwd: gitRoot, maxBuffer: 1 << 28 })));
  const git = simpleGit(gitRoot);
  const viaSimpleGit = median(await repeat(GIT_RUNS, () => git.raw(['ls-files', '-z', '--cached'])));

  const out = [
    `## collect stage (${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)})`,
    '',
    '| repo files | candidates | excluded | commit times | first run ms | warm median ms | warm node CPU ms | files/s warm |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `git ls-files on ${gitRoot.split('/').pop()} files, median of ${GIT_RUNS}: execFile ${exec.toFixed(1)} ms, simple-git ${viaSimpleGit.toFixed(1)} ms`,
    '',
  ];
  process.stdout.write(out.join('\n'));
}

async function measure(fn: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

async function repeat(times: number, fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await fn();
    ms.push(performance.now() - started);
  }
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

await main();
