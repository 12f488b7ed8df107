/**
 * Credentials written into ordinary files (a token pasted into a config module, a key in a
 * test) would otherwise reach the context with the file. Each pattern is a well-known token
 * format with a distinctive prefix, so ordinary code does not match; a match is replaced by
 * `[REDACTED <kind>]` and the file stays a candidate. Off when `collect.include_secrets` is set.
 */
export const SECRET_PATTERNS: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/g },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: 'openai-or-anthropic-key', pattern: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b/g },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe-live-key', pattern: /\b[rs]k_live_[0-9A-Za-z]{24,}\b/g },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
];

/** Part of the content hash of a redacted file, so caches never mix redacted and raw text. */
export const REDACTION_VERSION = 1;

export interface Redaction {
  text: string;
  /** Kinds found, sorted, each once. */
  kinds: string[];
  count: number;
}

export function redactSecrets(text: string): Redaction {
  const kinds = new Set<string>();
  let count = 0;
  let out = text;
  for (const { kind, pattern } of SECRET_PATTERNS) {
    out = out.replace(pattern, () => {
      kinds.add(kind);
      count++;
      return `[REDACTED ${kind}]`;
    });
  }
  return { text: out, kinds: [...kinds].sort(), count };
}
