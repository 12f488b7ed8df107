import type { CandidateFile } from '../types.js';
import { kindKey, type FactKind, type FactSource } from '../facts/fact-kind.js';
import { collectFactKey, type CollectFact, type FactStore, type StatEntry } from '../facts/fact-store.js';
import type { FileInfo } from './collect-ports.js';
import { analyseContent, readCandidate, redactKnownFindings, type ReadOptions, type ReadOutcome } from './read-candidate.js';
import { underRoot } from '../util/root-path.js';

/**
 * A stat entry is trusted only for files last modified at least this long before it was
 * recorded: a file written in the same instant as the scan could change again without its
 * (size, mtime, inode) changing (git's "racily clean" problem).
 */
export const RACY_WINDOW_MS = 2000;

export interface IndexedReadOptions extends ReadOptions {
  store: FactStore;
  /** Fact kinds extracted whenever a blob is read (src/facts/registry.ts). */
  kinds: ReadonlyArray<FactKind<unknown>>;
  /** Synchronous read for content loaded on first use. */
  readFileSync: (abs: string) => Buffer;
  /** Synchronous lstat for an mtime looked up on first use; without it every known file is stat'ed at collect. */
  lstatSync?: (abs: string) => Pick<FileInfo, 'mtimeMs'>;
  /** Epoch ms of the run (the racy-stat guard). */
  nowMs: number;
  /** Told each candidate whose blob is read and analysed here because its facts were missing, as it is read (not one whose blob's facts the read found known). */
  onNewBlob?: (file: CandidateFile) => void;
}

/**
 * A path collect can answer without reading it: a regular file whose blob's facts the store
 * knows (from git's index, before git status has said which files changed). Undefined when the
 * path needs a read (its blob is new, it is a link, too large, or gone): readIndexed then.
 *
 * The caller takes the answer only for a path git status does not name, and `gitBlob` comes
 * only from entries status compares with the working tree (parseStagedFiles): the file on disk
 * is then a regular file holding that blob, so a fact that knows the blob's size needs no stat;
 * its mtime is looked up only if a stage asks for it (one without a commit time).
 */
export async function readKnown(path: string, gitBlob: string, options: IndexedReadOptions): Promise<ReadOutcome | undefined> {
  const known = knownBlob(options.store, options.kinds, path, gitBlob, options.rules.includeSecrets);
  if (!known) return undefined;
  const vouched = vouchedOutcome(path, known, options);
  if (vouched !== null) return vouched;
  const abs = absolutePath(path, options);
  const info = await options.fs.lstat(abs).catch(() => undefined);
  if (info === undefined || info.kind !== 'file' || info.size > options.maxBytes) return undefined;
  return knownOutcome(path, abs, info, known, options);
}

/**
 * The outcome of a file git vouches for (its blob from git's index, no change by git status)
 * when the blob's facts know its size: no stat. undefined when it is too large (a read says
 * so), null when the size is not known (facts written before it was kept) and a stat must tell.
 */
function vouchedOutcome(path: string, known: CollectFact, options: IndexedReadOptions): ReadOutcome | undefined | null {
  if (known.size === undefined || options.lstatSync === undefined) return null;
  return known.size > options.maxBytes ? undefined : knownOutcome(path, absolutePath(path, options), { size: known.size }, known, options);
}

/**
 * Collect one path through the fact store: a blob whose facts are known (from git's index for a
 * tracked, unmodified file, which then needs no stat either: vouchedOutcome; else from the stat
 * table) is not read; its content is loaded, and redacted, only if a later stage asks for it.
 * Any other file is read once, and everything the registered fact kinds extract from it is
 * stored under its content hash.
 */
