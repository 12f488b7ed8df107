/**
 * Text to index terms: identifiers split on camelCase, PascalCase, snake_case, kebab-case and
 * digits, lower-cased, stopwords dropped, lightly stemmed. Used for both documents and the task
 * so `retryLoop`, `retry_loop` and "retry loop" meet on the same terms.
 */

/** Longest run of characters treated as one word; longer runs are minified/encoded noise. */
const MAX_WORD_CHARS = 64;
const MIN_TERM_CHARS = 2;

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its ' +
    'me my no not of on or our please should so some than that the their them then there these they this those to ' +
    'too up us was we were what when where which while who why will with would you your ' +
    // task boilerplate that says nothing about which file matters
    'add adding make makes change changes changed update updates fix fixes fixed use uses using need needs want ' +
    'new also just like get set via sure way'
  ).split(' '),
);

/** Split an identifier or phrase into lower-case words (no stemming, no stopword removal). */
export function splitIdentifier(text: string): string[] {
  // one pass over char classes: a word ends at a non-alphanumeric, at lower->Upper, at a
  // letter<->digit change, and before the last capital of a run followed by lower case
  // (HTTPClient -> HTTP, Client)
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? charClass(text.charCodeAt(i)) : OTHER;
    if (c === OTHER) {
      if (start !== -1) words.push(text.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start === -1) {
      start = i;
      continue;
    }
    const prev = charClass(text.charCodeAt(i - 1));
    const next = i + 1 < text.length ? charClass(text.charCodeAt(i + 1)) : OTHER;
    const boundary =
      (prev === LOWER && c === UPPER) ||
      ((prev === DIGIT) !== (c === DIGIT)) ||
      (prev === UPPER && c === UPPER && next === LOWER);
    if (boundary) {
      words.push(text.slice(start, i).toLowerCase());
      start = i;
    }
  }
  return words;
}

const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
function charClass(c: number): number {
  if (c >= 97 && c <= 122) return LOWER;
  if (c >= 65 && c <= 90) return UPPER;
  if (c >= 48 && c <= 57) return DIGIT;
  return OTHER;
}

/**
 * Index terms of a text: split words, plus the whole identifier when it was compound
 * (`tokenBudget` gives `token`, `budget` and `tokenbudget`), stopwords removed, stemmed.
 */
export function extractTerms(text: string): string[] {
  const terms: string[] = [];
  forEachWord(text, (raw) => {
    if (raw.length > MAX_WORD_CHARS) return;
    const words = splitIdentifier(raw);
    for (const word of words) pushTerm(terms, word);
    if (words.length > 1) pushTerm(terms, words.join(''));
  });
  return terms;
}

/**
 * Each word of a text, in order: a run of [A-Za-z0-9_$-] (what every index term comes from).
 * Scanned by hand: a regex match allocates an array per word (32 of the 363 MB a vite checkout
 * 20 commits back allocated on its main thread, in the terms fact).
 */
export function forEachWord(text: string, use: (word: string) => void): void {
  const n = text.length;
  for (let at = 0; at < n; ) {
    if (!isWordChar(text.charCodeAt(at))) {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < n && isWordChar(text.charCodeAt(end))) end++;
    use(text.slice(at, end));
    at = end;
  }
}

/** Whether a UTF-16 unit is one of [A-Za-z0-9_$-]. */
function isWordChar(c: number): boolean {
  return isAsciiAlphanumeric(c) || c === 95 || c === 36 || c === 45;
}

/** The distinct terms of a query, sorted: what BM25 searches for. */
export function queryTerms(text: string): string[] {
  return [...new Set(extractTerms(text))].sort();
}

/** Terms of a root-relative path: every directory and file-name part, extension dropped. */
export function pathTerms(path: string): string[] {
  const end = path.length - extensionLength(path);
  // extractTerms never joins across a '/', so the terms of a path are its segments' terms in
  // order; segments repeat across a repository's paths, so each is split once per process
  const out: string[] = [];
  for (let start = 0; start <= end; ) {
    const slash = path.indexOf('/', start);
    const stop = slash === -1 || slash > end ? end : slash;
    const segment = path.slice(start, stop);
    let terms = segmentTerms.get(segment);
    if (terms === undefined) {
      if (segmentTerms.size >= SEGMENT_MEMO_MAX) segmentTerms.clear();
      terms = extractTerms(segment);
      segmentTerms.set(segment, terms);
    }
    for (const term of terms) out.push(term);
    start = stop + 1;
  }
  return out;
}

/** Characters of the final `.ext` of a path (`/\.[A-Za-z0-9]+$/`), 0 when it has none. */
function extensionLength(path: string): number {
  let i = path.length - 1;
  while (i >= 0 && isAsciiAlphanumeric(path.charCodeAt(i))) i--;
  return i >= 0 && i < path.length - 1 && path.charCodeAt(i) === 46 ? path.length - i : 0;
}

function isAsciiAlphanumeric(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Path segment -> its terms; cleared when full so a long-lived process stays bounded. */
const segmentTerms = new Map<string, readonly string[]>();
const SEGMENT_MEMO_MAX = 200_000;

function pushTerm(out: string[], word: string): void {
  if (word.length < MIN_TERM_CHARS || STOPWORDS.has(word) || /^[0-9]+$/.test(word)) return;
  out.push(stem(word));
}

/**
 * A light suffix stemmer (a small subset of Porter step 1): plurals, -ing, -ed, -ly, -er, -ation.
 * Enough for "retries"/"retry", "parsing"/"parser"/"parse"; deliberately conservative so
 * identifiers stay recognisable.
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ation')) w = w.slice(0, -5);
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('er')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ly')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 3 && w.at(-1) === w.at(-2) && !/[aeiouls]/.test(w.at(-1) ?? '')) w = w.slice(0, -1);
  return w;
}
