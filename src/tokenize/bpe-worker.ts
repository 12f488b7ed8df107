import { workerData, type MessagePort } from 'node:worker_threads';
import { loadEncoding, type BpeEncodingId } from './bpe-encoding.js';

/**
 * The BPE counter's thread (bpe-counter.ts): loads one GPT encoding table, then answers batches
 * of pieces with their token counts. Each answer is posted on the reply port before the shared
 * flag is raised, so the waiting thread finds it there when it wakes.
 */
interface WorkerInput {
  id: BpeEncodingId;
  port: MessagePort;
  flag: Int32Array;
}

const { id, port, flag } = workerData as WorkerInput;

function answer(message: { counts: number[] } | { error: string }): void {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

try {
  const encoding = loadEncoding(id);
  port.on('message', (pieces: string[]) => {
    try {
      answer({ counts: pieces.map((piece) => encoding.countTokens(piece)) });
    } catch (error) {
      answer({ error: error instanceof Error ? error.message : String(error) });
    }
  });
} catch (error) {
  // every request after a failed load gets the reason
  const reason = `could not load the ${id} encoding (${error instanceof Error ? error.message : String(error)})`;
  port.on('message', () => answer({ error: reason }));
}
