import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigSchema, type ConfigInput } from '../src/config/schema.js';
import { createRepoIndex } from '../src/repo-index/repo-index.js';
import { ensureGloveModel } from '../src/scoring/semantic/glove-model.js';
import { bpeTablePath, writeBpeTable } from '../src/tokenize/bpe-table.js';
import { silentReporter } from '../src/util/reporter.js';

/**
 * The persistent index on real public repositories, side by side with repomix in the same run:
 * `node dist/bench/repos-bench.js` (also run by `npm run bench`). AIWG_BENCH_REPOS names git
 * work trees, comma-separated (e.g. clones of vitejs/vite and babel/babel); a missing one is
 * skipped with a line saying how to provide it, so the bench runs anywhere. Each aiwg run is a
 * fresh process with the default config and AIWG_CACHE_DIR on a fresh directory, into which the
 * default embedding model and the tokenizer's table are built first and timed on their own (a
 * once-per-machine cost, kept beside the models): cold (the
 * first run on the repository: no facts, summaries or embeddings), warm (median of WARM_RUNS, the
 * same task; and the median of three tasks it has not seen, as an agent's calls are), new
 * checkouts of the repository 1, 5 and 20 commits back (`git worktree add`, each with a copy of the
 * warm cache: facts are reused by blob id, so each pays for the files it changes; the median of
 * CHECKOUT_RUNS, each in a new worktree), and the server mode (one
 * in-process warm index, p50 of queries with different tasks, plus a query after a one-file
 * edit). repomix packs the same tree (its second run, page cache warm). AIWG_BENCH_ABLATE=1 adds
 * what a checkout's extra time is made of (ABLATIONS). Nothing is asserted.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PROJECT, 'bin', 'aiwg.js');
const REPOMIX = join(PROJECT, 'node_modules', 'repomix', 'bin', 'repomix.cjs');
const WARM_RUNS = 3;
/** Commits back for the "new checkout at another commit" runs (each from a copy of the warm cache); the table shows the last. */
const CHECKOUTS_BACK = [1, 5, 20] as const;
/** Runs per checkout distance, each in a new worktree from a new copy of the warm cache: the figure is their median (one run varied by ~0.2 s on babel). */
const CHECKOUT_RUNS = 3;
const TASKS = [
  'fix the css preprocessing of sass imports in the dev server',
  'the plugin transform hook gets the wrong source map',
  'add an option to skip type checking of decorators',
  'hot module reload loses state when a module throws',
  'parse error on optional chaining inside template literals',
  'log a warning when the config file has an unknown key',
  'the watcher misses files created inside a symlinked directory',
  'support a custom resolver for bare module specifiers',
  'memory leak when the cache is cleared during a rebuild',
  'error message points at the wrong line for a syntax error in a nested file',
  'add a flag to print the resolved configuration as json',
  'retry the request when the connection is reset by the server',
];

/** Tasks for warm runs that ask something new (the usual agent call): each is embedded for the first time. */
const NEW_TASKS = [
  'the cli ignores the port option when a config file sets host',
  'source maps point one line off after a banner comment is added',
  'a circular import between two plugins hangs the build',
];

/**
 * With AIWG_BENCH_ABLATE=1: what a checkout's extra time over a warm run is made of. Each
 * variant turns off per-file work (a config and flags), warms its own copy of the warm cache
 * under it, and is timed warm and in new worktrees FARTHEST_BACK commits back (medians of
 * WARM_RUNS and CHECKOUT_RUNS).
 */
const ABLATIONS: ReadonlyArray<{ name: string; config: ConfigInput; args: readonly string[] }> = [
  { name: 'default', config: {}, args: [] },
  { name: 'no embeddings (--scoring keyword)', config: {}, args: ['--scoring', 'keyword'] },
  { name: 'no levels (summarization.enabled: false)', config: { summarization: { enabled: false } }, args: [] },
  { name: 'no secret scan (collect.include_secrets: true)', config: { collect: { include_secrets: true } }, args: [] },
  { name: 'all three off', config: { summarization: { enabled: false }, collect: { include_secrets: true } }, args: ['--scoring', 'keyword'] },
];
/** The farthest checkout distance: the main table's checkout column, and the ablations'. */
const FARTHEST_BACK = Math.max(...CHECKOUTS_BACK);