export async function readIndexed(path: string, gitBlob: string | undefined, options: IndexedReadOptions): Promise<ReadOutcome> {
  const { fs, maxBytes, store } = options;
  const includeSecrets = options.rules.includeSecrets;
  const vouchedFor = gitBlob === undefined ? undefined : knownBlob(store, options.kinds, path, gitBlob, includeSecrets);
  const vouched = vouchedFor === undefined ? null : vouchedOutcome(path, vouchedFor, options);
  if (vouched) return vouched;
  const abs = absolutePath(path, options);
  let info: FileInfo;
  try {
    info = await fs.lstat(abs);
  } catch {
    return readCandidate(path, options);
  }
  // Links, directories and other oddities take the full path, which explains them.
  if (info.kind !== 'file' || info.size > maxBytes) return bindRead(path, await readCandidate(path, options), options);
  const blob = gitBlob ?? statBlob(store.stat(options.rootReal, path), info);
  // git's blob was looked up above already
  const known = gitBlob !== undefined ? vouchedFor : blob === undefined ? undefined : knownBlob(store, options.kinds, path, blob, includeSecrets);
  if (known) return knownOutcome(path, abs, info, known, options);

  let bytes: Buffer;
  try {
    bytes = await fs.readFile(abs, maxBytes);
  } catch {
    return readCandidate(path, options);
  }
  if (bytes.length > maxBytes) return readCandidate(path, options);
  const analysed = await analyseContent(path, bytes, options.rules, options.secretCache ?? null);
  // a blob collect knows read again (a file changed less than RACY_WINDOW_MS ago, or whose stat
  // changed but not its content): its facts are there, so it is no new content for the run
  const seen = knownBlob(store, options.kinds, path, analysed.blob, includeSecrets) !== undefined;
  const fact: CollectFact =
    'excluded' in analysed
      ? { excluded: analysed.excluded, lineCount: 0, hash: analysed.blob }
      : { lineCount: analysed.lineCount, hash: analysed.hash, size: bytes.length, ...(analysed.redacted ? { redacted: analysed.redacted } : {}), ...(analysed.findings ? { findings: analysed.findings } : {}) };
  store.putCollect(collectFactKey(analysed.blob, basenameOf(path), includeSecrets), fact);
  if (gitBlob === undefined && info.mtimeMs < options.nowMs - RACY_WINDOW_MS) {
    store.setStat(options.rootReal, path, { size: bytes.length, mtimeMs: info.mtimeMs, ino: info.ino ?? 0, ctimeMs: info.ctimeMs ?? 0, blob: analysed.blob });
  }
  if ('excluded' in analysed) return { excluded: { path, reason: analysed.excluded } };
  const read: CandidateFile = { path, content: analysed.content, size: bytes.length, mtimeMs: Math.floor(info.mtimeMs), hash: analysed.hash, lineCount: analysed.lineCount };
  if (!seen) options.onNewBlob?.(read);
  extractAll(store, options.kinds, read);
  // The run goes on with the file as a known blob's: its text is read again if a later stage asks
  // (the few hundred files summarised or rendered), so a cold run does not hold the text of every
  // file (~150 MB on a 20,000-file tree) to its end.
  return knownOutcome(path, abs, { size: bytes.length, mtimeMs: info.mtimeMs }, fact, options);
}

function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function absolutePath(path: string, options: IndexedReadOptions): string {
  return underRoot(options.rootReal, path);
}

/**
 * The outcome of a file whose blob's facts are known (`known`): no read, its content loads on
 * first use. Without an mtime in `info`, the file's is looked up on first use.
 */
function knownOutcome(path: string, abs: string, info: Pick<FileInfo, 'size'> & Partial<Pick<FileInfo, 'mtimeMs'>>, known: CollectFact, options: IndexedReadOptions): ReadOutcome {
  if (known.excluded !== undefined) return { excluded: { path, reason: known.excluded } };
  const file = lazyFile(path, abs, info, known, options);
  return { file, ...(known.redacted ? { redacted: known.redacted } : {}) };
}

/** A known file's mtime, looked up when first asked for; one deleted since the scan gets the run's time, as a file just changed. */
function mtimeOf(abs: string, options: IndexedReadOptions): number {
  try {
    return options.lstatSync!(abs).mtimeMs;
  } catch {
    return options.nowMs;
  }
}

