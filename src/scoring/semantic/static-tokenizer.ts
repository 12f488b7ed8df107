import { TOKENIZER_NORMALIZER, TOKENIZER_PRE_TOKENIZER } from './static-model-builder.js';
import { mapVocab, type Vocabulary } from './vocab-table.js';
import { FifoMemo } from '../../util/fifo-memo.js';

/**
 * The tokenizer of a static-model-builder model, run directly from its tokenizer.json: the same
 * token ids transformers.js (through @huggingface/tokenizers 0.2) gives for that file, without
 * its per-call objects. Steps, in transformers.js' order:
 * 1. split the raw text on the added tokens (`[PAD]`, `[UNK]`: not normalized), leftmost then
 *    longest match; a section that is an added token is that token;
 * 2. normalize each other section (NFKC, the camelCase-boundary Replace with flags `gu`, lower case);
 * 3. pre-tokenize: the Split pattern's matches are the words (`invert: true`);
 * 4. WordPiece: greedy longest match over code points, `##` on continuation pieces, a word that
 *    does not split into known pieces or is longer than max_input_chars_per_word is `[UNK]`;
 * 5. truncation to model_max_length (transformers.js keeps the first tokens).
 * Any other tokenizer.json shape is refused with an error naming the field, never guessed at.
 * The builder's own rules are local, so for them steps 2-4 run per identifier-like run and are
 * remembered (localSectionIds); any other rules run over the whole section.
 */
export interface StaticTokenizer {
  /** Token ids of `text`, truncated to the model's maximum length. */
  encode(text: string): number[];
  /** Largest id the vocabulary or an added token uses (checked against the embedding table). */
  readonly maxId: number;
}

/** Words whose pieces are remembered; code repeats its identifiers, so most words hit. */
export const WORD_MEMO_SIZE = 50_000;

/**
 * Compile `tokenizer.json` (parsed) with `model_max_length` from tokenizer_config.json. `vocab`:
 * the WordPiece vocabulary when the caller has it already (a model pack); `model.vocab` is then not read.
 */
export function compileStaticTokenizer(json: unknown, maxLength: number, file: string, memoSize = WORD_MEMO_SIZE, vocab?: Vocabulary): StaticTokenizer {
  const spec = asRecord(json, file, 'the top level');
  if (spec.post_processor !== null && spec.post_processor !== undefined) unsupported(file, 'post_processor', 'null');
  const added = addedTokens(spec.added_tokens, file);
  const normalize = compileNormalizer(spec.normalizer, file, 'normalizer');
  const words = compilePreTokenizer(spec.pre_tokenizer, file);
  const addedIds = new Map(added.map((t) => [t.content, t.id] as const));
  const model = compileWordPiece(spec.model, file, addedIds, vocab);
  const wordIds = memoised(model.pieces, memoSize);

  /** The general path: the whole section through the normalizer, then its words. */
  const sectionIds = (section: string, out: number[]) => {
    const normalized = normalize(section);
    const same = addedIds.get(normalized);
    if (same !== undefined) out.push(same);
    else for (const word of words(normalized)) for (const piece of wordIds(word)) out.push(piece);
  };
  const afterNfkc = compileNormalizer({ ...TOKENIZER_NORMALIZER, normalizers: TOKENIZER_NORMALIZER.normalizers.slice(1) }, file, 'normalizer');
  const local = hasLocalRules(spec, added) ? localSectionIds(sectionIds, afterNfkc, words, wordIds, memoSize) : sectionIds;

  return {
    maxId: Math.max(model.maxId, ...added.map((t) => t.id)),
    encode(text) {
      const out: number[] = [];
      for (const section of splitOnAddedTokens(text, added)) {
        const id = addedIds.get(section);
        if (id !== undefined) out.push(id);
        else local(section, out);
        if (out.length >= maxLength) break;
      }
      if (out.length > maxLength) out.length = maxLength;
      return out;
    },
  };
}

/** `compute` behind a memo of at most `size` keys, the oldest out first (FifoMemo). */
function memoised(compute: (key: string) => readonly number[], size: number): (key: string) => readonly number[] {
  const memo = new FifoMemo<string, readonly number[]>({ maxEntries: size });
  return (key) => {
    let ids = memo.get(key);
    if (ids === undefined) {
      ids = compute(key);
      memo.set(key, ids);
    }
    return ids;
  };
}

/**
 * Whether the tokenizer is the builder's own (TOKENIZER_RULES). Its rules are local: the camelCase
 * boundary looks only at the letters and digits beside it, a word is a run of letters, no
 * character outside letters and digits lower-cases to a letter, and lower-casing is per character
 * except for Σ (final sigma). Added tokens hold an upper-case letter, so no lower-cased section
 * equals one.
 */