/** Wall clock and CPU time (user + sys) of one measurement, seconds. */
interface Timed {
  seconds: number;
  cpu: number;
}

/** What one aiwg run's record says: its stage timings (ms), the paths its context shows, and whether it read a path. */
interface RunRecord {
  stages: Record<string, number>;
  shown: Set<string>;
  /** Whether the run read and analysed `path` (false for what it excluded unscored: path rules, binary, lockfile, too large, a dependency directory). */
  analysed: (path: string) => boolean;
}

/**
 * What a cold run spends beyond what a warm run spends, per MB (10^6 bytes) of content, ms:
 * `analysed`, of the content it reads and analyses (collect and score: facts, the secret scan,
 * embeddings); `rendered`, of the files its context shows (summarize: their levels and token
 * counts). Both scale with content, not with the count of files. A checkout whose new content
 * cost what a cold run's content costs would take warm + its new analysed MB x analysed + its
 * new shown MB x rendered: the cold-rate estimate beside each measured checkout.
 */
interface ColdRates {
  analysed: number;
  rendered: number;
}

/** The size in bytes of every file of `rev`'s tree (`git ls-tree -l`). */
function treeSizes(root: string, rev: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const listing = execFileSync('git', ['ls-tree', '-r', '-l', '-z', rev], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  for (const entry of listing.split('\0')) {
    // <mode> <type> <object> <size>\t<path>; a submodule's size is '-'
    const tab = entry.indexOf('\t');
    const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
    if (tab > 0 && Number.isFinite(size)) sizes.set(entry.slice(tab + 1), size);
  }
  return sizes;
}

/** MB of `paths` (sizes from treeSizes) that `keep` keeps. */
function megabytes(paths: Iterable<string>, sizes: ReadonlyMap<string, number>, keep: (path: string) => boolean): number {
  let bytes = 0;
  for (const path of paths) if (keep(path)) bytes += sizes.get(path) ?? 0;
  return bytes / 1e6;
}

interface RepoFigures {
  name: string;
  files: number;
  /** The default embedding model and the o200k table built into the fresh cache first: once per machine (or cache.dir), not per repository. */
  modelBuild: Timed;
  cold: Timed;
  coldPeakMB: number;
  warm: Timed;
  /** Every warm run in order: the first one right after the cold run shows any first-warm-run anomaly. */
  warmRuns: Timed[];
  /** Warm runs with a task the cache has not seen (median of NEW_TASKS). */
  warmNewTask: Timed;
  checkout: Timed | null;
  /**
   * Every checkout distance: commits back, files that differ from HEAD, the checkout's files
   * whose content HEAD lacks and how many of those the (median) run's context shows, the run.
   */
  checkouts: Array<{ back: number; changed: number; newContent: number; newShown: number; newMB: number; newShownMB: number; run: Timed }>;
  coldRates: ColdRates;
  /** Server mode: wall and CPU of this process per query. */
  serverP50: Timed;
  /** Every server query in order (a new task each; the first loads the embedding model). */
  serverRuns: Timed[];
  serverAfterEdit: Timed;
  repomix: Timed | null;
  load: string;
  /** AIWG_BENCH_ABLATE=1 only: per variant, warm and FARTHEST_BACK-back checkout medians (null when a run failed). */
  ablations: Array<{ warm: Timed; checkout: Timed } | null>;
}

function load(): string {
  return loadavg().map((l) => l.toFixed(1)).join(' ');
}

/**
 * One process under /usr/bin/time: wall seconds, CPU seconds (user + sys, children included) and
 * peak RSS (MB). The bench's own writes (a copied cache, a checked-out worktree) are flushed to
 * disk first (`sync`), so the timed process does not share the disk with their writeback.
 */
function timedProcess(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }): Timed & { peakMB: number; status: number | null; stdout: string; stderr: string } {
  spawnSync('sync', [], { stdio: 'ignore' });
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', 'AIWG_BENCH_TIME %U %S %M', ...args], { ...options, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  const line = run.stderr.trim().split('\n').pop() ?? '';
  const [, user, sys, peakKB] = line.split(' ').map(Number);
  return { seconds, cpu: (user ?? 0) + (sys ?? 0), peakMB: Math.round((peakKB ?? 0) / 1024), status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** One aiwg process: wall and CPU seconds, peak RSS (MB) and what its record says. */
function aiwg(root: string, cacheDir: string, task: string, args: readonly string[] = []): Timed & { peakMB: number; record: RunRecord } {
  const run = timedProcess([process.execPath, BIN, 'context-budget', task, '--json', '--no-record', ...args], {
    cwd: root,
    env: { ...process.env, AIWG_CACHE_DIR: cacheDir },
  });
  if (run.status !== 0) throw new Error(`aiwg failed in ${root}: ${run.stderr.slice(-400)}`);
  return { seconds: run.seconds, cpu: run.cpu, peakMB: run.peakMB, record: runRecord(run.stdout) };
}

/** What a `--json` record says (RunRecord). */
function runRecord(stdout: string): RunRecord {
  const record = JSON.parse(stdout) as {
    timings_ms: Record<string, number>;
    allocation: Record<string, { files: Array<{ path: string }> }>;
    excluded: Array<{ path: string; relevance_score: number | null }>;
  };
  const shown = new Set<string>();
  for (const tier of Object.values(record.allocation)) for (const file of tier.files) shown.add(file.path);
  // excluded before scoring: a file, or a directory (a trailing '/') and all below it
  const unread = new Set<string>();
  const unreadDirs: string[] = [];
  for (const entry of record.excluded) {
    if (entry.relevance_score !== null) continue;
    if (entry.path.endsWith('/')) unreadDirs.push(entry.path);
    else unread.add(entry.path);
  }
  return { stages: record.timings_ms, shown, analysed: (path) => !unread.has(path) && !unreadDirs.some((dir) => path.startsWith(dir)) };
}

/** ColdRates from a cold run and a warm run of the same task on a tree whose file sizes are `sizes`. */
function coldRates(cold: RunRecord, warm: RunRecord, sizes: ReadonlyMap<string, number>): ColdRates {
  const stage = (r: RunRecord, name: string) => r.stages[name] ?? 0;
  const analysis = (r: RunRecord) => stage(r, 'collect') + stage(r, 'score');
  // per MB; 0 for a tree with nothing read or shown
  const per = (ms: number, mb: number) => (mb > 0 ? ms / mb : 0);
  return {
    analysed: per(analysis(cold) - analysis(warm), megabytes(sizes.keys(), sizes, cold.analysed)),
    rendered: per(stage(cold, 'summarize') - stage(warm, 'summarize'), megabytes(cold.shown, sizes, () => true)),
  };
}

/** The cold-rate estimate of a checkout with `newMB` of new content read, `newShownMB` of it in its context, seconds (ColdRates). */
function coldRateEstimate(warm: Timed, rates: ColdRates, newMB: number, newShownMB: number): number {
  return warm.seconds + (newMB * rates.analysed + newShownMB * rates.rendered) / 1000;
}

function repomix(root: string): Timed | null {
  if (!existsSync(REPOMIX)) return null;
  const out = join(mkdtempSync(join(tmpdir(), 'aiwg-repomix-')), 'out.xml');
  let last: Timed | null = null;
  for (let i = 0; i < 2; i++) {
    const run = timedProcess([process.execPath, REPOMIX, root, '--output', out, '--quiet'], {});
    if (run.status !== 0) return null;
    last = timesOf(run);
  }
  rmSync(dirname(out), { recursive: true, force: true });
  return last;
}

/** Just the times of a measurement (a run's record left behind). */
function timesOf({ seconds, cpu }: Timed): Timed {
  return { seconds, cpu };
}

/** The median by wall clock (its CPU time alongside). */
function median<T extends Timed>(values: T[]): T {
  const sorted = [...values].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}

/** Wall and CPU (this process: user + sys) of an in-process step. */
async function timedHere(fn: () => Promise<unknown>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

async function benchRepo(root: string): Promise<RepoFigures> {
  const name = root.split('/').filter(Boolean).pop() as string;
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).split('\n').filter(Boolean).length;
  const cacheDir = mkdtempSync(join(tmpdir(), `aiwg-bench-cache-${name}-`));
  const startLoad = load();
  try {
    const modelBuild = await timedHere(async () => {
      await ensureGloveModel({ cacheDir, reporter: silentReporter() });
      await writeBpeTable(bpeTablePath(cacheDir, 'o200k'), 'o200k');
    });
    const cold = aiwg(root, cacheDir, TASKS[0] as string);
    const warmRuns = Array.from({ length: WARM_RUNS }, () => aiwg(root, cacheDir, TASKS[0] as string));
    const warm = median(warmRuns);
    const warmNewTask = timesOf(median(NEW_TASKS.map((task) => aiwg(root, cacheDir, task))));

    const checkouts: RepoFigures['checkouts'] = [];
    /**
     * One run in a new worktree `back` commits back, from its own copy of a warm cache (`from`,
     * default the run's: so it pays for exactly the files it changes); null when the history is
     * shorter or the run failed.
     */
    const checkoutRun = (back: number, from = cacheDir, args: readonly string[] = []): (Timed & { record: RunRecord }) | null => {
      const worktree = join(mkdtempSync(join(tmpdir(), `aiwg-bench-checkout-${name}-`)), name);
      const cacheCopy = `${from}-checkout-${back}`;
      try {
        cpSync(from, cacheCopy, { recursive: true });
        execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree, `HEAD~${back}`], { cwd: root, stdio: 'ignore' });
        return aiwg(worktree, cacheCopy, TASKS[0] as string, args);
      } catch {
        return null;
      } finally {
        spawnSync('git', ['worktree', 'remove', '--force', worktree], { cwd: root, stdio: 'ignore' });
        rmSync(dirname(worktree), { recursive: true, force: true });
        rmSync(cacheCopy, { recursive: true, force: true });
      }
    };
    for (const back of CHECKOUTS_BACK) {
      const runs = Array.from({ length: CHECKOUT_RUNS }, () => checkoutRun(back));
      if (runs.some((run) => run === null)) continue;
      const changed = execFileSync('git', ['diff', '--name-only', `HEAD~${back}`, 'HEAD'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean).length;
      // the checkout's own paths whose content HEAD does not have (not those it lacks): what it pays for
      const newContent = execFileSync('git', ['diff', '--name-only', '--diff-filter=d', 'HEAD', `HEAD~${back}`], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
      const run = median(runs as Array<Timed & { record: RunRecord }>);
      const shown = (path: string) => run.record.shown.has(path);
      const sizes = treeSizes(root, `HEAD~${back}`);
      checkouts.push({
        back,
        changed,
        newContent: newContent.length,
        newShown: newContent.filter(shown).length,
        newMB: megabytes(newContent, sizes, run.record.analysed),
        newShownMB: megabytes(newContent, sizes, shown),
        run: timesOf(run),
      });
    }
    const checkout = checkouts.find((c) => c.back === FARTHEST_BACK)?.run ?? null;

    /** One variant of ABLATIONS: a copy of the warm cache, warmed twice under the variant, then timed warm and in new checkouts. */
    const ablation = (variant: (typeof ABLATIONS)[number]): RepoFigures['ablations'][number] => {
      const from = `${cacheDir}-ablation`;
      const configFile = join(mkdtempSync(join(tmpdir(), 'aiwg-bench-ablation-')), 'config.yaml');
      try {
        cpSync(cacheDir, from, { recursive: true });
        // JSON is YAML: the config file the variant names
        writeFileSync(configFile, JSON.stringify(variant.config));
        const args = ['--config', configFile, ...variant.args];
        for (let i = 0; i < 2; i++) aiwg(root, from, TASKS[0] as string, args);
        const warm = median(Array.from({ length: WARM_RUNS }, () => aiwg(root, from, TASKS[0] as string, args)));
        const runs = Array.from({ length: CHECKOUT_RUNS }, () => checkoutRun(FARTHEST_BACK, from, args));
        if (runs.some((run) => run === null)) throw new Error(`a checkout ${FARTHEST_BACK} commits back failed`);
        return { warm, checkout: median(runs as Timed[]) };
      } catch (error) {
        console.error(`ablation "${variant.name}" on ${name}: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      } finally {
        rmSync(from, { recursive: true, force: true });
        rmSync(dirname(configFile), { recursive: true, force: true });
      }
    };
    const ablations = process.env.AIWG_BENCH_ABLATE === '1' ? ABLATIONS.map(ablation) : [];

    const index = createRepoIndex({ root, config: ConfigSchema.parse({ cache: { dir: cacheDir } }) });
    await index.query({ task: TASKS[0] as string });
    const latencies: Timed[] = [];
    for (const task of TASKS.slice(1)) latencies.push(await timedHere(() => index.query({ task })));
    // one edit between queries: appended, measured, restored
    const edited = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean)[0] ?? 'README.md';
    const editedPath = join(root, edited);
    const original = readFileSync(editedPath);
    let serverAfterEdit: Timed = { seconds: 0, cpu: 0 };
    try {
      appendFileSync(editedPath, '\nA note on sass imports in the dev server.\n');
      serverAfterEdit = await timedHere(() => index.query({ task: TASKS[0] as string }));
    } finally {
      writeFileSync(editedPath, original);
    }
    await index.close();

    return {
      name,
      files,
      modelBuild,
      cold: timesOf(cold),
      coldPeakMB: cold.peakMB,
      warm: timesOf(warm),
      warmRuns: warmRuns.map(timesOf),
      warmNewTask,
      checkout,
      checkouts,
      coldRates: coldRates(cold.record, warm.record, treeSizes(root, 'HEAD')),
      serverP50: median(latencies),
      serverRuns: latencies,
      serverAfterEdit,
      repomix: repomix(root),
      load: `${startLoad} -> ${load()}`,
      ablations,
    };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

function table(rows: RepoFigures[]): string {
  const s = (t: Timed) => `${t.seconds.toFixed(2)} (${t.cpu.toFixed(2)})`;
  const ms = (t: Timed) => `${Math.round(t.seconds * 1000)} (${Math.round(t.cpu * 1000)})`;
  const lines = [
    'Each figure: wall clock (CPU time, user + sys, in brackets). The machine is shared, so CPU time is the steadier figure.',
    '',
    '| repository (tracked files) | embedding model and tokenizer table build, once per machine s | cold s, first run on the repository (files/s, peak MB) | warm s (median of 3) | warm runs in order, s | warm, new task s (median of 3) | new checkout 20 commits back s, median of 3 (x warm) | server p50 ms | server after 1-file edit ms | repomix s | repomix / warm (wall, CPU) | load average (1/5/15, start -> end) |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows) {
    const ratio = (a: Timed, b: Timed) => `${(a.seconds / b.seconds).toFixed(2)}x, ${(a.cpu / b.cpu).toFixed(2)}x`;
    lines.push(
      `| ${r.name} (${r.files.toLocaleString('en-US')}) | ${s(r.modelBuild)} | ${s(r.cold)} (${Math.round(r.files / r.cold.seconds)}, ${r.coldPeakMB}) | ${s(r.warm)} | ${r.warmRuns.map(s).join(' / ')} | ${s(r.warmNewTask)} | ${r.checkout === null ? 'n/a' : `${s(r.checkout)} (${ratio(r.checkout, r.warm)})`} | ${ms(r.serverP50)} | ${ms(r.serverAfterEdit)} | ${r.repomix === null ? 'n/a' : s(r.repomix)} | ${r.repomix === null ? 'n/a' : ratio(r.repomix, r.warm)} | ${r.load} |`,
    );
  }
  lines.push('');
  for (const r of rows) {
    const shown = r.checkouts.map((c) => `${c.back} back, ${c.changed} files changed: ${s(c.run)} (${(c.run.seconds / r.warm.seconds).toFixed(2)}x warm)`);
    lines.push(`New checkouts (median of ${CHECKOUT_RUNS} each), ${r.name}: ${shown.join(' / ')}`);
  }
  if (rows.some((r) => r.checkouts.length > 0)) {
    lines.push(
      '',
      "Each checkout beside its cold-rate estimate: warm + what the cold run spent, beyond a warm run, per MB of the content it analysed (collect and score) and per MB of the files its context showed (summarize), times the checkout's new content (its files whose content HEAD lacks, those it read, and those of them its context shows).",
      '',
      '| repository | back | files with new content (MB read) | of them shown (MB) | cold rate ms per MB analysed, per MB shown | measured s (x warm) | cold-rate estimate s (x warm) | measured / estimate |',
      '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
    );
    for (const r of rows) {
      for (const c of r.checkouts) {
        const estimate = coldRateEstimate(r.warm, r.coldRates, c.newMB, c.newShownMB);
        lines.push(
          `| ${r.name} | ${c.back} | ${c.newContent} (${c.newMB.toFixed(2)}) | ${c.newShown} (${c.newShownMB.toFixed(2)}) | ${Math.round(r.coldRates.analysed)}, ${Math.round(r.coldRates.rendered)} | ${c.run.seconds.toFixed(2)} (${(c.run.seconds / r.warm.seconds).toFixed(2)}x) | ${estimate.toFixed(2)} (${(estimate / r.warm.seconds).toFixed(2)}x) | ${(c.run.seconds / estimate).toFixed(2)} |`,
        );
      }
    }
    lines.push('');
  }
  for (const r of rows) lines.push(`Server queries in order, ${r.name}, ms: ${r.serverRuns.map(ms).join(' / ')}`);
  if (rows.some((r) => r.ablations.length > 0)) {
    lines.push(
      '',
      `What a checkout's extra time is made of (AIWG_BENCH_ABLATE=1): each variant warmed on its own copy of the warm cache, medians of ${WARM_RUNS} warm runs and ${CHECKOUT_RUNS} checkouts ${FARTHEST_BACK} commits back.`,
      '',
      '| repository | variant | warm s | checkout s | extra over warm s | x warm |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
    );
    for (const r of rows) {
      r.ablations.forEach((a, i) => {
        const variant = ABLATIONS[i]!.name;
        lines.push(a === null ? `| ${r.name} | ${variant} | n/a | n/a | n/a | n/a |` : `| ${r.name} | ${variant} | ${s(a.warm)} | ${s(a.checkout)} | ${(a.checkout.seconds - a.warm.seconds).toFixed(2)} | ${(a.checkout.seconds / a.warm.seconds).toFixed(2)}x |`);
      });
    }
  }
  if (rows.length >= 2) {
    const [a, b] = [rows[0] as RepoFigures, rows[rows.length - 1] as RepoFigures];
    const k = (x: number, y: number) => (Math.log(y / x) / Math.log(b.files / a.files)).toFixed(2);
    lines.push('', `Growth ${a.files} -> ${b.files} files (CPU time ~ files^k): cold k = ${k(a.cold.cpu, b.cold.cpu)}, warm k = ${k(a.warm.cpu, b.warm.cpu)}, server p50 k = ${k(a.serverP50.cpu, b.serverP50.cpu)}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const listed = (process.env.AIWG_BENCH_REPOS ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  console.log('## Persistent index on public repositories, with repomix in the same run\n');
  if (listed.length === 0) {
    console.log('skipped: no repositories. Set AIWG_BENCH_REPOS=/path/to/vite,/path/to/babel (git work trees, e.g. `git clone https://github.com/vitejs/vite`) to run it.');
    return;
  }
  const rows: RepoFigures[] = [];
  for (const root of listed) {
    if (!existsSync(join(root, '.git'))) {
      console.log(`skipped ${root}: not a git work tree. Clone the repository there, or drop it from AIWG_BENCH_REPOS.`);
      continue;
    }
    rows.push(await benchRepo(resolve(root)));
  }
  if (rows.length > 0) console.log(table(rows));
}

await main();
