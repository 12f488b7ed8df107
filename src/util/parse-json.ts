import { locateJsonError } from '../assemble/json-locate.js';

/**
 * JSON.parse whose error never quotes the input: Node's own message embeds the start of the
 * text (`Unexpected token 'r', "root:x:0:0:"... is not valid JSON`), which would echo a file's
 * content (a secret, /etc/passwd through a symlink) into an error line.
 */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    if (text.trim() === '') return { ok: false, problem: 'not valid JSON (empty file)' };
    const at = locateJsonError(text);
    return { ok: false, problem: `not valid JSON (${at ? `at line ${at.line}, column ${at.column}` : 'a syntax error'})` };
  }
}