/** The blob id the stat table holds for an unchanged file. */
function statBlob(entry: StatEntry | undefined, info: FileInfo): string | undefined {
  if (!entry) return undefined;
  const same = entry.size === info.size && entry.mtimeMs === info.mtimeMs && entry.ino === (info.ino ?? 0) && entry.ctimeMs === (info.ctimeMs ?? 0);
  return same ? entry.blob : undefined;
}

/**
 * The collect fact of a blob at `path` when the store knows everything collect would extract from
 * it (or that it is excluded), else undefined: then the blob is read and analysed.
 */
function knownBlob(store: FactStore, kinds: ReadonlyArray<FactKind<unknown>>, path: string, blob: string, includeSecrets: boolean): CollectFact | undefined {
  const known = store.getCollect(collectFactKey(blob, basenameOf(path), includeSecrets));
  return known && (known.excluded !== undefined || hasAllFacts(store, kinds, path, known.hash)) ? known : undefined;
}

function hasAllFacts(store: FactStore, kinds: ReadonlyArray<FactKind<unknown>>, path: string, hash: string): boolean {
  return kinds.every((kind) => kind.withoutContent?.(path) !== undefined || store.getFact(kindKey(kind, path), hash) !== undefined);
}

function extractAll(store: FactStore, kinds: ReadonlyArray<FactKind<unknown>>, file: CandidateFile): void {
  for (const kind of kinds) {
    if (kind.withoutContent?.(file.path) !== undefined) continue;
    const key = kindKey(kind, file.path);
    if (store.getFact(key, file.hash) === undefined) store.putFact(key, file.hash, kind.extract(file.path, file.content));
  }
}

/** A candidate read by the full path (a symlink's target): its facts still go through the store. */
function bindRead(path: string, outcome: ReadOutcome, options: IndexedReadOptions): ReadOutcome {
  if ('file' in outcome) {
    extractAll(options.store, options.kinds, outcome.file);
    attachFacts(outcome.file, options.store);
  }
  return outcome;
}

/** Bind a file's facts, non-enumerable: a candidate compares and serialises by its data alone. */
export function attachFacts(file: CandidateFile, store: FactStore): void {
  Object.defineProperty(file, 'facts', { value: boundFacts(store, file), enumerable: false, configurable: true, writable: true });
}

/** Facts of one file: from the store, else extracted from its content and stored. */
export function boundFacts(store: FactStore, file: Pick<CandidateFile, 'path' | 'hash' | 'content'>): FactSource {
  return {
    get<T>(kind: FactKind<T>): T {
      const key = kindKey(kind, file.path);
      const stored = store.getFact(key, file.hash);
      if (stored !== undefined) return stored as T;
      const value = kind.withoutContent?.(file.path) ?? kind.extract(file.path, file.content);
      store.putFact(key, file.hash, value);
      return value;
    },
  };
}

/**
 * A candidate whose text is read on first use, through the same redaction as a full read:
 * content that reaches any output never skips it.
 */
function lazyFile(path: string, abs: string, info: Pick<FileInfo, 'size'> & Partial<Pick<FileInfo, 'mtimeMs'>>, fact: CollectFact, options: IndexedReadOptions): CandidateFile {
  let text: string | undefined;
  const load = (): string => {
    let raw: string;
    try {
      raw = options.readFileSync(abs).toString('utf8');
    } catch {
      // deleted since the scan: the next run drops it; this one renders it empty
      raw = '';
    }
    // The findings stored with the blob's fact: same bytes, same offsets, no rescan.
    return redactKnownFindings(raw, fact.findings, options.rules);
  };
  const file = { path, size: info.size, hash: fact.hash, lineCount: fact.lineCount } as CandidateFile;
  if (info.mtimeMs !== undefined) file.mtimeMs = Math.floor(info.mtimeMs);
  else {
    let mtimeMs: number | undefined;
    Object.defineProperty(file, 'mtimeMs', {
      enumerable: true,
      configurable: true,
      get: () => (mtimeMs ??= Math.floor(mtimeOf(abs, options))),
      set: (value: number) => {
        mtimeMs = value;
      },
    });
  }
  Object.defineProperty(file, 'content', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= load()),
    set: (value: string) => {
      text = value;
    },
  });
  attachFacts(file, options.store);
  return file;
}
