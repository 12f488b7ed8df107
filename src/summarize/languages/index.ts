import { basename, extname } from 'node:path';
import type { LanguageSpec } from './types.js';
import { typescriptLanguage } from './typescript.js';
import { tsxLanguage } from './tsx.js';
import { javascriptLanguage } from './javascript.js';
import { pythonLanguage } from './python.js';
import { goLanguage } from './go.js';
import { rustLanguage } from './rust.js';
import { javaLanguage } from './java.js';
import { csharpLanguage } from './csharp.js';
import { cppLanguage } from './cpp.js';
import { rubyLanguage } from './ruby.js';
import { phpLanguage } from './php.js';
import { shellLanguage } from './shell.js';

export type { LanguageSpec } from './types.js';

/** Every language with a tree-sitter outline. Adding one is a file plus one line here. */
export const LANGUAGES: readonly LanguageSpec[] = [
  typescriptLanguage,
  tsxLanguage,
  javascriptLanguage,
  pythonLanguage,
  goLanguage,
  rustLanguage,
  javaLanguage,
  csharpLanguage,
  cppLanguage,
  rubyLanguage,
  phpLanguage,
  shellLanguage,
];

const BY_KEY = new Map<string, LanguageSpec>(LANGUAGES.flatMap((l) => l.extensions.map((e) => [e, l] as const)));

/** The language of a path by extension (or exact base name), or undefined. */
export function languageForPath(path: string): LanguageSpec | undefined {
  const base = basename(path);
  return BY_KEY.get(base) ?? BY_KEY.get(extname(base).toLowerCase());
}

/** A shell script without an extension is recognised by its `#!` line. */
export function languageForContent(path: string, content: string): LanguageSpec | undefined {
  const byPath = languageForPath(path);
  if (byPath) return byPath;
  if (extname(path) !== '') return undefined;
  const shebang = /^#!.*\b(?:bash|sh|zsh|ksh)\b/.exec(content);
  return shebang ? shellLanguage : undefined;
}
