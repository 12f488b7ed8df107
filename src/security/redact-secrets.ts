import { sha256Hex } from '../util/hash.js';
import type { KeyValueCache } from '../types.js';
import { findOwnSecrets } from './secret-rules.js';

/**
 * The one redaction every output path calls (collect, working-set assembly, summarize,
 * handoffs, and any later front end): secretlint's recommended preset, the maintained rule set
 * repomix also scans with, plus our rules for its gaps (secret-rules.ts). Each secret is
 * replaced by `[REDACTED <kind>]`, so the file keeps its shape (the key name, the URL around a
 * password) and says what was removed. Findings are cached by content hash: a warm run makes
 * one cache lookup per file and never loads secretlint.
 */

/** Part of every content hash of redacted text and of the findings cache key: bump when rules change. */
export const REDACTION_VERSION = 2;
const FINDINGS_NAMESPACE = `secrets-v${REDACTION_VERSION}`;

export interface SecretFinding {
  /** e.g. `aws-secret-access-key`, `private-key`, `password-assignment`. */
  kind: string;
  /** Offsets (UTF-16, as String.slice) of the secret in the text. */
  start: number;
  end: number;
}

export interface Redaction {
  text: string;
  /** Kinds found, sorted, each once. */
  kinds: string[];
  count: number;
}

export interface RedactOptions {
  /** Findings cache keyed by content hash (the disk + LRU caches of the run); none = scan every time. */
  cache?: KeyValueCache | null;
  /** sha256 hex of `text` when the caller already has it (collect does). */
  hash?: string;
}

/**
 * The content hash of a redacted text: content-addressed caches (summaries, token counts)
 * must never share an entry between a redacted file and its raw bytes.
 */
export function redactedContentHash(redactedText: string): string {
  return sha256Hex(`redacted-v${REDACTION_VERSION}\0${redactedText}`);
}

/** Longest task text a record or log line stores; the rest is cut with a marker. */
export const MAX_STORED_TASK_CHARS = 2000;

/**
 * User text that is stored (the task in records and log lines): capped, so a pasted log cannot
 * bloat every record. Redact it first (the pipeline redacts the task as it enters).
 */
export function capStoredText(text: string, maxChars = MAX_STORED_TASK_CHARS): string {
  if (text.length <= maxChars) return text;
  const marker = ` [... ${text.length - maxChars} more characters not stored]`;
  return `${text.slice(0, Math.max(0, maxChars - marker.length))}${marker}`;
}

/** Replace every secret in `text`; the text back unchanged (same string) when there is none. */
export async function redactSecrets(text: string, options: RedactOptions = {}): Promise<Redaction> {
  const findings = await findSecretsCached(text, options);
  return applyFindings(text, findings);
}

/** The secrets of a text, through the cache when one is given. A corrupt entry is a miss. */
export async function findSecretsCached(text: string, options: RedactOptions = {}): Promise<SecretFinding[]> {
  if (!options.cache) return findSecrets(text);
  const key = options.hash ?? sha256Hex(text);
  const cached = parseFindings(await options.cache.get(FINDINGS_NAMESPACE, key).catch(() => undefined), text.length);
  if (cached) return cached;
  const findings = await findSecrets(text);
  // A cache that cannot be written costs a rescan next time, never the run.
  await options.cache.set(FINDINGS_NAMESPACE, key, JSON.stringify(findings.map((f) => [f.kind, f.start, f.end]))).catch(() => undefined);
  return findings;
}

/** Scan with secretlint's recommended preset and our own rules; overlapping findings merged. */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
  if (text.trim() === '') return [];
  const findings = [...(await secretlintFindings(text)), ...findOwnSecrets(text)];
  return mergeFindings(findings);
}

