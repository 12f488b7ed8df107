/**
 * Path rules of the evaluation: which changed files count as "source" for a mined task and
 * which files are tests (excluded from gold sets and from the BM25 baseline's index, as in the
 * SWE-bench retrieval baseline). By path only, so mining needs no file contents.
 */

/** Extensions of programming-language source files. */
const SOURCE_EXTENSIONS = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'vue', 'svelte',
  'py', 'go', 'rs', 'java', 'kt', 'kts', 'scala', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh',
  'cs', 'rb', 'php', 'swift', 'm', 'mm', 'sh', 'bash', 'zsh', 'lua', 'dart', 'ex', 'exs', 'erl',
  'clj', 'hs', 'ml', 'r', 'jl', 'zig', 'nim', 'sql',
]);

const TEST_DIR = /(^|\/)(test|tests|__tests__|__test__|spec|specs|__mocks__|__snapshots__|fixtures?|e2e|testdata|testing)\//i;
const TEST_FILE = /(\.(test|spec|bench|e2e)\.[^/]+$)|(_test\.(go|py|rb|rs|exs?)$)|((^|\/)test_[^/]+\.py$)|((^|\/)conftest\.py$)|(Tests?\.(java|kt|cs|swift)$)/;
const GENERATED = /(^|\/)(dist|build|out|vendor|node_modules|coverage|\.git|\.yarn)\/|(^|\/)\.pnp\.[cm]?js$|\.min\.(js|css)$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml)$/;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

/** A hand-written, non-test source file (generated bundles and vendored code are not). */
export function isSourcePath(path: string): boolean {
  if (isTestPath(path) || GENERATED.test(path)) return false;
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return false;
  return SOURCE_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

const DOC_FILE = /\.(md|mdx|markdown|rst|txt|adoc)$|(^|\/)(docs?|documentation)\/|(^|\/)(README|CHANGELOG|CHANGES|HISTORY|LICENSE|NOTICE|AUTHORS|CONTRIBUTING)(\.[^/]*)?$/i;

export function isDocPath(path: string): boolean {
  return DOC_FILE.test(path);
}
