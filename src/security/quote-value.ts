import { findOwnSecrets } from './secret-rules.js';

/** Longest user string an error message quotes. */
export const MAX_QUOTED_CHARS = 40;

/**
 * A user-supplied string as an error message may show it: quoted when short, on one line and
 * not credential-shaped; otherwise only its length. Errors name the key and the fix, never echo
 * a file's content (`--config .env` must not print the secrets it holds).
 */
export function quoteUserString(text: string): string {
  if (text.length > MAX_QUOTED_CHARS || /[\r\n]/.test(text)) return `a text of ${text.length} characters (not shown)`;
  if (findOwnSecrets(text).length > 0 || /[A-Za-z0-9+/_-]{24,}/.test(text)) return 'a credential-like value (not shown)';
  return JSON.stringify(text);
}
