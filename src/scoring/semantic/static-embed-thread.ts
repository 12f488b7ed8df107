import { Worker } from 'node:worker_threads';
import { compiledWorkerFile } from '../../util/worker-file.js';

/**
 * A static embedding model loaded and run on a worker thread (static-embed-worker.ts): reading
 * and compiling the model (~160 ms for the default one here) happens on the second core while
 * this thread collects and scores, and the vectors come back in one transferred buffer per
 * call. The worker runs the same code as the in-thread path, so the vectors are the same bits.
 * Unref'd except while a call waits on it. Undefined when no worker can start (no compiled
 * worker file); a worker that stops later fails the calls waiting on it with `ThreadGone`, and
 * the caller goes on in its own thread.
 */
export interface StaticEmbedThread {
  /** Load the model now (its errors are the in-thread loader's, word for word). */
  load(): Promise<{ dimensions: number }>;
  embed(texts: readonly string[]): Promise<{ dimensions: number; vectors: Float32Array[] }>;
}

/** The worker stopped (not a model error): the caller should embed in its own thread. */
export class ThreadGone extends Error {}

type Reply = { id: number; error: string } | { id: number; dimensions: number; count: number; buffer: ArrayBuffer };

export function startStaticEmbedThread(options: { dir: string; fix?: string; pack?: boolean }): StaticEmbedThread | undefined {
  const file = compiledWorkerFile(import.meta.url, 'static-embed-worker.js');
  if (file === undefined) return undefined;
  let worker: Worker;
  try {
    // none of this process's options (an --input-type, loader hooks): the worker runs one known module
    worker = new Worker(file, { workerData: { dir: options.dir, ...(options.fix !== undefined ? { fix: options.fix } : {}), pack: options.pack === true }, execArgv: [] });
  } catch {
    return undefined;
  }
  const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let gone: string | undefined;
  worker.on('message', (reply: Reply) => {
    const call = waiting.get(reply.id);
    if (!call) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    call.resolve(reply);
  });
  const stop = (why: string) => {
    gone ??= why;
    for (const call of waiting.values()) call.reject(new ThreadGone(gone));
    waiting.clear();
  };
  worker.on('error', (error) => stop(`the embedding thread failed (${error.message})`));
  worker.on('exit', (code) => stop(`the embedding thread stopped (exit ${code})`));
  // after the listeners: adding a 'message' listener refs the worker's port again
  worker.unref();

  const call = (texts: readonly string[]): Promise<{ dimensions: number; vectors: Float32Array[] }> => {
    if (gone !== undefined) return Promise.reject(new ThreadGone(gone));
    const id = nextId++;
    return new Promise<Reply>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    }).then((reply) => {
      if ('error' in reply) throw new Error(reply.error);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < reply.count; i++) vectors.push(new Float32Array(reply.buffer, i * reply.dimensions * Float32Array.BYTES_PER_ELEMENT, reply.dimensions));
      return { dimensions: reply.dimensions, vectors };
    });
  };
  return {
    load: async () => ({ dimensions: (await call([])).dimensions }),
    embed: call,
  };
}
