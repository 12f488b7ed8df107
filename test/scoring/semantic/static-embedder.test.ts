import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../../src/types.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';
import { captureReporter } from '../../helpers/fakes.js';
import { chunkFile } from '../../../src/scoring/semantic/chunker.js';
import { builtDefaultModel, loadTransformersEmbedder } from '../../../src/scoring/semantic/embedder.js';
import { prestartStaticEmbedThread, startStaticEmbedThread } from '../../../src/scoring/semantic/static-embed-thread.js';
import { WorkerGone } from '../../../src/util/worker-calls.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { ensureGloveModel } from '../../../src/scoring/semantic/glove-model.js';
import { createStaticEmbedder, embedOne, loadStaticModel, type StaticModel } from '../../../src/scoring/semantic/static-embedder.js';
import { PACK_PAGE_ROWS, readStaticModelPack, STATIC_PACK_FILE } from '../../../src/scoring/semantic/static-model-pack.js';

/** The pack of a model, for its presence: its table is never read here. */
const readPack = (dir: string) => readStaticModelPack(dir, () => {
  throw new Error('a table read where only the pack\'s presence was asked');
});
import { buildStaticEmbeddingModel } from '../../../src/scoring/semantic/static-model-builder.js';
import { buildTinyModel, configWith, hashedVector, TOPICS } from './tiny-model.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** Texts where a second tokenizer could go wrong; each is embedded by both paths. */
const EDGE_CASES = [
  'parseHTTPResponse', 'XMLHttpRequest getURLForID2Name HTTPServer', 'fetchWithBackoff(request, timeout)',
  'get_user_name SCREAMING_SNAKE_CASE __dunder__ kebab-case-name', 'fooBar9Baz a1B2c3D http2Client',
  'café résumé naïve Straße façade', 'ΟΔΟΣ ΣΟΦΟΣ όδος ΑΣΑbc ΣΑ.Β', 'İstanbul ǅemal ǈubljana', 'e\u0301tude cafe\u0301',
  'ﬁle ﬂow ﬀ ligatures', 'ＦｕｌｌＷｉｄｔｈ ｈｔｔｐ ｃｌｉｅｎｔ', '𝐁𝐨𝐥𝐝 𝑖𝑡𝑎𝑙𝑖𝑐 ⓗⓣⓣⓟ Ⓐⓑ Ⅻ ²³', '日本語のテキスト 中文 한국어', '🚀 launch the 𝔰𝔢𝔯𝔳𝔢𝔯 😀retry',
  '[UNK]', '[PAD]', 'foo[UNK]bar', 'http[PAD]client', '[PAD][PAD][UNK]', '[[UNK]]', '[unk] [pad] lower', '［ＵＮＫ］ fullwidth', '[UN K]', 'x[UNK',
  'a'.repeat(101), 'http'.repeat(26), 'ab'.repeat(50), 'retry' + 'x'.repeat(96) + ' client',
  'eventemitter readfile httpclient retryrequest', 'zzqx retry qqqhttp', 'renderbuttonclick',
  `${'http client retry '.repeat(200)}button`, `${'[UNK] '.repeat(600)}retry`, `${'retry '.repeat(511)}button`, `${'retry '.repeat(512)}button`,
  '', '   ', '\n\n', '12345 ;; 3.14 {} => ()', '_ - / \\ | x y z', '\u0000\u0001 control \u200b zero\u200bwidth', 'tab\tseparated\r\nlines',
];

