import { parentPort, workerData } from 'node:worker_threads';
import { LANGUAGES } from '../languages/index.js';
import { createSyntaxEngine } from './engine.js';
import { outlineBlock } from './outline.js';
import { TAKEN_BY_WORKER, type OutlineMessage, type OutlineReply, type OutlineRequest, type OutlineWarmed } from './outline-protocol.js';

/**
 * The outline pool's thread (outline-pool.ts): parses the blocks it is sent with its own syntax
 * engine, the newest first, skipping any the caller took back, and answers each with its block
 * outline (or an error, which the caller answers by parsing itself). Nothing is remembered here:
 * the caller's engine keeps the outlines.
 */
const { slots } = workerData as { slots: Int32Array };
const engine = createSyntaxEngine();
const byId = new Map(LANGUAGES.map((language) => [language.id, language]));
const pending: OutlineRequest[] = [];
let draining = false;

parentPort!.on('message', (message: OutlineMessage) => {
  if ('warm' in message) {
    void warm(message.warm);
    return;
  }
  pending.push(message);
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
});

async function drain(): Promise<void> {
  while (pending.length > 0) {
    const request = pending.pop()!;
    if (Atomics.compareExchange(slots, request.slot, request.id, TAKEN_BY_WORKER) !== request.id) continue;
    parentPort!.postMessage(await outlineOf(request));
    // let requests posted meanwhile in before the next pick
    await new Promise((next) => setImmediate(next));
  }
  draining = false;
}

/** Load a grammar before its first block comes (a parse of nothing loads the runtime and the grammar). */
async function warm(languageId: string): Promise<void> {
  const language = byId.get(languageId);
  if (language !== undefined) await engine.withTree(language, '', () => null).catch(() => null);
  parentPort!.postMessage({ warmed: languageId } satisfies OutlineWarmed);
}

async function outlineOf({ id, languageId, content, codeBefore }: OutlineRequest): Promise<OutlineReply> {
  const language = byId.get(languageId);
  if (language === undefined) return { id, error: `no language ${languageId}` };
  try {
    return { id, block: await engine.withTree(language, content, (tree) => outlineBlock(tree, content, language, codeBefore)) };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}
