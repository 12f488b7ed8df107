import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildBenchRepo } from './build-repo.js';

/**
 * `node dist/bench/mcp-bench.js`: per-query latency of `aiwg mcp` against a fresh CLI process per
 * query, on the 1,000-file benchmark repository (bench/build-repo.ts). One server, driven by the
 * SDK client over stdio: the first context_budget call (the server's caches cold in memory, the
 * disk caches as a previous run left them), warm calls with nothing changed, and calls right
 * after a file was edited. Keyword scoring, so the figures measure the server, not the one-time
 * embedding model build. Prints Markdown.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PROJECT, 'bin', 'aiwg.js');
const SIZE = 1000;
const WARM_CALLS = 7;
const EDIT_CALLS = 3;
const CLI_RUNS = 3;
const BUDGET = 16_000;
const TASK = 'fix the retry backoff in the http request timeout handling and log the failed attempts';

async function main(): Promise<void> {
  // The repository run-bench.ts builds (same place, same AIWG_BENCH_DIR), reused when present.
  const repo = await buildBenchRepo({ dir: join(process.env.AIWG_BENCH_DIR ?? join(tmpdir(), 'aiwg-bench-repos'), String(SIZE)), count: SIZE, nodeModules: join(PROJECT, 'node_modules') });
  const env = Object.fromEntries(Object.entries({ ...process.env, AIWG_SCORING_METHOD: 'keyword', NO_COLOR: '1' }).filter((e): e is [string, string] => typeof e[1] === 'string'));

  const cli: number[] = [];
  const run = promisify(execFile);
  for (let i = 0; i < CLI_RUNS; i++) {
    cli.push(await timed(() => run(process.execPath, [BIN, 'context-budget', TASK, '--root', repo.root, '--max-tokens', String(BUDGET + 10_000), '--no-record', '--output', '-'], { env, maxBuffer: 1 << 28 })));
  }

  const startedAt = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', repo.root], env, stderr: 'ignore' });
  const client = new Client({ name: 'aiwg-mcp-bench', version: '1.0.0' });
  await client.connect(transport);
  const startMs = performance.now() - startedAt;
  const serverPid = transport.pid;
  const cpuMs: Record<'first' | 'warm' | 'edited', number[]> = { first: [], warm: [], edited: [] };
  const query = async (kind: keyof typeof cpuMs = 'warm'): Promise<number> => {
    const cpuBefore = processCpuMs(serverPid);
    const ms = await timed(async () => {
      const result = (await client.callTool({ name: 'context_budget', arguments: { task: TASK, budget: BUDGET, record: false } })) as CallToolResult;
      if (result.isError === true) throw new Error(JSON.stringify(result.content));
    });
    cpuMs[kind].push(processCpuMs(serverPid) - cpuBefore);
    return ms;
  };

  const first = await query('first');
  const warm: number[] = [];
  for (let i = 0; i < WARM_CALLS; i++) warm.push(await query());
  const edited: number[] = [];
  const { stdout: tracked } = await run('git', ['ls-files'], { cwd: repo.root, maxBuffer: 1 << 28 });
  const target = join(repo.root, tracked.split('\n').find((p) => p.endsWith('.ts')) ?? tracked.split('\n')[0] ?? 'README.md');
  for (let i = 0; i < EDIT_CALLS; i++) {
    await appendFile(target, `\n// edited by mcp-bench ${Date.now()} ${i}\n`);
    edited.push(await query('edited'));
  }
  await client.close();

  const row = (label: string, values: number[], cpu?: number[]) =>
    `| ${label} | ${values.length} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)} | ${Math.max(...values).toFixed(0)} | ${cpu === undefined || cpu.length === 0 ? 'n/a' : median(cpu).toFixed(0)} |`;
  const out = [
    `## aiwg mcp: per-query latency (${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}; ${repo.files} files; keyword scoring; budget ${BUDGET})`,
    '',
    '| query | n | median ms | min ms | max ms | server CPU ms (user + sys, median) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('CLI: fresh `aiwg context-budget --output -` process per query', cli),
    row('MCP: first context_budget call of the server', [first], cpuMs.first),
    row('MCP: warm call, nothing changed', warm, cpuMs.warm),
    row('MCP: call right after a file was edited', edited, cpuMs.edited),
    '',
    `Server start to initialized: ${startMs.toFixed(0)} ms. The server answers on one long-lived process: config, tokenizer and cache layers stay loaded.`,
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** CPU time (user + sys) a process has used so far, ms, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th, in clock ticks (100 Hz).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

await main();
