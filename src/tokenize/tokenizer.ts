import { UsageError } from '../errors.js';
import { nextSafeSplit } from './safe-split.js';

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
}

/** Special tokens such as `<|endoftext|>` occur in real repositories: count them as text. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>(), allowedSpecial: new Set<string>() };

/**
 * Create a tokenizer. The encoding tables are imported lazily (~260 ms) so `--help`
 * and pure-cache runs start fast.
 */
export async function createTokenizer(id: TokenizerId): Promise<Tokenizer> {
  switch (id) {
    case 'chars4':
      return createChars4Tokenizer();
    case 'o200k':
      return wrapGpt(id, await import('gpt-tokenizer/encoding/o200k_base'));
    case 'cl100k':
      return wrapGpt(id, await import('gpt-tokenizer/encoding/cl100k_base'));
    default:
      throw new UsageError(`unknown tokenizer "${String(id)}": use one of ${TOKENIZER_IDS.join(', ')}`);
  }
}

interface GptModule {
  countTokens(text: string, options?: object): number;
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
function wrapGpt(id: TokenizerId, mod: GptModule): Tokenizer {
  const memo = new Map<string, number>();
  let memoChars = 0;
  const countPiece = (piece: string): number => {
    if (piece.length > MEMO_MAX_PIECE_CHARS) return mod.countTokens(piece, NO_SPECIAL);
    let n = memo.get(piece);
    if (n !== undefined) return n;
    n = mod.countTokens(piece, NO_SPECIAL);
    memo.set(piece, n);
    memoChars += piece.length;
    for (const oldest of memo.keys()) {
      if (memoChars <= MEMO_MAX_CHARS) break;
      memo.delete(oldest);
      memoChars -= oldest.length;
    }
    return n;
  };
  return {
    id,
    count(text) {
      let total = 0;
      let start = 0;
      for (let cut = nextSafeSplit(text); cut >= 0; cut = nextSafeSplit(text, cut)) {
        total += countPiece(text.slice(start, cut));
        start = cut;
      }
      return start < text.length ? total + countPiece(text.slice(start)) : total;
    },
  };
}

/**
 * A tokenizer factory that makes each id once and hands the same one out again, for a
 * long-lived process (the warm repository index, the provider): the encoding table loads once
 * and the remembered piece counts carry over from one query to the next. A failed load is retried.
 */
export function memoiseTokenizers(create: (id: TokenizerId) => Promise<Tokenizer> = createTokenizer): (id: TokenizerId) => Promise<Tokenizer> {
  const made = new Map<TokenizerId, Promise<Tokenizer>>();
  return (id) => {
    let tokenizer = made.get(id);
    if (tokenizer === undefined) {
      tokenizer = create(id);
      made.set(id, tokenizer);
      tokenizer.catch(() => made.delete(id));
    }
    return tokenizer;
  };
}

/**
 * A tokenizer whose table is still loading, for the stages of a run that count nothing (collect
 * and score): the table loads while git and the fact store are read. Counting before `loaded`
 * has resolved is a bug in the caller, and says so.
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