/** Every tracked text file of this repository, chunked as semantic alignment chunks it. */
async function repositoryChunks(): Promise<string[]> {
  const chunkChars = configWith({}).relevance_scoring.embedding.chunk_chars;
  const paths = execFileSync('git', ['ls-files'], { cwd: REPO, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  const texts: string[] = [];
  for (const path of paths) {
    let content: string;
    try {
      content = readFileSync(join(REPO, path), 'utf8');
    } catch {
      continue; // a path deleted in the working tree
    }
    if (content.includes('\u0000')) continue;
    const chunks = chunkFile(content, chunkChars);
    for (const chunk of chunks) texts.push(`${path}\n${chunk.text}`);
  }
  return texts;
}

/**
 * The ids transformers.js' feature-extraction pipeline feeds the model for one text (truncated to
 * model_max_length, no special tokens added). Its typings promise tensors; `return_tensor: false`
 * returns plain arrays.
 */
function pipelineIds(tokenizer: PreTrainedTokenizer, text: string): number[] {
  return (tokenizer(text, { truncation: true, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const isZero = (v: Float32Array) => v.every((x) => x === 0);

interface Side {
  name: string;
  dir: string;
  model: StaticModel;
  direct: Embedder;
  /** The transformers.js pipeline as production ran it (batches of 32). */
  reference: Embedder;
  /** The same pipeline one text per call: onnxruntime then sums each row in sequence order. */
  single: Embedder;
  ids: (text: string) => number[];
}

describe('static embedder: the same vectors as the transformers.js pipeline', () => {
  let tmp: Fixture;
  let texts: string[];
  const sides: Side[] = [];
  beforeAll(async () => {
    tmp = makeTempDir('aiwg-static-');
    texts = [...EDGE_CASES, ...(await repositoryChunks())];
    const tiny = await buildTinyModel(tmp.root);
    // The shipped default model, full vocabulary (GloVe 100k words + `##` aliases).
    const glove = await ensureGloveModel({ cacheDir: join(tmp.root, 'glove'), reporter: captureReporter() });
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    for (const [name, dir] of [['tiny', tiny], ['glove', glove]] as const) {
      const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const dimensions = name === 'tiny' ? 24 : 100;
      sides.push({
        name,
        dir,
        model: await loadStaticModel({ dir }),
        direct: await createStaticEmbedder({ dir, id: name, dimensions }),
        reference: await loadTransformersEmbedder({ source: dir, local: true, id: name, dimensions }),
        single: await loadTransformersEmbedder({ source: dir, local: true, id: name, dimensions, batchSize: 1 }),
        ids: (text) => pipelineIds(tokenizer, text),
      });
    }
  }, 120_000);
  afterAll(() => tmp.cleanup());

  it('has thousands of texts to compare, edge cases first', () => {
    expect(texts.length).toBeGreaterThan(1000);
  });

  it.each(['tiny', 'glove'])('%s: token ids equal transformers.js\' for every text', (name) => {
    const side = sides.find((s) => s.name === name)!;
    const differing = texts.filter((text) => JSON.stringify(side.model.tokenizer.encode(text)) !== JSON.stringify(side.ids(text)));
    expect(differing).toEqual([]);
    expect(side.model.tokenizer.encode(`${'retry '.repeat(600)}`)).toHaveLength(512);
  });

  it.each(['tiny', 'glove'])('%s: vectors match the batched pipeline (cosine >= 0.99999, zero exactly where it is zero) and equal its one-text calls bit for bit', async (name) => {
    const side = sides.find((s) => s.name === name)!;
    const [direct, reference, single] = await Promise.all([side.direct.embed(texts), side.reference.embed(texts), side.single.embed(texts)]);
    const far: string[] = [];
    const zeroMismatch: string[] = [];
    const notBitEqual: string[] = [];
    direct.forEach((v, i) => {
      const text = texts[i]!.slice(0, 60);
      if (isZero(v) !== isZero(reference[i]!)) zeroMismatch.push(text);
      else if (!isZero(v) && dot(v, reference[i]!) < 0.99999) far.push(`${text}: ${dot(v, reference[i]!)}`);
      if (v.some((x, d) => x !== single[i]![d])) notBitEqual.push(text);
    });
    expect(zeroMismatch).toEqual([]);
    expect(far).toEqual([]);
    expect(notBitEqual).toEqual([]);
    // The edge cases reach both outcomes.
    expect(direct.some(isZero)).toBe(true);
    expect(direct.filter((v) => !isZero(v)).length).toBeGreaterThan(texts.length / 2);
  }, 120_000);

  it('glove: the model pack is made on the first load, loads the same model (vectors bit for bit), and a damaged or stale pack is a miss', async () => {
    const { dir } = sides.find((s) => s.name === 'glove')!;
    const packFile = join(dir, STATIC_PACK_FILE);
    rmSync(packFile, { force: true });
    const fromFiles = await loadStaticModel({ dir, pack: true });
    expect(existsSync(packFile)).toBe(true);
    expect(await readPack(dir)).toBeDefined();
    const fromPack = await loadStaticModel({ dir, pack: true });
    const differing = texts.filter((text) => {
      const [a, b] = [embedOne(fromFiles, text), embedOne(fromPack, text)];
      return a.some((x, d) => x !== b[d]);
    });
    expect(differing).toEqual([]);
    expect(fromPack.tokenizer.maxId).toBe(fromFiles.tokenizer.maxId);
    // the pack's table is read page by page, as tokens need it: only a few pages for a few texts
    const few = await loadStaticModel({ dir, pack: true });
    const bitsOf = (table: Float32Array) => Buffer.from(table.buffer, table.byteOffset, table.byteLength);
    const read = (model: StaticModel) => {
      let rows = 0;
      for (let row = 0; row < model.rows; row++) if (model.table.subarray(row * model.dimensions, (row + 1) * model.dimensions).some((x) => x !== 0)) rows++;
      return rows;
    };
    embedOne(few, 'retry the request');
    expect(read(few)).toBeGreaterThan(0);
    expect(read(few)).toBeLessThanOrEqual(3 * PACK_PAGE_ROWS);
    // a flipped byte in the table: the page fails its check, the table comes from the model file
    // (the same bits), the pack goes, and the next load writes a good one again
    const bytes = readFileSync(packFile);
    bytes[bytes.length - 100] ^= 0xff;
    writeFileSync(packFile, bytes);
    const damaged = await loadStaticModel({ dir, pack: true });
    expect(damaged.pages).toBeDefined();
    damaged.pages!.need(damaged.rows - 1);
    expect(bitsOf(damaged.table).equals(bitsOf(fromFiles.table))).toBe(true);
    expect(existsSync(packFile)).toBe(false);
    await loadStaticModel({ dir, pack: true });
    expect(await readPack(dir)).toBeDefined();
    // a flipped byte in the frame: a miss, and the next load writes a good pack again
    const again = readFileSync(packFile);
    again[200] ^= 0xff;
    writeFileSync(packFile, again);
    expect(await readPack(dir)).toBeUndefined();
    await loadStaticModel({ dir, pack: true });
    expect(await readPack(dir)).toBeDefined();
    // a copied model (new mtimes) keeps its pack; a model file changed since the pack was made is a miss
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'tokenizer_config.json'), later, later);
    expect(await readPack(dir)).toBeDefined();
    const configText = readFileSync(join(dir, 'tokenizer_config.json'), 'utf8');
    writeFileSync(join(dir, 'tokenizer_config.json'), `${configText}\n`);
    expect(await readPack(dir)).toBeUndefined();
    writeFileSync(join(dir, 'tokenizer_config.json'), configText);
    // without `pack` (a user's model_dir) nothing is written there
    rmSync(packFile, { force: true });
    await loadStaticModel({ dir });
    expect(existsSync(packFile)).toBe(false);
  }, 120_000);

  it('a bad page whose model file is gone too fails every embedding after it, never a silent zero row', async () => {
    const { dir } = sides.find((s) => s.name === 'tiny')!;
    const packFile = join(dir, STATIC_PACK_FILE);
    const onnx = join(dir, 'onnx', 'model.onnx');
    rmSync(packFile, { force: true });
    await loadStaticModel({ dir, pack: true });
    const bytes = readFileSync(packFile);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(packFile, bytes);
    const onnxBytes = readFileSync(onnx);
    try {
      const model = await loadStaticModel({ dir, pack: true });
      rmSync(onnx);
      for (let attempt = 0; attempt < 2; attempt++) expect(() => model.pages!.need(model.rows - 1)).toThrow(/model pack is damaged/);
      expect(() => model.pages!.need(0)).toThrow(/model pack is damaged/);
    } finally {
      writeFileSync(onnx, onnxBytes);
      rmSync(packFile, { force: true });
    }
  });

  it.each(['tiny', 'glove'])('%s: the embedding thread and this thread give the same bits, and a model error reads the same from both', async (name) => {
    const side = sides.find((s) => s.name === name)!;
    const here = await createStaticEmbedder({ dir: side.dir, id: name, thread: false });
    const [threaded, local] = await Promise.all([side.direct.embed(texts), here.embed(texts)]);
    expect(threaded.filter((v, i) => v.some((x, d) => x !== local[i]![d])).map((_, i) => texts[i])).toEqual([]);
    const missing = join(tmp.root, `no-model-${name}`);
    const errors = await Promise.all(
      [true, false].map((thread) => createStaticEmbedder({ dir: missing, id: name, dimensions: 24, thread }).then((e) => e.embed(['x'])).then(() => 'no error', (error: Error) => error.message)),
    );
    expect(errors[0]).toMatch(/static embedding model .* cannot be loaded/);
    expect(errors[0]).toBe(errors[1]);
  }, 120_000);

  it('a thread started ahead is the one the next start with the same options takes (once), with the same bits', async () => {
    const side = sides.find((s) => s.name === 'tiny')!;
    const options = { dir: side.dir, fix: 'rebuild the tiny model' };
    const early = prestartStaticEmbedThread(options)!;
    expect(prestartStaticEmbedThread(options)).toBe(early);
    expect(startStaticEmbedThread({ ...options, pack: true })).not.toBe(early);
    expect(startStaticEmbedThread(options)).toBe(early);
    expect(startStaticEmbedThread(options)).not.toBe(early);
    const here = await createStaticEmbedder({ dir: side.dir, id: 'tiny', thread: false });
    const [ahead, local] = await Promise.all([early.embed(texts.slice(0, 200)), here.embed(texts.slice(0, 200))]);
    expect(ahead.vectors.map((v) => [...v])).toEqual(local.map((v) => [...v]));
  });

  it('a released embedder stops its thread, and its next call loads the model again with the same bits', async () => {
    const side = sides.find((s) => s.name === 'tiny')!;
    const options = { dir: side.dir, fix: 'rebuild the tiny model' };
    const thread = startStaticEmbedThread(options)!;
    await thread.embed(texts.slice(0, 5));
    await thread.stop();
    await expect(thread.embed(texts.slice(0, 5))).rejects.toBeInstanceOf(WorkerGone);
    for (const threaded of [true, false]) {
      const embedder = await createStaticEmbedder({ dir: side.dir, id: 'tiny', thread: threaded });
      const before = await embedder.embed(texts.slice(0, 50));
      await embedder.release!();
      const after = await embedder.embed(texts.slice(0, 50));
      expect(after.map((v) => [...v])).toEqual(before.map((v) => [...v]));
    }
  });

  it("the default model is started ahead only when it is the config's model and built", () => {
    const glove = sides.find((s) => s.name === 'glove')!;
    const base = { root: tmp.root, modelCacheDir: join(tmp.root, 'glove') };
    expect(builtDefaultModel(ConfigSchema.parse({}), base)?.dir).toBe(glove.dir);
    expect(builtDefaultModel(configWith({ model_dir: 'tiny-model' }), base)).toBeUndefined();
    expect(builtDefaultModel(configWith({ model: 'Xenova/all-MiniLM-L6-v2' }), base)).toBeUndefined();
    expect(builtDefaultModel(ConfigSchema.parse({}), { root: tmp.root, modelCacheDir: join(tmp.root, 'no-model-here') })).toBeUndefined();
  });

  it('gives the event loop a turn while it embeds many texts, as the asynchronous pipeline did', async () => {
    const side = sides.find((s) => s.name === 'tiny')!;
    await side.direct.load!(); // loading reads files: turns of its own
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await side.direct.embed(texts.slice(0, 1000));
    done = true;
    expect(turns).toBeGreaterThanOrEqual(7);
  });

  it('honours the final-sigma rule of lower-casing, which looks past the end of a word', async () => {
    // Σ lower-cases to ς at the end of a word and to σ when a cased letter follows, even across
    // `.` or `'` (case-ignorable): "ΟΔΟΣ.ΚΑΙ" -> "οδοσ.και" but "ΟΔΟΣ" -> "οδος".
    const vocab = ['οδος', 'οδοσ', 'ας', 'ασ', 'και', 'http'];
    const dir = join(tmp.root, 'sigma');
    await buildStaticEmbeddingModel({ vocab, vectors: vocab.map((w) => hashedVector(w)), outDir: dir, weighting: 'none' });
    const { AutoTokenizer } = await import('@huggingface/transformers');
    const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
    const { tokenizer: direct } = await loadStaticModel({ dir });
    const greek = ['ΟΔΟΣ.ΚΑΙ', 'ΟΔΟΣ', "ΑΣ'Β ΑΣ", 'ΑΣ.http', 'httpΣ.Κ', 'ΟΔΟΣ ΚΑΙ', 'οδοσ οδος ΟΔΟΣ:ΚΑΙ', 'ΑΣ\u00adΚ'];
    const expected = greek.map((t) => pipelineIds(tokenizer, t));
    expect(greek.map((t) => direct.encode(t))).toEqual(expected);
    // Both forms occur, so the comparison above can tell them apart.
    const ids = new Set(expected.flat());
    expect(ids.has(2) && ids.has(3)).toBe(true);
  });

  it('property: random mixes of vocabulary words, case, joins and unicode noise embed alike', async () => {
    for (const side of sides) {
      const words = side.name === 'tiny' ? Object.values(TOPICS).flat() : ['server', 'request', 'parse', 'imports', 'sass', 'preprocessing', 'event', 'emitter', 'the'];
      const word = fc.constantFrom(...words).chain((w) => fc.constantFrom(w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1)));
      const noise = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(' ', '_', '-', '.', '(', '\n', '[UNK]', '[PAD]', '9', 'ﬁ', 'Σ', 'İ'));
      const text = fc.array(fc.oneof({ arbitrary: word, weight: 3 }, { arbitrary: noise, weight: 2 }), { maxLength: 40 }).map((parts) => parts.join(''));
      await fc.assert(
        fc.asyncProperty(text, async (t) => {
          expect(side.model.tokenizer.encode(t)).toEqual(side.ids(t));
          const [[a], [b]] = await Promise.all([side.direct.embed([t]), side.single.embed([t])]);
          expect([...a!]).toEqual([...b!]);
        }),
        { numRuns: 200, seed: 11 },
      );
    }
  }, 120_000);
});
