import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { compiledWorkerFile } from '../util/worker-file.js';
import { loadEncoding, readEncodingAhead, type BpeEncoding, type BpeEncodingId, type TableFiles } from './bpe-encoding.js';

/**
 * Counts BPE tokens of pieces of text, a batch at a time, synchronously (budgets are counted in
 * synchronous code). Where the encoding's table is kept in a file (bpe-table.ts) it opens in this
 * thread in ~10 ms and reads the pages a count needs. Otherwise gpt-tokenizer's table (~130 ms to
 * build) loads in a worker thread, on the second core while the caller goes on, and the caller
 * blocks only while its batch is counted. One worker per encoding per process, unref'd (it never
 * keeps the process alive). A caller that counts much loads its own copy too
 * (LOCAL_AFTER_BATCHES); where no worker can be started, the encoding loads in this thread.
 */
export interface BpeCounter {
  countPieces(pieces: readonly string[]): number[];
}

/** How long a batch may take before the worker is taken for dead (generous: a loaded machine, a first batch waiting for the table). */
const ANSWER_TIMEOUT_MS = 120_000;
/**
 * A batch costs a round trip to the worker (~70-130 us here); loading the table in this thread
 * costs ~130 ms. A caller that keeps asking (a checkout whose changed files are all counted, a few
 * pieces at a time) loads its own copy after this many batches, about what that load costs, and
 * counts here from then on; a warm run with a new task (tens to hundreds of batches) never does.
 * So does a caller whose worker failed.
 */
const LOCAL_AFTER_BATCHES = 1000;

const workers = new Map<BpeEncodingId, BpeCounter>();

/** The shared counter of an encoding: a worker thread, or this thread when none can start. */
export function bpeCounter(id: BpeEncodingId): BpeCounter {
  let counter = workers.get(id);
  if (counter === undefined) {
    counter = startWorker(id) ?? inThreadCounter(id);
    workers.set(id, counter);
  }
  return counter;
}

/**
 * The encoding in this thread, loaded on the first count (a run that finds every piece remembered
 * loads nothing): from `tableFile` when it holds the table (bpe-table.ts, ~10 ms), else from
 * gpt-tokenizer. Also the fallback of bpeCounter.
 */
export function inThreadCounter(id: BpeEncodingId, tableFile?: TableFiles): BpeCounter {
  let encoding: BpeEncoding | undefined;
  // the first count comes late in a run (after scoring): the table file is read meanwhile
  readEncodingAhead(tableFile);
  return {
    countPieces(pieces) {
      encoding ??= loadEncoding(id, tableFile);
      const loaded = encoding;
      return pieces.map((piece) => loaded.countTokens(piece));
    },
  };
}

function startWorker(id: BpeEncodingId): BpeCounter | undefined {
  const file = compiledWorkerFile('tokenize/bpe-worker.js');
  if (file === undefined) return undefined;
  let worker: Worker;
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  try {
    // none of this process's options (an --input-type, loader hooks): the worker runs one known module
    worker = new Worker(file, { workerData: { id, port: port2, flag }, transferList: [port2], execArgv: [] });
  } catch {
    return undefined;
  }
  port1.unref();
  let failure: string | undefined;
  let batches = 0;
  let local: BpeCounter | undefined;
  worker.on('error', (error) => {
    failure = `the ${id} tokenizer thread failed (${error.message})`;
  });
  worker.on('exit', (code) => {
    failure ??= `the ${id} tokenizer thread stopped (exit ${code})`;
    // a counter that switched to this thread stays the encoding's counter; a failed one is replaced
    if (local === undefined) workers.delete(id);
  });
  // the thread never keeps the process alive: a caller that counts blocks until its answer anyway
  worker.unref();
  // from here on this thread counts; the worker is not needed any more
  const countHere = (pieces: readonly string[]): number[] => {
    if (local === undefined) {
      local = inThreadCounter(id);
      void worker.terminate();
    }
    return local.countPieces(pieces);
  };
  return {
    countPieces(pieces) {
      if (pieces.length === 0) return [];
      if (local !== undefined || ++batches > LOCAL_AFTER_BATCHES || failure !== undefined) return countHere(pieces);
      Atomics.store(flag, 0, 0);
      port1.postMessage(pieces);
      if (Atomics.wait(flag, 0, 0, ANSWER_TIMEOUT_MS) === 'timed-out') {
        // a late answer stays unread: this thread counts from now on
        failure = `the ${id} tokenizer thread did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`;
        return countHere(pieces);
      }
      const reply = receive(port1);
      // the thread could not count (its table did not load): this thread tries, and throws the real error if it cannot either
      return 'counts' in reply ? reply.counts : countHere(pieces);
    },
  };
}

function receive(port: MessagePort): { counts: number[] } | { error: string } {
  const message = receiveMessageOnPort(port);
  if (message === undefined) throw new Error('internal: the tokenizer thread raised its flag without an answer');
  return message.message as { counts: number[] } | { error: string };
}
