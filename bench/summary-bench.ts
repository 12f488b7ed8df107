import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../src/config/schema.js';
import { createLevelsStage } from '../src/summarize/levels-stage.js';
import { createTokenizer } from '../src/tokenize/tokenizer.js';
import { silentReporter } from '../src/util/reporter.js';
import type { CandidateFile, RunContext } from '../src/types.js';
import { countLines } from '../src/collect/read-candidate.js';

/**
 * `node dist/bench/summary-bench.js [count]`: all four levels (full, detailed, summary, stub)
 * for every file of a tree of real source (.ts, .js, .py files taken from node_modules, sorted
 * walk, 1-64 KB, no minified bundles), o200k tokenizer:
 * - cold: empty cache directory, a new stage;
 * - warm (disk): a new stage (empty LRU, no grammar loaded) over the filled cache, as a new
 *   `aiwg context-budget` process sees it;
 * - warm (memory): the same stage again (LRU hits).
 * Prints a Markdown table of files per second.
 */

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXTENSIONS = ['.ts', '.js', '.py', '.mjs', '.tsx'];
const MIN_BYTES = 1024;
const MAX_BYTES = 64 * 1024;
const MAX_AVG_LINE = 160;

function pickFiles(count: number): CandidateFile[] {
  const files: CandidateFile[] = [];
  const seen = new Set<string>();
  const base = join(PROJECT, 'node_modules');
  const walk = (dir: string) => {
    if (files.length >= count) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return;
    }
    for (const entry of entries) {
      if (files.length >= count) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.bin' && entry.name !== 'onnxruntime-node' && entry.name !== 'onnxruntime-web') walk(path);
        continue;
      }
      if (!entry.isFile() || !EXTENSIONS.some((e) => entry.name.endsWith(e)) || entry.name.includes('.min.')) continue;
      const size = statSync(path).size;
      if (size < MIN_BYTES || size > MAX_BYTES) continue;
      const bytes = readFileSync(path);
      const lineCount = countLines(bytes);
      if (bytes.length / Math.max(1, lineCount) > MAX_AVG_LINE) continue;
      const hash = createHash('sha256').update(bytes).digest('hex');
      if (seen.has(hash)) continue;
      seen.add(hash);
      files.push({ path: relative(base, path).split('\\').join('/'), content: bytes.toString('utf8'), size, mtimeMs: 0, hash, lineCount });
    }
  };
  // Spread the picks over many packages: a few files from each, then more.
  walk(base);
  return files;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1000);
  const files = pickFiles(count);
  const root = mkdtempSync(join(tmpdir(), 'aiwg-summary-bench-'));
  const config = defaultConfig();
  const tokenizer = await createTokenizer('o200k');
  const ctx = (): RunContext => ({ config, tokenizer, reporter: silentReporter(), nowMs: Date.now(), warnings: [] });
  const input = { root, files, lastModifiedMs: new Map<string, number>() };
  const bytes = files.reduce((s, f) => s + f.size, 0);
  const byExt = new Map<string, number>();
  for (const f of files) byExt.set(f.path.slice(f.path.lastIndexOf('.')), (byExt.get(f.path.slice(f.path.lastIndexOf('.'))) ?? 0) + 1);

  const timed = async (label: string, stage: ReturnType<typeof createLevelsStage>) => {
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const levels = await stage(input, ctx());
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    if (levels.size !== files.length) throw new Error(`${label}: ${levels.size} of ${files.length} files`);
    return { label, seconds, cpuSeconds, filesPerSecond: files.length / seconds, levels };
  };

  const cold = await timed('cold (empty cache)', createLevelsStage({ root, config }));
  const warmStage = createLevelsStage({ root, config });
  const warmDisk = await timed('warm (disk cache, new stage)', warmStage);
  const warmMemory = await timed('warm (LRU, same stage)', warmStage);
  const same = JSON.stringify([...cold.levels]) === JSON.stringify([...warmDisk.levels]);
  const levelTokens = ['full', 'detailed', 'summary', 'stub'].map((_, i) => [...cold.levels.values()].reduce((s, l) => s + l[i]!.tokens, 0));

  const cpu = cpus();
  console.log(`## summary-bench (${new Date().toISOString().slice(0, 10)}, ${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, Node ${process.version})\n`);
  console.log(`${files.length} files (${[...byExt].map(([e, n]) => `${n} ${e}`).join(', ')}), ${(bytes / 1024 / 1024).toFixed(1)} MB, tokenizer o200k.`);
  console.log(`Tokens over all files: full ${levelTokens[0]}, detailed ${levelTokens[1]}, summary ${levelTokens[2]}, stub ${levelTokens[3]}.`);
  console.log(`Warm levels identical to cold: ${same ? 'yes' : 'NO'}.\n`);
  // CPU seconds of this process are reported too: on a shared, loaded machine wall time is noisy.
  console.log(`Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}.\n`);
  console.log('| run | wall s | files/s (wall) | CPU s | files/s (CPU) |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of [cold, warmDisk, warmMemory]) {
    console.log(`| ${r.label} | ${r.seconds.toFixed(2)} | ${Math.round(r.filesPerSecond)} | ${r.cpuSeconds.toFixed(2)} | ${Math.round(files.length / r.cpuSeconds)} |`);
  }
  rmSync(root, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
