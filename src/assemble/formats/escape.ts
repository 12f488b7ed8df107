/**
 * Neutralising repository text so it stays data inside the rendered context.
 *
 * Content is never fully XML-escaped: code full of `<T>` generics and `&&` would cost more
 * tokens and read worse. Only the tags that could end a wrapper or pose as a role are
 * neutralised, by writing their `<` as `&lt;`: `</context>` in a file becomes `&lt;/context>`.
 */

/** Element names the renderers emit, plus the role names of spec 001 section 5. */
const RESERVED_TAGS = ['context', 'message', 'history', 'tier', 'boot', 'aiwg-context', 'system', 'developer', 'user', 'assistant', 'tool'];

const RESERVED_TAG_PATTERN = new RegExp(`<(?=\\s*/?\\s*(?:${RESERVED_TAGS.join('|')})(?![\\w-]))`, 'gi');

/** `<` of any reserved opening or closing tag becomes `&lt;`; everything else is untouched. */
export function neutraliseTags(text: string): string {
  return text.replace(RESERVED_TAG_PATTERN, '&lt;');
}

/** An XML attribute value: `& < > "` escaped, control characters as numeric references. */
export function escapeAttribute(value: string): string {
  return value.replace(/[&<>"\u0000-\u001f\u007f]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      default:
        return `&#${c.charCodeAt(0)};`;
    }
  });
}

/** One-line text: control characters (newlines included) written as `\uXXXX`. */
export function singleLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A Markdown code fence longer than any backtick run in `content`, so the content cannot close it. */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const run of content.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Only a-z0-9 file extensions become a Markdown info string (`src/a.ts` -> `ts`). */
export function languageHint(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = base.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}

/** A role name safe to print: letters, digits, `_` and `-`, else `unknown`. */
export function safeRole(role: string): string {
  return /^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(role) ? role.toLowerCase() : 'unknown';
}

/** Content followed by exactly the newline it needs before a closing tag or fence. */
export function asLines(content: string): string {
  return content === '' || content.endsWith('\n') ? content : `${content}\n`;
}