/** Replace findings (sorted, non-overlapping) by markers. */
export function applyFindings(text: string, findings: readonly SecretFinding[]): Redaction {
  if (findings.length === 0) return { text, kinds: [], count: 0 };
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[REDACTED ${f.kind}]`;
    at = f.end;
  }
  out += text.slice(at);
  return { text: out, kinds: [...new Set(findings.map((f) => f.kind))].sort(), count: findings.length };
}

type Lint = (text: string) => Promise<Array<{ messageId?: string; ruleId: string; range: readonly [number, number]; data?: Record<string, unknown> }>>;
let loading: Promise<Lint> | undefined;

/**
 * secretlint, imported on first use (the preset is ~230 KB of rules): warm runs that hit the
 * findings cache never load it. Module-level on purpose: it holds only the immutable loaded
 * rule set, never per-run state.
 */
function loadSecretlint(): Promise<Lint> {
  loading ??= (async () => {
    const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/secretlint-rule-preset-recommend'),
      import('@secretlint/profiler'),
    ]);
    // secretlint times itself through a process-wide profiler that keeps every performance mark
    // and, for each new one, scans all kept so far: quadratic in the files scanned (a first run
    // over babel's 27k files spent most of an hour there, and Node's mark buffer grows without
    // bound). We never read its timings, so its marks are switched off.
    secretLintProfiler.mark = () => undefined;
    // AWS access key ids are off by default in the preset (an id alone is not a credential);
    // an id next to its secret is, and redacting both keeps the pair from being reassembled.
    const config = {
      rules: [
        {
          id: '@secretlint/secretlint-rule-preset-recommend',
          rule: creator,
          rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
        },
      ],
    };
    return async (text: string) => {
      // A fixed virtual path: findings must depend on the content only, or the hash cache lies.
      const result = await lintSource({
        source: { filePath: 'content.txt', content: text, contentType: 'text' },
        options: { config, noPhysicFilePath: true },
      });
      return result.messages;
    };
  })();
  return loading;
}

async function secretlintFindings(text: string): Promise<SecretFinding[]> {
  const lint = await loadSecretlint();
  const findings: SecretFinding[] = [];
  for (const message of await lint(text)) {
    const kind = kebab(message.messageId ?? message.ruleId.replace(/^.*secretlint-rule-/, ''));
    // Some rules report a range that starts at the key name rather than the value (the AWS
    // secret access key rule, v11): the reported value itself, wherever it occurs, is what goes.
    const values = Object.values(message.data ?? {}).filter((v): v is string => typeof v === 'string' && v.length >= 8);
    let located = false;
    for (const value of values) {
      for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
        findings.push(narrowUrlPassword(text, { kind, start: i, end: i + value.length }));
        located = true;
      }
    }
    if (!located) findings.push(narrowUrlPassword(text, { kind, start: message.range[0], end: message.range[1] }));
  }
  return findings;
}

/** A connection string keeps its scheme, user and host: only the password is the secret. */
function narrowUrlPassword(text: string, finding: SecretFinding): SecretFinding {
  const span = text.slice(finding.start, finding.end);
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s@/]+)@/i.exec(span);
  if (!match) return finding;
  const start = finding.start + match[0].length - 1 - match[1]!.length;
  return { kind: finding.kind, start, end: start + match[1]!.length };
}

/** Sorted by start; overlapping or touching findings become one (the first finding's kind). */
function mergeFindings(findings: SecretFinding[]): SecretFinding[] {
  const sorted = findings.filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const f of sorted) {
    const last = merged[merged.length - 1];
    if (last && f.start <= last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  return merged;
}

function parseFindings(value: string | undefined, length: number): SecretFinding[] | undefined {
  if (value === undefined) return undefined;
  try {
    const rows = JSON.parse(value) as unknown;
    if (!Array.isArray(rows)) return undefined;
    const findings: SecretFinding[] = [];
    let previousEnd = 0;
    for (const row of rows) {
      if (!Array.isArray(row) || typeof row[0] !== 'string' || !Number.isInteger(row[1]) || !Number.isInteger(row[2])) return undefined;
      const [kind, start, end] = row as [string, number, number];
      if (start < previousEnd || end <= start || end > length) return undefined;
      findings.push({ kind, start, end });
      previousEnd = end;
    }
    return findings;
  } catch {
    return undefined;
  }
}

function kebab(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}