function hasLocalRules(spec: Record<string, unknown>, added: readonly AddedToken[]): boolean {
  return (
    JSON.stringify(spec.normalizer) === JSON.stringify(TOKENIZER_NORMALIZER) &&
    JSON.stringify(spec.pre_tokenizer) === JSON.stringify(TOKENIZER_PRE_TOKENIZER) &&
    added.every((t) => t.content !== t.content.toLowerCase())
  );
}

/** Maximal runs of letters and digits: with local rules, a section's words are its runs' words. */
const RUN_PATTERN = /[\p{L}\p{Nd}]+/gu;
const FINAL_SIGMA_CONTEXT = 'Σ';

/**
 * The local rules' path: NFKC over the section (composition looks across characters), then each
 * run of letters and digits alone through the rest of the normalizer and the pre-tokenizer, its
 * ids remembered: runs are mostly identifiers, and code repeats them. A section holding Σ, whose
 * lower case depends on what follows the run, takes the general path.
 */
function localSectionIds(
  general: (section: string, out: number[]) => void,
  /** The normalizer's steps after NFKC (the Replace, Lowercase). */
  normalize: Normalize,
  words: (text: string) => readonly string[],
  wordIds: (word: string) => readonly number[],
  memoSize: number,
): (section: string, out: number[]) => void {
  const runIds = memoised((run) => words(normalize(run)).flatMap(wordIds), memoSize);
  return (section, out) => {
    const composed = section.normalize('NFKC');
    if (composed.includes(FINAL_SIGMA_CONTEXT)) return general(section, out);
    for (const run of composed.match(RUN_PATTERN) ?? []) for (const id of runIds(run)) out.push(id);
  };
}

interface AddedToken {
  content: string;
  id: number;
}

function addedTokens(value: unknown, file: string): AddedToken[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) unsupported(file, 'added_tokens', 'a list');
  return value.map((entry: unknown, i) => {
    const token = asRecord(entry, file, `added_tokens[${i}]`);
    const { content, id } = token;
    if (typeof content !== 'string' || content.length === 0 || !isId(id)) unsupported(file, `added_tokens[${i}]`, 'a non-empty content and an integer id');
    // transformers.js: `normalized` defaults to !special; a normalized added token would be matched after normalization.
    const normalized = token.normalized ?? token.special !== true;
    if (normalized !== false || token.lstrip === true || token.rstrip === true) unsupported(file, `added_tokens[${i}]`, 'normalized: false, lstrip and rstrip false');
    return { content, id };
  });
}

/**
 * Sections of `text` between added tokens, the tokens as their own sections: at the leftmost
 * position where any token starts, the longest one (what transformers.js' DictionarySplitter does).
 */
function splitOnAddedTokens(text: string, added: readonly AddedToken[]): string[] {
  if (added.length === 0 || !added.some((t) => text.includes(t.content))) return text.length > 0 ? [text] : [];
  const sections: string[] = [];
  let from = 0;
  for (;;) {
    let at = -1;
    let match = '';
    for (const { content } of added) {
      const i = text.indexOf(content, from);
      if (i >= 0 && (at < 0 || i < at || (i === at && content.length > match.length))) {
        at = i;
        match = content;
      }
    }
    if (at < 0) break;
    if (at > from) sections.push(text.slice(from, at));
    sections.push(match);
    from = at + match.length;
  }
  if (from < text.length) sections.push(text.slice(from));
  return sections;
}

type Normalize = (text: string) => string;

function compileNormalizer(value: unknown, file: string, where: string): Normalize {
  if (value === null || value === undefined) return (text) => text;
  const spec = asRecord(value, file, where);
  switch (spec.type) {
    case 'Sequence': {
      if (!Array.isArray(spec.normalizers)) unsupported(file, `${where}.normalizers`, 'a list');
      const steps = spec.normalizers.map((n: unknown, i) => compileNormalizer(n, file, `${where}.normalizers[${i}]`));
      return (text) => {
        for (const step of steps) text = step(text);
        return text;
      };
    }
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = spec.type;
      return (text) => text.normalize(form);
    }
    case 'Lowercase':
      return (text) => text.toLowerCase();
    case 'Replace': {
      const pattern = compilePattern(spec.pattern, file, `${where}.pattern`);
      const content = typeof spec.content === 'string' ? spec.content : '';
      return (text) => text.replaceAll(pattern, content);
    }
    default:
      return unsupported(file, `${where}.type`, 'Sequence, NFC, NFD, NFKC, NFKD, Lowercase or Replace');
  }
}

function compilePreTokenizer(value: unknown, file: string): (text: string) => readonly string[] {
  const spec = asRecord(value, file, 'pre_tokenizer');
  if (spec.type !== 'Split' || spec.invert !== true) unsupported(file, 'pre_tokenizer', 'a Split with invert: true (its matches are the words)');
  const pattern = compilePattern(spec.pattern, file, 'pre_tokenizer.pattern');
  return (text) => {
    const found = text.match(pattern);
    return found === null ? [] : found.filter((word) => word.length > 0);
  };
}

