import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile, lstat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { EXCLUDED_DIRS } from '../src/collect/exclusion-rules.js';

/**
 * Benchmark repositories built from real source text: the installed packages' sources under
 * node_modules first (.ts/.js/.d.ts/.md/.json and their module variants), then, because
 * node_modules holds only about 8,000 such files, the system's Python standard library and
 * C headers, then (only if still short) copies of package files under `copies/<k>/` with a
 * first line naming the copy so no two files share content. Selection is deterministic: each
 * pool is ordered by the sha1 of its path, so a smaller repository is a prefix of a larger one.
 *
 * The history is written with one `git fast-import` stream (not a process per commit): the
 * files are added over HISTORY_ADD_COMMITS commits, then HISTORY_EDIT_COMMITS commits each edit
 * three files. Dates are fixed, one hour apart from FIRST_COMMIT_S.
 */

export interface PoolFile {
  /** Path inside the benchmark repository. */
  repoPath: string;
  /** Where the text comes from on this machine. */
  sourcePath: string;
}

export interface BuiltRepo {
  root: string;
  files: number;
  commits: number;
  bytes: number;
  /** Files per pool: npm, python, include, copies. */
  pools: Record<string, number>;
  /** Seconds spent building (0 when reused). */
  buildSeconds: number;
  reused: boolean;
}

const FORMAT_VERSION = 2;
const HISTORY_ADD_COMMITS = 200;
const HISTORY_EDIT_COMMITS = 100;
const EDITS_PER_COMMIT = 3;
const FIRST_COMMIT_S = Date.UTC(2025, 0, 1) / 1000;
const MAX_FILE_BYTES = 100_000;
const MIN_FILE_BYTES = 64;
const NPM_EXTENSIONS = /\.(ts|js|mjs|cjs|mts|cts|md|json)$/;
const SYSTEM_POOLS: Array<{ name: string; dir: string; pattern: RegExp }> = [
  { name: 'python', dir: '/usr/lib/python3.11', pattern: /\.py$/ },
  { name: 'python', dir: '/usr/lib/python3/dist-packages', pattern: /\.py$/ },
  { name: 'include', dir: '/usr/include', pattern: /\.(h|hpp)$/ },
];

/** Every usable source file of the pools, each pool in sha1-of-path order. */
export async function sourcePool(nodeModules: string): Promise<Array<PoolFile & { pool: string }>> {
  const pool: Array<PoolFile & { pool: string }> = [];
  const npm = await listFiles(nodeModules, NPM_EXTENSIONS);
  pool.push(...byHash(npm).map((p) => ({ pool: 'npm', sourcePath: p, repoPath: `npm/${safePath(relative(nodeModules, p))}` })));
  for (const system of SYSTEM_POOLS) {
    if (!existsSync(system.dir)) continue;
    const files = await listFiles(system.dir, system.pattern);
    pool.push(...byHash(files).map((p) => ({ pool: system.name, sourcePath: p, repoPath: `${system.name}/${safePath(relative(system.dir, p))}` })));
  }
  return pool;
}

/**
 * Build (or reuse, when `dir` holds a repository of this size and format) a repository of
 * `count` files with a generated history.
 */
export async function buildBenchRepo(options: { dir: string; count: number; nodeModules: string }): Promise<BuiltRepo> {
  const { dir, count } = options;
  const marker = join(dir, '.git', 'aiwg-bench.json');
  if (existsSync(marker)) {
    const meta = JSON.parse(await readFile(marker, 'utf8')) as BuiltRepo & { format: number };
    if (meta.format === FORMAT_VERSION && meta.files === count) return { ...meta, root: dir, reused: true, buildSeconds: 0 };
  }
  const started = performance.now();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const chosen = await chooseFiles(await sourcePool(options.nodeModules), count);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  const bytes = await fastImport(dir, chosen);
  execFileSync('git', ['reset', '-q', '--hard', 'main'], { cwd: dir });
  const pools: Record<string, number> = {};
  for (const file of chosen) pools[file.pool] = (pools[file.pool] ?? 0) + 1;
  const built: BuiltRepo = {
    root: dir,
    files: chosen.length,
    commits: HISTORY_ADD_COMMITS + HISTORY_EDIT_COMMITS,
    bytes,
    pools,
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    reused: false,
  };
  await writeFile(marker, JSON.stringify({ ...built, format: FORMAT_VERSION }));
  return built;
}

interface ChosenFile {
  pool: string;
  repoPath: string;
  content: Buffer;
}

