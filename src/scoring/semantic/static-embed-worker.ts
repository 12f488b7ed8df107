import { parentPort, workerData } from 'node:worker_threads';
import { embedOne, loadStaticModel, type StaticModel } from './static-embedder.js';

/**
 * The static embedding thread (static-embed-thread.ts): loads the model on the first request,
 * then answers each batch of texts with their vectors, packed in one buffer it transfers. A
 * load error is every later answer's error, as the in-thread embedder's load promise is.
 */
const { dir, fix, pack } = workerData as { dir: string; fix?: string; pack: boolean };
let model: Promise<StaticModel> | undefined;

parentPort!.on('message', ({ id, texts }: { id: number; texts: string[] }) => {
  model ??= loadStaticModel({ dir, pack, ...(fix !== undefined ? { fix } : {}) });
  model.then(
    (loaded) => {
      const buffer = new ArrayBuffer(texts.length * loaded.dimensions * Float32Array.BYTES_PER_ELEMENT);
      const packed = new Float32Array(buffer);
      texts.forEach((text, i) => packed.set(embedOne(loaded, text), i * loaded.dimensions));
      parentPort!.postMessage({ id, dimensions: loaded.dimensions, count: texts.length, buffer }, [buffer]);
    },
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
