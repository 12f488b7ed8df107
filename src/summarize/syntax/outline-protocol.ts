import type { BlockOutline } from './outline.js';

/**
 * What the outline pool (outline-pool.ts) and its worker (outline-worker.ts) exchange. Each
 * request owns a shared slot, which holds its id while nobody has taken it; the worker takes it
 * by swapping in TAKEN_BY_WORKER, the caller by swapping in TAKEN_BY_CALLER, so exactly one of
 * them parses the text. A stale request (its slot since given to a newer id) fails the swap.
 */
export const TAKEN_BY_WORKER = -1;
export const TAKEN_BY_CALLER = -2;

export interface OutlineRequest {
  id: number;
  slot: number;
  languageId: string;
  content: string;
  /** Code came before this block in its file (outlineBlock). */
  codeBefore: boolean;
}

/** Load a language's grammar now, ahead of its blocks (warmOutlinePool); answered with OutlineWarmed. */
export interface OutlineWarm {
  warm: string;
}

export type OutlineMessage = OutlineRequest | OutlineWarm;

export type OutlineReply = { id: number; block: BlockOutline | null } | { id: number; error: string };

/** The grammar of `warmed` is loaded (or could not be: then its blocks fail as they come). */
export interface OutlineWarmed {
  warmed: string;
}