/**
 * transformers.js compiles a tokenizer.json pattern with flags `gu` (a `String` pattern escaped).
 * It first rewrites Oniguruma-only syntax; the builder's patterns (TOKENIZER_RULES) are plain
 * JavaScript regexes it leaves unchanged, which the equivalence test checks.
 */
function compilePattern(value: unknown, file: string, where: string): RegExp {
  const spec = asRecord(value, file, where);
  if (typeof spec.Regex === 'string') return new RegExp(spec.Regex, 'gu');
  if (typeof spec.String === 'string') return new RegExp(spec.String.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu');
  return unsupported(file, where, 'a Regex or String pattern');
}

interface WordPiece {
  /** Ids of a word's pieces, or `[unk]` when it does not split into known pieces. */
  pieces(word: string): readonly number[];
  maxId: number;
}

/** `addedIds`: the added tokens, content -> id; they take precedence over the vocabulary's own entries. */
function compileWordPiece(value: unknown, file: string, addedIds: ReadonlyMap<string, number>, given?: Vocabulary): WordPiece {
  const spec = asRecord(value, file, 'model');
  if (spec.type !== 'WordPiece') unsupported(file, 'model.type', 'WordPiece');
  const base = given ?? mapVocab(vocabOfJson(spec.vocab, file));
  const unkToken = typeof spec.unk_token === 'string' ? spec.unk_token : '[UNK]';
  // The model looks the unknown token up in its own vocabulary, before added tokens are merged in.
  const unkId = base.get(unkToken);
  if (unkId === undefined) unsupported(file, 'model.unk_token', 'a token of model.vocab');
  const lookup = (piece: string) => addedIds.get(piece) ?? base.get(piece);
  const maxId = base.maxId;
  const prefix = typeof spec.continuing_subword_prefix === 'string' ? spec.continuing_subword_prefix : '##';
  const maxChars = isId(spec.max_input_chars_per_word) ? spec.max_input_chars_per_word : 100;
  const unknown: readonly number[] = [unkId];
  /** The longest piece from `start` (UTF-16 units): the vocabulary's, or an added token's at least as long (added tokens win a tie). */
  const longestUnits = (word: string, start: number, head: string): readonly [number, number] | undefined => {
    let best = base.longest(word, start, head);
    for (const [content, id] of addedIds) {
      const end = start + content.length - head.length;
      if (end > start && end <= word.length && (best === undefined || end >= best[1]) && content.startsWith(head) && word.startsWith(content.slice(head.length), start)) best = [id, end];
    }
    return best;
  };
  /** The same over code points (a word with surrogate pairs), one lookup per candidate piece. */
  const longestChars = (chars: readonly string[], start: number, head: string): readonly [number, number] | undefined => {
    for (let end = chars.length; end > start; end--) {
      const id = lookup(head + chars.slice(start, end).join(''));
      if (id !== undefined) return [id, end];
    }
    return undefined;
  };

  return {
    maxId,
    pieces(word) {
      // Characters are code points (transformers.js spreads the word); a word without surrogates
      // is indexed by UTF-16 unit directly.
      const chars = /[\uD800-\uDFFF]/.test(word) ? Array.from(word) : null;
      const length = chars === null ? word.length : chars.length;
      if (length > maxChars) return unknown;
      const ids: number[] = [];
      for (let start = 0; start < length; ) {
        const head = start > 0 ? prefix : '';
        const match = chars === null ? longestUnits(word, start, head) : longestChars(chars, start, head);
        if (match === undefined) return unknown;
        ids.push(match[0]);
        start = match[1];
      }
      return ids;
    },
  };
}

/** `model.vocab` of tokenizer.json, each id checked. */
function vocabOfJson(value: unknown, file: string): Map<string, number> {
  const vocabJson = asRecord(value, file, 'model.vocab');
  const vocab = new Map<string, number>();
  for (const key of Object.keys(vocabJson)) {
    const id = vocabJson[key];
    if (!isId(id)) unsupported(file, `model.vocab[${JSON.stringify(key)}]`, 'an integer id');
    vocab.set(key, id);
  }
  return vocab;
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function asRecord(value: unknown, file: string, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) unsupported(file, where, 'an object');
  // Checked just above: a non-null, non-array object.
  return value as Record<string, unknown>;
}

function unsupported(file: string, where: string, expected: string): never {
  throw new Error(`${file}: ${where} is not what a static embedding model's tokenizer has (expected ${expected}); rebuild the model with static-model-builder or drop aiwg_static_embedding from its config.json`);
}
