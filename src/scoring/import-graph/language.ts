import type { CandidateFile } from '../../types.js';
import type { ProjectIndex } from './project.js';

/**
 * One language's import support: which files it reads, and, bound to the project once per
 * run, the files a given file imports (root-relative paths of candidates; unresolvable
 * specifiers are dropped silently, never an error).
 */
export interface LanguageSupport {
  readonly name: string;
  readonly files: RegExp;
  prepare(project: ProjectIndex): (file: CandidateFile) => string[];
}

/** Above this, a file is generated or minified: its imports are not worth the regex time. */
export const MAX_SCANNED_CHARS = 300_000;

/** Remove block and line comments cheaply (strings containing comment markers may lose a tail: acceptable for import scanning). */
export function stripCStyleComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"\\])\/\/[^\n]*/g, '$1');
}
