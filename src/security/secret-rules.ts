/**
 * Our own secret rules: only what secretlint's recommended preset (v11, see secret-scan.ts)
 * does not find, each checked against the preset on the same sample before it was added
 * (test/security/secret-scan.test.ts keeps those samples). A rule's `pattern` marks the secret
 * with the named group `secret` when only part of the match is the credential (the key name
 * and the URL around a password stay, so the file still reads as what it is).
 *
 * Gaps filled, and why they are gaps in preset-recommend 11.7.1:
 * - kubeconfig `token:` / `client-key-data:` / `id-token` / `refresh-token`: no Kubernetes rule.
 * - JWTs: no rule.
 * - Stripe keys, live and test, and webhook secrets: no Stripe rule in v11.
 * - `password = "..."`-style assignments (password, passwd, secret, api_key, token, ...): no rule.
 * - Passwords in redis://, amqp://, mssql:// and other URLs: the preset knows postgres, mysql
 *   and mongodb connection strings and https basic auth only.
 * - GitLab tokens, Google API keys, OpenAI project keys (sk-proj-...): not found by v11's rules.
 * - GitHub tokens longer than the classic 36 characters after `ghp_`: the preset wants exactly 36.
 * Covered by the preset, so not here: AWS access key ids and secret access keys, private keys
 * (PEM, also inside JSON with `\n` and indented), GitHub, Slack tokens and webhooks, npm,
 * Anthropic, SendGrid, Shopify, Linear, postgres/mysql/mongodb connection strings.
 */
export interface OwnSecretRule {
  kind: string;
  pattern: RegExp;
  /**
   * Text every match of `pattern` contains (no `g` flag): a file without it is skipped without
   * running `pattern`, whose leading `\b`, key-name or scheme part would be tried at every word.
   */
  hint: RegExp;
  /** The value is not quoted: a bare identifier (`string`, `settings.PASSWORD`) is code, not a secret. */
  unquoted?: boolean;
}

/** Words that end a key whose value is a credential (`db_password`, `clientSecret`). */
const KEY_WORD = String.raw`(?:password|passwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key)`;
/** Keys whose value is a credential; the key must end with one of KEY_WORD. */
const KEY = String.raw`["']?[A-Za-z0-9_.-]*${KEY_WORD}["']?`;
const KEY_HINT = new RegExp(KEY_WORD, 'i');

/** `d`: match indices, so the `secret` group's offsets are exact. */
export const OWN_SECRET_RULES: readonly OwnSecretRule[] = [
  {
    kind: 'kubeconfig-credential',
    pattern: /^[ \t-]*(?:token|client-key-data|id-token|refresh-token)[ \t]*:[ \t]*["']?(?<secret>[A-Za-z0-9+/=._~-]{16,})["']?[ \t]*$/dgm,
    hint: /token|client-key-data/,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg, hint: /eyJ/ },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b|\bwhsec_[0-9A-Za-z]{24,}\b/dg, hint: /_(?:live|test)_|whsec_/ },
  // The preset's GitHub rule wants exactly 36 characters after `ghp_`; longer ones are tokens too.
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/dg, hint: /gh[pousr]_|github_pat_/ },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/dg, hint: /glpat-/ },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/dg, hint: /AIza/ },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}\b/dg, hint: /sk-/ },
  {
    kind: 'url-password',
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@'"`]*:(?<secret>[^\s@/'"`]{3,})@[^\s'"`]/dgi,
    hint: /:\/\/[^\s:/@'"`]*:[^\s@/'"`]{3,}@/,
  },
  // `password = "..."`, `"client_secret": '...'`, `api_key => "..."`: a quoted literal.
  {
    kind: 'password-assignment',
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9_])${KEY}[ \t]*(?::=|=>|=|:)[ \t]*(?<q>["'\x60])(?<secret>[^\s"'\x60]{8,})\k<q>`, 'dgim'),
    hint: KEY_HINT,
  },
  // `DB_PASSWORD=SuperSecret99`, `password: hunter2hunter2` (env, ini, YAML): the rest of the line.
  {
    kind: 'password-assignment',
    pattern: new RegExp(String.raw`^[ \t-]*(?:export[ \t]+)?${KEY}[ \t]*(?:=|:)[ \t]*(?<secret>[^\s"'\x60]{8,})[ \t]*$`, 'dgim'),
    unquoted: true,
    hint: KEY_HINT,
  },
];

/** A value that names where a secret comes from, or a type, rather than being one. */
const REFERENCE_VALUE = /^(?:(?:password|passwd|pass|secret|user|username|test|dummy|fake|redacted)$|\$|\{\{|<|%|process\.env|os\.environ|env\(|getenv|ENV\[|\*{3,}|x{6,}|changeme|your[_-]|example|placeholder|null|none|true|false|undefined)/i;
/** A bare identifier, possibly dotted. */
const BARE_IDENTIFIER = /^[A-Za-z_][A-Za-z_.]*[;,]?$/;

export interface OwnFinding {
  kind: string;
  start: number;
  end: number;
}

/** Findings of our own rules; a value that is a reference (`${VAR}`, `process.env.X`) is not one. */
export function findOwnSecrets(text: string): OwnFinding[] {
  const findings: OwnFinding[] = [];
  for (const { kind, pattern, unquoted, hint } of OWN_SECRET_RULES) {
    if (!hint.test(text)) continue;
    for (const match of text.matchAll(pattern)) {
      const [start, end] = match.indices?.groups?.secret ?? match.indices?.[0] ?? [0, 0];
      const secret = text.slice(start, end);
      if (REFERENCE_VALUE.test(secret) || (unquoted === true && BARE_IDENTIFIER.test(secret))) continue;
      findings.push({ kind, start, end });
    }
  }
  return findings;
}
