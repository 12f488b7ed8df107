import { Worker } from 'node:worker_threads';
import { compiledWorkerFile } from '../../util/worker-file.js';
import type { BlockOutline } from './outline.js';
import { TAKEN_BY_CALLER, type OutlineReply, type OutlineRequest, type OutlineWarm, type OutlineWarmed } from './outline-protocol.js';

/**
 * Block outlines of new blobs (outlineBlock), parsed on a second thread while this one goes on.
 * The engine hands over the blocks of the files the levels stage will build whose detailed level
 * no cache holds and whose outline it does not keep (`prefetchBlock`); the texts are posted to a
 * worker thread at once, which parses them from the last back, and `claimBlock` hands a result to
 * the engine once. A text the worker has not started when the engine asks for it is taken back
 * (one compare-and-swap on its shared slot) and parsed by the caller, so the two threads share
 * the work from both ends and neither waits for the other's messages. One worker per process,
 * started on the first block, unref'd except while a caller waits on it; without one (no
 * compiled worker file, a worker error) every block is parsed by the caller as before.
 */

/** Texts posted and not yet claimed before the pool holds the rest back (a huge cold run is not parsed far ahead of its use). */
const POSTED_MAX = 1024;
/**
 * Shared slots: one per posted text until its answer comes or it is taken back. Besides the
 * unclaimed texts, only claimed ones the worker is still on (one at a time) and forgotten ones it
 * had started hold a slot, so there is always a free one.
 */
const SLOT_COUNT = POSTED_MAX + 64;
/** Ids wrap below this: an id names one request for the life of any slot. */
const MAX_ID = 2 ** 30;

type Parsed = BlockOutline | null;

interface Entry {
  content: string;
  languageId: string;
  codeBefore: boolean;
  /** Set when posted. */
  id?: number;
  slot?: number;
  done: boolean;
  /** The worker's outline; undefined when it could not parse (the caller parses). */
  result?: Promise<Parsed | undefined>;
  settle?: (items: Parsed | undefined) => void;
}

interface Pool {
  worker: Worker;
  /** Per slot: the id of the text posted there while nobody took it, else who took it. */
  slots: Int32Array;
  freeSlots: number[];
  /** Text -> variant (languageVariant) -> entry. */
  entries: Map<string, Map<string, Entry>>;
  /** Not posted yet (POSTED_MAX reached), oldest first. */
  held: Entry[];
  /** Posted and not claimed yet. */
  unclaimed: Set<Entry>;
  /** Posted and not answered yet, by id. */
  unanswered: Map<number, Entry>;
  nextId: number;
  /** Claims waiting on the worker: it keeps the process alive only then. */
  awaited: number;
  /** Languages whose grammar the worker was asked to load ahead (warmOutlinePool). */
  warming: Set<string>;
  counts: OutlinePoolCounts;
}

/** What the pool did in this process: texts the worker parsed, texts callers took back to parse themselves, grammars it loaded ahead. */
export interface OutlinePoolCounts {
  parsedByWorker: number;
  takenBack: number;
  grammarsWarmed: number;
}

// A thread is a process resource, like the outline memo it feeds: one per process, not per run.
let pool: Pool | undefined | null;

/**
 * Drop what an earlier run started and nobody claimed, before a run hands over its own blocks:
 * a long-lived process never holds texts of past runs.
 */
export function forgetUnclaimedBlocks(): void {
  if (pool) forgetUnclaimed(pool);
}

/**
 * Start the worker thread and have it load a language's grammar now, once per language: blocks
 * of that language posted later are parsed there at once, instead of being taken back while the
 * thread still loads (then the caller loads the parser too). Called once collect has read new
 * content (the levels stage builds only later); nothing without a worker.
 */
export function warmOutlinePool(languageId: string): void {
  pool ??= startPool();
  const current = pool;
  if (current === null || current.warming.has(languageId)) return;
  current.warming.add(languageId);
  current.worker.postMessage({ warm: languageId } satisfies OutlineWarm);
}

/** Start parsing a block on the worker thread (nothing when it is already started). */
export function prefetchBlock(content: string, languageId: string, codeBefore: boolean): void {
  pool ??= startPool();
  const current = pool;
  if (current === null) return;
  const variant = languageVariant(languageId, codeBefore);
  let byVariant = current.entries.get(content);
  if (byVariant?.has(variant)) return;
  if (!byVariant) current.entries.set(content, (byVariant = new Map()));
  const entry: Entry = { content, languageId, codeBefore, done: false };
  byVariant.set(variant, entry);
  if (current.unclaimed.size < POSTED_MAX) post(current, entry);
  else current.held.push(entry);
}

/**
 * The worker's outline of a block, handed over once: a promise when the worker has parsed or is
 * parsing it (resolving to undefined if it could not), undefined when the caller should parse
 * it (never prefetched, or not started by the worker: then it is taken back here).
 */
