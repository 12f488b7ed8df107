import { describe, expect, it } from 'vitest';
import { classifyFiles, classifyPath, createClassifier } from '../../src/scoring/classify.js';
import { globToRegExp } from '../../src/util/glob.js';
import { defaultConfig } from '../../src/config/schema.js';

describe('classifyPath', () => {
  it.each([
    ['src/auth/oauth.ts', 'source_code'],
    ['lib/parser.py', 'source_code'],
    ['cmd/server/main.go', 'source_code'],
    ['src/auth/oauth.test.ts', 'test_code'],
    ['test/auth/oauth.ts', 'test_code'],
    ['tests/test_parser.py', 'test_code'],
    ['pkg/server/handler_test.go', 'test_code'],
    ['src/test/java/com/x/FooTest.java', 'test_code'],
    ['src/__tests__/a.js', 'test_code'],
    ['.aiwg/requirements/UC-003.md', 'requirements'],
    ['docs/adr/ADR-001-storage.md', 'requirements'],
    ['requirements.md', 'requirements'],
    ['README.md', 'documentation'],
    ['docs/security.md', 'documentation'],
    ['CHANGELOG', 'documentation'],
    ['AGENTS.md', 'documentation'],
    ['examples/basic.ts', 'documentation'],
    ['package.json', 'config'],
    ['tsconfig.json', 'config'],
    ['.github/workflows/ci.yml', 'config'],
    ['vitest.config.ts', 'config'],
    ['Dockerfile', 'config'],
    ['go.mod', 'config'],
    ['.eslintrc.cjs', 'config'],
    ['Makefile', 'config'],
  ])('%s is %s', (path, category) => {
    expect(classifyPath(path)).toBe(category);
  });
});

describe('glob overrides', () => {
  it('first matching glob wins, then the built-in rules', () => {
    const classify = createClassifier([
      { glob: 'scripts/**', category: 'config' },
      { glob: '*.proto', category: 'requirements' },
      { glob: 'scripts/special.ts', category: 'source_code' },
    ]);
    expect(classify('scripts/deploy/run.ts')).toBe('config');
    expect(classify('scripts/special.ts')).toBe('config');
    expect(classify('api/v1/service.proto')).toBe('requirements');
    expect(classify('src/main.ts')).toBe('source_code');
  });

  it('classifyFiles reads the overrides from the config', () => {
    const config = defaultConfig();
    config.relevance_scoring.factors.file_type.overrides = [{ glob: 'docs/**/*.ts', category: 'source_code' }];
    expect(classifyFiles(['docs/snippets/a.ts', 'docs/a.md'], config)).toEqual(
      new Map([
        ['docs/snippets/a.ts', 'source_code'],
        ['docs/a.md', 'documentation'],
      ]),
    );
  });

  it.each([
    ['*.ts', 'src/a.ts', true],
    ['*.ts', 'a.tsx', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/sub/a.ts', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['**/fixtures/**', 'test/fixtures/a/b.json', true],
    ['*.{yml,yaml}', 'ci/a.yaml', true],
    ['file?.md', 'file1.md', true],
    ['[ab].md', 'c.md', false],
    ['/root-only.md', 'root-only.md', true],
    ['/root-only.md', 'sub/root-only.md', false],
  ])('glob %s vs %s -> %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });
});
