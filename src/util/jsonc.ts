/**
 * JSON, or JSONC (comments, trailing commas) as tsconfig files use it. Comment markers inside
 * strings stay (a `"@scope/*"` key is text, not a comment start). Throws SyntaxError when the
 * text is neither.
 */
export function parseJsonLenient(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    const stripped = content
      .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '')
      .replace(/,(\s*[}\]])/g, '$1');
    return JSON.parse(stripped);
  }
}
