import type { Config, FileCategory } from '../config/schema.js';
import { createGlobMatcher } from '../util/glob.js';
import { sameInOrder } from '../util/sorted.js';

/**
 * The five file categories of spec 003, decided by path and extension. Order of the rules:
 * config overrides (first matching glob wins), then tests, requirements, documentation,
 * config, and source for everything else that looks like code. Unknown text files count as
 * documentation so they rank below code but are not dropped.
 */
export function createClassifier(overrides: Config['relevance_scoring']['factors']['file_type']['overrides']): (path: string) => FileCategory {
  const match = createGlobMatcher(overrides.map((o) => o.glob));
  return (path) => {
    const hit = match(path);
    if (hit >= 0) return (overrides[hit] as { category: FileCategory }).category;
    return classifyPath(path);
  };
}

/**
 * Classify all files once per run. A category depends on the path alone: given the categories of
 * an earlier file set (same overrides), a path classified there keeps its category.
 */
export function classifyFiles(paths: readonly string[], config: Config, previous?: Map<string, FileCategory>): Map<string, FileCategory> {
  if (previous !== undefined && sameInOrder(previous.keys(), paths)) return previous;
  const classify = createClassifier(config.relevance_scoring.factors.file_type.overrides);
  return new Map(paths.map((p) => [p, previous?.get(p) ?? classify(p)]));
}

const TEST_DIR = /(?:^|\/)(?:test|tests|__tests__|spec|specs|e2e|testing|testdata|fixtures|__mocks__)\//i;
const TEST_FILE = /(?:\.(?:test|spec|e2e)\.[a-z0-9]+$)|(?:(?:^|\/)test_[^/]+\.py$)|(?:_test\.(?:py|go|rs|rb|exs?)$)|(?:(?:Test|Tests|IT)\.(?:java|kt|cs|scala)$)|(?:_spec\.rb$)/;
const REQUIREMENTS_DIR = /(?:^|\/)(?:requirements|use-?cases|user-stories|stories|specs?|rfcs?|adrs?|prd|\.aiwg\/(?:requirements|intake|planning))\//i;
const REQUIREMENTS_FILE = /(?:^|\/)(?:UC|US|REQ|NFR|FR|ADR|RFC)[-_]?\d+[^/]*\.(?:md|markdown|txt|ya?ml)$|(?:^|\/)(?:requirements|REQUIREMENTS|SPEC|spec|PRD)\.(?:md|markdown|txt|rst)$/;
const DOC_EXT = /\.(?:md|markdown|mdx|rst|txt|adoc|asciidoc|org|tex|html?)$/i;
const DOC_DIR = /(?:^|\/)(?:docs?|documentation|wiki|examples?|guides?)\//i;
const DOC_NAME = /(?:^|\/)(?:README|CHANGELOG|CHANGES|HISTORY|CONTRIBUTING|LICENSE|LICENCE|COPYING|AUTHORS|NOTICE|CODE_OF_CONDUCT|SECURITY|AGENTS|CLAUDE|GEMINI)(?:\.[^/]*)?$/i;
const CONFIG_EXT = /\.(?:json|jsonc|json5|ya?ml|toml|ini|cfg|conf|properties|env|xml|plist|lock|editorconfig|gradle)$/i;
const CONFIG_NAME =
  /(?:^|\/)(?:Dockerfile|Containerfile|Makefile|Procfile|Rakefile|Gemfile|Pipfile|Vagrantfile|Jenkinsfile|go\.mod|go\.sum|Cargo\.toml|\.gitignore|\.gitattributes|\.npmrc|\.nvmrc|\.prettierrc|\.eslintrc|\.babelrc|\.dockerignore|\.cursorrules|CODEOWNERS)$|(?:^|\/)[^/]+\.config\.[cm]?[jt]s$|(?:^|\/)\.[^/]+rc(?:\.[cm]?js)?$|(?:^|\/)\.(?:github|circleci|gitlab|ci|devcontainer|vscode|husky)\//;
const SOURCE_EXT =
  /\.(?:[cm]?[jt]sx?|py|pyi|go|rs|java|kt|kts|scala|groovy|c|h|cc|cpp|cxx|hpp|hh|cs|fs|swift|m|mm|rb|php|pl|pm|lua|r|jl|dart|ex|exs|erl|hrl|clj|cljs|elm|hs|ml|mli|nim|zig|v|sol|sh|bash|zsh|fish|ps1|sql|graphql|gql|proto|vue|svelte|astro|css|scss|sass|less|wasm|asm|s)$/i;

/** Classification by built-in rules only (no overrides). */
export function classifyPath(path: string): FileCategory {
  if (TEST_FILE.test(path) || (TEST_DIR.test(path) && SOURCE_EXT.test(path))) return 'test_code';
  if (REQUIREMENTS_FILE.test(path) || (REQUIREMENTS_DIR.test(path) && DOC_EXT.test(path))) return 'requirements';
  if (DOC_NAME.test(path) || DOC_EXT.test(path)) return 'documentation';
  if (CONFIG_NAME.test(path) || CONFIG_EXT.test(path)) return 'config';
  if (SOURCE_EXT.test(path)) return DOC_DIR.test(path) ? 'documentation' : 'source_code';
  if (DOC_DIR.test(path)) return 'documentation';
  return 'documentation';
}
