/**
 * Embedding benchmark: default-model build time and memory, model load time, cold chunks/s
 * (chunk + embed + store) and warm cache lookups on real source text from node_modules, and the
 * ANN path. Run: `npx tsc -p tsconfig.json && node dist/bench/embedding-bench.js [--files N]`.
 * Figures go to docs/embeddings.md; nothing here is asserted.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { ConfigSchema } from '../src/config/schema.js';
import { createChars4Tokenizer } from '../src/tokenize/tokenizer.js';
import type { CandidateFile, Reporter, RunContext } from '../src/types.js';
import { createEmbedder } from '../src/scoring/semantic/embedder.js';
import { ensureGloveModel } from '../src/scoring/semantic/glove-model.js';
import { semanticAlignment } from '../src/scoring/semantic/semantic-alignment.js';
import { chunkFile } from '../src/scoring/semantic/chunker.js';

const SOURCE_EXTENSIONS = /\.(ts|js|mjs|cjs|tsx)$/;
const MAX_FILE_BYTES = 200_000;

async function main(): Promise<void> {
  const fileLimit = Number(argValue('--files') ?? 5000);
  const root = process.cwd();
  const work = mkdtempSync(join(tmpdir(), 'aiwg-embed-bench-'));
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const reporter: Reporter = { info() {}, warn: (m) => console.error(`warning: ${m}`), debug() {}, progress() {} };
  try {
    console.log(`# embedding bench ${new Date().toISOString()} | ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'} | ${(totalmem() / 2 ** 30).toFixed(1)} GiB | node ${process.version} | load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const cacheDir = join(work, 'cache');

    let t = timer();
    peakRss = process.memoryUsage().rss;
    await ensureGloveModel({ cacheDir, reporter });
    console.log(`model build (aiwg/glove-100d, 100k words): ${t.text()}, peak RSS ${mb(peakRss)} MB`);

    const config = ConfigSchema.parse({});
    t = timer();
    const embedder = await createEmbedder(config, { root, cacheDir, reporter });
    if (!embedder) throw new Error('the default embedder did not load');
    await embedder.embed(['warm up']);
    console.log(`model load + first embed: ${t.text()}`);

    const files = collectSources(join(root, 'node_modules'), fileLimit, root);
    const bytes = files.reduce((s, f) => s + f.size, 0);
    console.log(`corpus: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB of .ts/.js under node_modules`);
    const task = 'retry the http request with exponential backoff when the socket times out';

    t = timer();
    const texts: string[] = [];
    for (const f of files) {
      for (const c of chunkFile(f.content, config.relevance_scoring.embedding.chunk_chars)) texts.push(`${f.path}\n${c.text}`);
    }
    console.log(`chunking alone: ${texts.length} chunks in ${t.text()}`);
    const sample = texts.slice(0, 5000);
    t = timer();
    await embedder.embed(sample);
    console.log(`embedding alone: ${sample.length} chunks in ${t.text()} = ${(sample.length / (t.wallMs() / 1000)).toFixed(0)} chunks/s wall`);

    peakRss = process.memoryUsage().rss;
    t = timer();
    const cold = await semanticAlignment({ task, files }, context(config, reporter), { embedder, cacheDir, indexDir: join(work, 'index') });
    const coldMs = t.wallMs();
    console.log(`cold: ${cold.chunks} chunks (${cold.embedded} embedded) in ${t.text()} = ${(cold.embedded / (coldMs / 1000)).toFixed(0)} chunks/s wall, peak RSS ${mb(peakRss)} MB, search ${cold.search}`);

    t = timer();
    const warm = await semanticAlignment({ task, files }, context(config, reporter), { embedder, cacheDir, indexDir: join(work, 'index') });
    const warmMs = t.wallMs();
    console.log(`warm (same task): ${warm.embedded} embedded, ${t.text()} = ${(warm.chunks / (warmMs / 1000)).toFixed(0)} chunk lookups/s`);

    t = timer();
    const newTask = await semanticAlignment({ task: 'parse yaml configuration files', files }, context(config, reporter), { embedder, cacheDir, indexDir: join(work, 'index') });
    console.log(`warm (new task): ${newTask.embedded} embedded, ${t.text()}`);

    const exactConfig = ConfigSchema.parse({ relevance_scoring: { embedding: { ann_min_chunks: 10_000_000 } } });
    t = timer();
    const exact = await semanticAlignment({ task, files }, context(exactConfig, reporter), { embedder, cacheDir });
    console.log(`warm, exact cosine over ${exact.chunks} chunks: ${t.text()}`);
    const annConfig = ConfigSchema.parse({ relevance_scoring: { embedding: { ann_min_chunks: 1 } } });
    const annDir = join(work, 'index-fresh');
    t = timer();
    const annCold = await semanticAlignment({ task, files }, context(annConfig, reporter), { embedder, cacheDir, indexDir: annDir });
    console.log(`warm vectors, ann index built from scratch over ${annCold.chunks} chunks: ${t.text()}`);
    t = timer();
    await semanticAlignment({ task, files }, context(annConfig, reporter), { embedder, cacheDir, indexDir: annDir });
    console.log(`warm, ann (index read + search): ${t.text()}`);

    const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10).map(([p]) => p);
    const exactTop = new Set(top(exact.scores));
    const annTop = top(annCold.scores);
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`ann vs exact top-10 file overlap: ${annTop.filter((p) => exactTop.has(p)).length}/10`);
    console.log(`top files for "${task}":\n  ${top(warm.scores).slice(0, 5).join('\n  ')}`);
  } finally {
    clearInterval(sampler);
    rmSync(work, { recursive: true, force: true });
  }
}

function context(config: RunContext['config'], reporter: Reporter): RunContext {
  return { config, tokenizer: createChars4Tokenizer(), reporter, nowMs: Date.now(), warnings: [] };
}

/** Real source files, deterministic order (sorted walk), skipping minified and huge files. */
function collectSources(dir: string, limit: number, root: string): CandidateFile[] {
  const out: CandidateFile[] = [];
  const walk = (d: string) => {
    if (out.length >= limit) return;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= limit) return;
      const p = join(d, e.name);
      if (e.isDirectory() && !e.name.startsWith('.')) walk(p);
      else if (e.isFile() && SOURCE_EXTENSIONS.test(e.name) && !e.name.includes('.min.')) {
        const size = statSync(p).size;
        if (size === 0 || size > MAX_FILE_BYTES) continue;
        const content = readFileSync(p, 'utf8');
        const hash = createHash('sha256').update(content).digest('hex');
        out.push({ path: relative(root, p).split('\\').join('/'), content, size, mtimeMs: 0, hash, lineCount: content.split('\n').length });
      }
    }
  };
  walk(dir);
  return out;
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
/** A phase's timer: wall and this process's CPU time (user + system). The machine is shared, so
 * CPU time is the figure that does not depend on what else runs. */
function timer() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return {
    wallMs: () => performance.now() - wall,
    text: () => {
      const used = process.cpuUsage(cpu);
      return `${(performance.now() - wall).toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms cpu`;
    },
  };
}
const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

await main();
