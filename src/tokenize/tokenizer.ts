import { UsageError } from '../errors.js';
import { bpeCounter, inThreadCounter, type BpeCounter } from './bpe-counter.js';
import type { TableFiles } from './bpe-encoding.js';
import type { PieceCounts } from './piece-counts.js';
import { eachPiece, isSafeSplitAt } from './safe-split.js';
import { FifoMemo } from '../util/fifo-memo.js';
import { ownString } from '../util/own-string.js';

/** Tokenizer ids accepted by config and `--tokenizer`. */
export const TOKENIZER_IDS = ['o200k', 'cl100k', 'chars4'] as const;
export type TokenizerId = (typeof TOKENIZER_IDS)[number];

/**
 * The tokenizer port. Every budget in the engine is counted through one of these, so a
 * promise like "never exceeds `available`" holds for the tokenizer the user chose.
 */
export interface Tokenizer {
  readonly id: TokenizerId;
  /** Exact token count of `text` (for `chars4`: ceil(length / 4)). */
  count(text: string): number;
  /** Counts of several texts at once, each as `count` gives it (one batch for the pieces not remembered). */
  countMany?(texts: readonly string[]): number[];
}

/** Counts of several texts: in one batch where the tokenizer can, else one by one. */
export function countAll(tokenizer: Tokenizer, texts: readonly string[]): number[] {
  return tokenizer.countMany ? tokenizer.countMany(texts) : texts.map((text) => tokenizer.count(text));
}

/**
 * Whether the tokenizer's count adds up at safe split points (safe-split.ts): count(A + B) =
 * count(A) + count(B) where A ends in a newline that B's start makes safe. The GPT encodings
 * count piecewise between those points; chars4 (ceil(length / 4)) does not.
 */
export function splitsExactly(tokenizer: Tokenizer): boolean {
  return tokenizer.id !== 'chars4';
}

/**
 * count(first + second) where second's count is already known (`secondTokens`): first's count
 * plus it when the join is a safe split point (the pieces of the whole are then first's and
 * second's), else the whole text counted.
 */
export function countJoined(tokenizer: Tokenizer, first: string, second: string, secondTokens: number): number {
  if (second.length === 0) return tokenizer.count(first);
  if (splitsExactly(tokenizer) && first.endsWith('\n') && isSafeSplitAt(second, 0)) return tokenizer.count(first) + secondTokens;
  return tokenizer.count(first + second);
}

export interface TokenizerOptions {
  /** Piece counts remembered across runs (piece-counts.ts): consulted before counting, given what is counted. */
  pieceCounts?: PieceCounts;
  /**
   * Where the encoding's table is kept between runs (bpe-table.ts): one file, or several in order
   * of preference (read from the first that holds it, written to the first that can be written);
   * without one it loads from gpt-tokenizer each time.
   */
  tableFile?: TableFiles;
}

/**
 * Create a tokenizer. A run that remembers piece counts from earlier runs counts through a worker
 * thread (bpe-counter.ts) whose table loads while this thread goes on (the pipeline: while it scores).
 */
export async function createTokenizer(id: TokenizerId, options: TokenizerOptions = {}): Promise<Tokenizer> {
  switch (id) {
    case 'chars4':
      return createChars4Tokenizer();
    case 'o200k':
    case 'cl100k': {
      // With a table file the encoding loads here on the first count (in ~10 ms from the file; the
      // first time from gpt-tokenizer, which writes the file). Without one: with pieces remembered, a
      // run counts little, and gpt-tokenizer's table loads in a worker meanwhile; without (a caller
      // that keeps its own tokenizer), it counts much, and the table loads here.
      const remembered = (options.pieceCounts?.remembered ?? 0) > 0;
      const counter = options.tableFile !== undefined || !remembered ? inThreadCounter(id, options.tableFile) : bpeCounter(id);
      return wrapGpt(id, counter, options.pieceCounts);
    }
    default:
      throw new UsageError(`unknown tokenizer "${String(id)}": use one of ${TOKENIZER_IDS.join(', ')}`);
  }
}

/** Pieces longer than this are counted but not remembered (a minified bundle's one line). */
const MEMO_MAX_PIECE_CHARS = 16_384;
/** Characters of remembered pieces per tokenizer (about 2 bytes each); the oldest go first beyond it. */
const MEMO_MAX_CHARS = 8_000_000;

