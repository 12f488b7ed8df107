import { Worker } from 'node:worker_threads';
import { workerCalls } from '../../util/worker-calls.js';
import { compiledWorkerFile } from '../../util/worker-file.js';

/**
 * A static embedding model loaded and run on a worker thread (static-embed-worker.ts): reading
 * and compiling the model (~160 ms for the default one here) happens on the second core while
 * this thread collects and scores, and the vectors come back in one transferred buffer per
 * call. The worker runs the same code as the in-thread path, so the vectors are the same bits.
 * Undefined when no worker can start (no compiled worker file); a worker that stops later fails
 * the calls waiting on it with WorkerGone (util/worker-calls.ts), and the caller goes on in its
 * own thread.
 */
export interface StaticEmbedThread {
  /** Load the model now (its errors are the in-thread loader's, word for word). */
  load(): Promise<{ dimensions: number }>;
  embed(texts: readonly string[]): Promise<{ dimensions: number; vectors: Float32Array[] }>;
  /** Stop the thread (its memory with it); resolves once it has stopped. Calls still waiting fail with WorkerGone. */
  stop(): Promise<void>;
}

type Reply = { id: number; error: string } | { id: number; dimensions: number; count: number; buffer: ArrayBuffer };

export interface StaticEmbedThreadOptions {
  dir: string;
  fix?: string;
  pack?: boolean;
}

/**
 * The old generation of a thread running a model the tool built (a model pack, whose footprint is
 * known: the default model holds ~15-30 MB live). Without a bound V8 let the thread's heap grow
 * with garbage to 180 MB in a cold run over 20,000 files; with it, ~100 MB. A user's model
 * directory gets no bound (its tokenizer may be large); a thread that runs out stops, and the
 * embedder goes on in this thread.
 */
const OWN_MODEL_THREAD_OLD_MB = 128;

/** Threads started ahead (prestartStaticEmbedThread) and not taken yet, by their options. */
const ahead = new Map<string, StaticEmbedThread>();
const aheadKey = (options: StaticEmbedThreadOptions) => JSON.stringify([options.dir, options.fix ?? null, options.pack === true]);

/**
 * Start the thread of a model now and have it load the model, before anything asks for it (a run
 * whose task has no stored vector, as it starts): the next startStaticEmbedThread with the same
 * options takes this thread instead of starting one.
 */
export function prestartStaticEmbedThread(options: StaticEmbedThreadOptions): StaticEmbedThread | undefined {
  const key = aheadKey(options);
  const held = ahead.get(key);
  if (held !== undefined) return held;
  const thread = spawnThread(options);
  if (thread === undefined) return undefined;
  // a failed load is the taker's to report (its own load() gets the same error)
  thread.load().catch(() => undefined);
  ahead.set(key, thread);
  return thread;
}

export function startStaticEmbedThread(options: StaticEmbedThreadOptions): StaticEmbedThread | undefined {
  const key = aheadKey(options);
  const early = ahead.get(key);
  if (early !== undefined) {
    ahead.delete(key);
    return early;
  }
  return spawnThread(options);
}

function spawnThread(options: StaticEmbedThreadOptions): StaticEmbedThread | undefined {
  const file = compiledWorkerFile('scoring/semantic/static-embed-worker.js');
  if (file === undefined) return undefined;
  let worker: Worker;
  try {
    // none of this process's options (an --input-type, loader hooks): the worker runs one known module
    worker = new Worker(file, {
      workerData: { dir: options.dir, ...(options.fix !== undefined ? { fix: options.fix } : {}), pack: options.pack === true },
      execArgv: [],
      ...(options.pack === true ? { resourceLimits: { maxOldGenerationSizeMb: OWN_MODEL_THREAD_OLD_MB } } : {}),
    });
  } catch {
    return undefined;
  }
  const calls = workerCalls<{ texts: readonly string[] }, Reply>(worker, 'embedding');
  const embed = async (texts: readonly string[]): Promise<{ dimensions: number; vectors: Float32Array[] }> => {
    const reply = await calls.call({ texts });
    if ('error' in reply) throw new Error(reply.error);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < reply.count; i++) vectors.push(new Float32Array(reply.buffer, i * reply.dimensions * Float32Array.BYTES_PER_ELEMENT, reply.dimensions));
    return { dimensions: reply.dimensions, vectors };
  };
  return {
    load: async () => ({ dimensions: (await embed([])).dimensions }),
    embed,
    stop: () => worker.terminate().then(
      () => undefined,
      () => undefined,
    ),
  };
}