/** The first `count` readable, human-written files of the pool; copies fill any shortfall. */
async function chooseFiles(pool: Array<PoolFile & { pool: string }>, count: number): Promise<ChosenFile[]> {
  const chosen: ChosenFile[] = [];
  const seenPaths = new Set<string>();
  const seenContent = new Set<string>();
  for (const file of pool) {
    if (chosen.length >= count) break;
    const content = await readFile(file.sourcePath).catch(() => undefined);
    if (!content || !isHumanText(content) || seenPaths.has(file.repoPath)) continue;
    const digest = createHash('sha1').update(content).digest('hex');
    if (seenContent.has(digest)) continue; // identical files would make content-addressed caches look better
    seenPaths.add(file.repoPath);
    seenContent.add(digest);
    chosen.push({ pool: file.pool, repoPath: file.repoPath, content });
  }
  const originals = chosen.filter((f) => f.pool === 'npm' && /\.(ts|js|mjs|cjs)$/.test(f.repoPath));
  for (let k = 1; chosen.length < count && originals.length > 0; k += 1) {
    for (const file of originals) {
      if (chosen.length >= count) break;
      const content = Buffer.concat([Buffer.from(`// benchmark copy ${k} of ${file.repoPath}\n`), file.content]);
      chosen.push({ pool: 'copies', repoPath: `copies/${k}/${file.repoPath}`, content });
    }
  }
  return chosen;
}

/** Write the whole history with one fast-import process. Returns the bytes of the final tree. */
async function fastImport(dir: string, files: ChosenFile[]): Promise<number> {
  const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const write = async (data: string | Buffer) => {
    if (!child.stdin.write(data)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  };
  const current = files.map((f) => f.content);
  let mark = 0;
  const commit = async (message: string, changes: number[]) => {
    mark += 1;
    const when = FIRST_COMMIT_S + mark * 3600;
    const msg = Buffer.from(message);
    await write(`commit refs/heads/main\nmark :${mark}\nauthor Bench <bench@example.com> ${when} +0000\ncommitter Bench <bench@example.com> ${when} +0000\ndata ${msg.length}\n`);
    await write(Buffer.concat([msg, Buffer.from('\n')]));
    for (const i of changes) {
      const content = current[i] as Buffer;
      await write(`M 100644 inline ${(files[i] as ChosenFile).repoPath}\ndata ${content.length}\n`);
      await write(Buffer.concat([content, Buffer.from('\n')]));
    }
  };
  for (let c = 0; c < HISTORY_ADD_COMMITS; c += 1) {
    const batch = files.map((_, i) => i).filter((i) => i % HISTORY_ADD_COMMITS === c);
    await commit(`Add ${batch.length} files (batch ${c + 1})`, batch);
  }
  const editable = files.map((f, i) => i).filter((i) => !(files[i] as ChosenFile).repoPath.endsWith('.json'));
  for (let c = 0; c < HISTORY_EDIT_COMMITS; c += 1) {
    const picks = [...new Set(Array.from({ length: EDITS_PER_COMMIT }, (_, k) => editable[hashInt(`${c}:${k}`) % editable.length] as number))];
    for (const i of picks) current[i] = Buffer.concat([current[i] as Buffer, Buffer.from(`\n${commentFor((files[i] as ChosenFile).repoPath)} revision ${c + 1}\n`)]);
    await commit(`Update ${picks.map((i) => (files[i] as ChosenFile).repoPath.split('/').pop()).join(', ')}`, picks);
  }
  await write('done\n');
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import failed in ${dir}: ${stderr.trim()}`);
  return current.reduce((sum, c) => sum + c.length, 0);
}

async function listFiles(root: string, pattern: RegExp): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile() && pattern.test(entry.name)) {
        const info = await lstat(abs);
        if (info.size >= MIN_FILE_BYTES && info.size <= MAX_FILE_BYTES) out.push(abs);
      }
    }
  };
  await walk(root);
  return out;
}

/** Minified bundles and binary blobs are not what repositories are made of. */
function isHumanText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  const text = content.toString('utf8');
  const lines = text.split('\n');
  return text.length / lines.length < 200 && lines.every((l) => l.length < 5000);
}

/** Directory names the collector skips (node_modules, dist, ...) and dot-directories get a neutral name. */
function safePath(path: string): string {
  return path
    .split(sep)
    .map((segment) => (EXCLUDED_DIRS.has(segment) || segment.startsWith('.') ? `_${segment.replace(/^\.+/, '')}` : segment))
    .join('/');
}

function byHash(paths: string[]): string[] {
  return paths.map((p) => ({ p, h: createHash('sha1').update(p).digest('hex') })).sort((a, b) => (a.h < b.h ? -1 : 1)).map((x) => x.p);
}

function hashInt(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32BE(0);
}

function commentFor(path: string): string {
  if (/\.(py)$/.test(path)) return '#';
  if (/\.md$/.test(path)) return '<!-- -->';
  return '//';
}
