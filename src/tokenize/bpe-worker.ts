import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { CountedTexts } from './bpe-counter.js';
import { loadEncoding, NO_SPECIAL, type BpeEncodingId } from './bpe-encoding.js';
import { openPieceCounts, type PieceCounts } from './piece-counts.js';
import { eachPiece } from './safe-split.js';

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
      answer({ counts: pieces.map((piece) => encoding.countTokens(piece, NO_SPECIAL)) });
    } catch (error) {
      answer({ error: error instanceof Error ? error.message : String(error) });
    }
  });
  // countTextsLater: answered on the worker's own port, no flag (nobody waits on it blocked)
  const stores = new Map<string, Promise<PieceCounts>>();
  parentPort?.on('message', ({ id: request, texts, pieceCountsPath }: { id: number; texts: string[]; pieceCountsPath?: string }) => {
    const opening = pieceCountsPath === undefined ? undefined : (stores.get(pieceCountsPath) ?? openPieceCounts(pieceCountsPath));
    if (pieceCountsPath !== undefined && opening) stores.set(pieceCountsPath, opening);
    void (async () => {
      let counted: CountedTexts | undefined;
      try {
        const stored = await opening;
        const fresh = new Map<string, number>();
        const totals = texts.map((text) => {
          let total = 0;
          eachPiece(text, (piece) => {
            let n = fresh.get(piece) ?? stored?.get(piece);
            if (n === undefined) fresh.set(piece, (n = encoding.countTokens(piece, NO_SPECIAL)));
            total += n;
          });
          return total;
        });
        counted = { totals, pieces: [...fresh.keys()], counts: [...fresh.values()] };
      } catch {
        counted = undefined;
      }
      parentPort!.postMessage({ id: request, ...(counted ? { counted } : {}) });
    })();
  });
} catch (error) {
  // every request after a failed load gets the reason
  const reason = `could not load the ${id} encoding (${error instanceof Error ? error.message : String(error)})`;
  port.on('message', () => answer({ error: reason }));
  parentPort?.on('message', ({ id: request }: { id: number }) => parentPort!.postMessage({ id: request }));
}