export function claimBlock(content: string, languageId: string, codeBefore: boolean): Promise<Parsed | undefined> | undefined {
  const current = pool;
  if (!current) return undefined;
  const variant = languageVariant(languageId, codeBefore);
  const byVariant = current.entries.get(content);
  const entry = byVariant?.get(variant);
  if (!entry) return undefined;
  byVariant!.delete(variant);
  if (byVariant!.size === 0) current.entries.delete(content);
  if (entry.id === undefined) {
    current.held.splice(current.held.indexOf(entry), 1);
    return undefined;
  }
  current.unclaimed.delete(entry);
  if (takeBack(current, entry)) {
    current.counts.takenBack++;
    refill(current);
    return undefined;
  }
  refill(current);
  if (entry.done) return entry.result;
  // the worker is on it: wait, and keep the process alive meanwhile
  if (current.awaited++ === 0) current.worker.ref();
  return entry.result!.finally(() => {
    if (--current.awaited === 0) current.worker.unref();
  });
}

function languageVariant(languageId: string, codeBefore: boolean): string {
  return codeBefore ? `${languageId}+code` : languageId;
}

/** The pool's counts so far (zeros before its first text or without a worker). */
export function outlinePoolCounts(): OutlinePoolCounts {
  return { ...(pool?.counts ?? { parsedByWorker: 0, takenBack: 0, grammarsWarmed: 0 }) };
}

function startPool(): Pool | null {
  const file = compiledWorkerFile('summarize/syntax/outline-worker.js');
  if (file === undefined) return null;
  const slots = new Int32Array(new SharedArrayBuffer(SLOT_COUNT * Int32Array.BYTES_PER_ELEMENT)).fill(TAKEN_BY_CALLER);
  let worker: Worker;
  try {
    // none of this process's options (an --input-type, loader hooks): the worker runs one known module
    worker = new Worker(file, { workerData: { slots }, execArgv: [] });
  } catch {
    return null;
  }
  const freeSlots = Array.from({ length: SLOT_COUNT }, (_, i) => SLOT_COUNT - 1 - i);
  const current: Pool = { worker, slots, freeSlots, entries: new Map(), held: [], unclaimed: new Set(), unanswered: new Map(), nextId: 0, awaited: 0, warming: new Set(), counts: { parsedByWorker: 0, takenBack: 0, grammarsWarmed: 0 } };
  worker.on('message', (reply: OutlineReply | OutlineWarmed) => {
    if ('warmed' in reply) {
      current.counts.grammarsWarmed++;
      return;
    }
    const entry = current.unanswered.get(reply.id);
    if (!entry) return;
    current.unanswered.delete(reply.id);
    current.freeSlots.push(entry.slot!);
    current.counts.parsedByWorker++;
    entry.done = true;
    entry.settle?.('error' in reply ? undefined : reply.block);
  });
  let failed = false;
  const fail = () => {
    if (failed) return;
    failed = true;
    // whatever the worker had is parsed by the callers; nothing more is posted
    for (const entry of current.unanswered.values()) entry.settle?.(undefined);
    pool = null;
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  // after the listeners: adding a 'message' listener refs the worker's port again
  worker.unref();
  return current;
}

function post(current: Pool, entry: Entry): void {
  const slot = current.freeSlots.pop();
  if (slot === undefined) {
    current.held.push(entry);
    return;
  }
  const id = current.nextId;
  current.nextId = (current.nextId + 1) % MAX_ID;
  entry.id = id;
  entry.slot = slot;
  entry.result = new Promise((settle) => (entry.settle = settle));
  current.unclaimed.add(entry);
  current.unanswered.set(id, entry);
  Atomics.store(current.slots, slot, id);
  const request: OutlineRequest = { id, slot, languageId: entry.languageId, content: entry.content, codeBefore: entry.codeBefore };
  current.worker.postMessage(request);
}

/** Post held texts, newest first, while there is room. */
function refill(current: Pool): void {
  while (current.unclaimed.size < POSTED_MAX && current.freeSlots.length > 0 && current.held.length > 0) post(current, current.held.pop()!);
}

/** Take a posted text back before the worker starts it (it will skip it: no answer comes); false when the worker has it. */
function takeBack(current: Pool, entry: Entry): boolean {
  if (Atomics.compareExchange(current.slots, entry.slot!, entry.id!, TAKEN_BY_CALLER) !== entry.id) return false;
  current.unanswered.delete(entry.id!);
  current.freeSlots.push(entry.slot!);
  return true;
}

/** Drop what the last run started and nobody claimed (texts a run never asked the engine for). */
function forgetUnclaimed(current: Pool): void {
  current.held.length = 0;
  // not started: the worker skips it; started: its answer comes, frees the slot, and is dropped
  for (const entry of current.unclaimed) takeBack(current, entry);
  current.unclaimed.clear();
  current.entries.clear();
}