/**
 * A GPT encoding behind the port. A text is counted as the sum of its pieces between safe BPE
 * split points (src/tokenize/safe-split.ts: exact by construction), and each piece's count is
 * remembered: a file block is counted once when its cost is computed and again for free inside
 * the rendered document, the header re-renders and the repair loop; a long-lived process (the MCP
 * server, a provider) counts the next task's blocks from memory. Memory is per tokenizer, never global.
 */
function wrapGpt(id: TokenizerId, counter: BpeCounter, stored?: PieceCounts): Tokenizer {
  const memo = new FifoMemo<string, number>({ maxWeight: MEMO_MAX_CHARS, weigh: (piece) => piece.length });
  /** Remember a piece's count (and, when it was just counted, in the store of later runs). */
  const remember = (piece: string, n: number, counted: boolean) => {
    if (piece.length > MEMO_MAX_PIECE_CHARS) return;
    // a piece is a slice of the text it came from: the memo keeps a copy, not that text
    memo.set(ownString(piece), n);
    if (counted) stored?.set(piece, n);
  };
  /** A piece's count from memory, else from the store of earlier runs; undefined: count it. */
  const known = (piece: string): number | undefined => {
    const n = memo.get(piece);
    if (n !== undefined || stored === undefined || piece.length > MEMO_MAX_PIECE_CHARS) return n;
    const fromStore = stored.get(piece);
    if (fromStore !== undefined) remember(piece, fromStore, false);
    return fromStore;
  };
  /** Total counts of `texts`: remembered pieces from memory, every other piece in one batch. */
  const countTexts = (texts: readonly string[]): number[] => {
    const totals = texts.map(() => 0);
    // pieces not remembered yet, with the text each belongs to
    const missing: string[] = [];
    const owners: number[] = [];
    texts.forEach((text, owner) => {
      eachPiece(text, (piece) => {
        const n = known(piece);
        if (n === undefined) {
          missing.push(piece);
          owners.push(owner);
        } else totals[owner]! += n;
      });
    });
    if (missing.length === 0) return totals;
    const unique = [...new Set(missing)];
    const counts = counter.countPieces(unique);
    const countOf = new Map(unique.map((piece, i) => [piece, counts[i]!]));
    missing.forEach((piece, i) => {
      totals[owners[i]!]! += countOf.get(piece)!;
    });
    unique.forEach((piece, i) => remember(piece, counts[i]!, true));
    return totals;
  };
  return {
    id,
    count: (text) => countTexts([text])[0]!,
    countMany: countTexts,
  };
}

/** The tokenizers memoiseTokenizers made. */
const longLived = new WeakSet<Tokenizer>();

/**
 * Whether `tokenizer` serves a long-lived process (made by memoiseTokenizers): its callers see
 * the same file blocks query after query, so what is computed with it may be remembered per
 * tokenizer (block-cost.ts keeps block costs).
 */
export function isLongLived(tokenizer: Tokenizer): boolean {
  return longLived.has(tokenizer);
}

/**
 * A tokenizer factory that makes each id once and hands the same one out again, for a
 * long-lived process (the warm repository index, the provider): the encoding table loads once
 * and the remembered piece counts carry over from one query to the next (the options of the
 * call that makes it: a long-lived caller passes the same piece-count store every time). A
 * failed load is retried.
 */
export function memoiseTokenizers(
  create: (id: TokenizerId, options?: TokenizerOptions) => Promise<Tokenizer> = createTokenizer,
): (id: TokenizerId, options?: TokenizerOptions) => Promise<Tokenizer> {
  const made = new Map<TokenizerId, Promise<Tokenizer>>();
  return (id, options) => {
    let tokenizer = made.get(id);
    if (tokenizer === undefined) {
      tokenizer = create(id, options).then((created) => {
        longLived.add(created);
        return created;
      });
      made.set(id, tokenizer);
      tokenizer.catch(() => made.delete(id));
    }
    return tokenizer;
  };
}

/**
 * A tokenizer whose table is still loading, for the stages of a run that count nothing (collect
 * and score). Counting with it is a bug in the caller, and says so.
 */
export function loadingTokenizer(id: TokenizerId): Tokenizer {
  return {
    id,
    count() {
      throw new Error(`internal: the ${id} tokenizer was asked to count before it had loaded`);
    },
  };
}

/** The chars/4 heuristic of spec 000 (`estimateTokens`), as a tokenizer. */
export function createChars4Tokenizer(): Tokenizer {
  return { id: 'chars4', count: (text) => Math.ceil(text.length / 4) };
}

export function isTokenizerId(value: string): value is TokenizerId {
  return (TOKENIZER_IDS as readonly string[]).includes(value);
}
