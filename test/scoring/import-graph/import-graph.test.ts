import { describe, expect, it } from 'vitest';
import { buildImportGraph, distancesFrom } from '../../../src/scoring/import-graph/index.js';
import { candidates } from '../helpers.js';

function importsOf(files: Record<string, string>, path: string): string[] {
  const graph = buildImportGraph(candidates(files));
  return graph.imports.get(path) ?? [];
}

describe('TypeScript / JavaScript imports', () => {
  const files = {
    'tsconfig.json': `{
      // comments and trailing commas are allowed in tsconfig
      "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"], "@config": ["src/config/index.ts"], }, },
    }`,
    'src/main.ts': [
      "import { a } from './a.js';",
      "import type { B } from './b';",
      "export * from './c.js';",
      "export { d } from './d/index.js';",
      "import './side-effect';",
      "const e = require('./e.cjs');",
      "const f = await import('./f.mjs');",
      "import { util } from '@app/util/strings';",
      "import config from '@config';",
      "import { base } from 'lib/base';",
      "import { z } from 'zod';",
      "import { gone } from './missing.js';",
      "// import { commented } from './commented';",
      "import { up } from '../../outside.js';",
    ].join('\n'),
    'src/a.ts': '',
    'src/b.tsx': '',
    'src/c.ts': '',
    'src/d/index.ts': '',
    'src/side-effect.js': '',
    'src/e.cjs': '',
    'src/f.mts': '',
    'src/util/strings.ts': '',
    'src/config/index.ts': '',
    'src/commented.ts': '',
    'lib/base.ts': '',
  };
  it('resolves every import form, NodeNext .js -> .ts, index files, tsconfig paths and baseUrl', () => {
    expect(importsOf(files, 'src/main.ts')).toEqual([
      'lib/base.ts',
      'src/a.ts',
      'src/b.tsx',
      'src/c.ts',
      'src/config/index.ts',
      'src/d/index.ts',
      'src/e.cjs',
      'src/f.mts',
      'src/side-effect.js',
      'src/util/strings.ts',
    ]);
  });

  it('an unparseable tsconfig is a warning, relative imports still resolve', () => {
    const graph = buildImportGraph(candidates({ 'tsconfig.json': '{ not json', 'a.ts': "import './b.js';\nimport 'x/y';", 'b.ts': '' }));
    expect(graph.imports.get('a.ts')).toEqual(['b.ts']);
    expect(graph.warnings).toEqual([expect.stringContaining('tsconfig.json is not valid JSON')]);
  });
});

describe('Python imports', () => {
  const files = {
    'src/pkg/__init__.py': '',
    'src/pkg/core.py': 'from . import helpers\nfrom .models import User\nfrom ..other import x\nimport os, json\n',
    'src/pkg/helpers.py': 'import pkg.models as m\n',
    'src/pkg/models.py': 'from pkg import (\n    core,\n    helpers,\n)\n',
    'src/pkg/sub/deep.py': 'from ...pkg.core import run\nfrom pkg.sub import leaf\n',
    'src/pkg/sub/leaf.py': '',
  };
  it.each([
    ['src/pkg/core.py', ['src/pkg/helpers.py', 'src/pkg/models.py']],
    ['src/pkg/helpers.py', ['src/pkg/models.py']],
    ['src/pkg/models.py', ['src/pkg/__init__.py', 'src/pkg/core.py', 'src/pkg/helpers.py']],
    ['src/pkg/sub/deep.py', ['src/pkg/core.py', 'src/pkg/sub/leaf.py']],
  ])('%s imports %j', (path, expected) => {
    expect(importsOf(files, path)).toEqual(expected);
  });
});

describe('Go imports', () => {
  const files = {
    'go.mod': 'module github.com/acme/shop\n\ngo 1.22\n',
    'cmd/server/main.go': 'package main\n\nimport (\n\t"fmt"\n\tcart "github.com/acme/shop/internal/cart"\n)\nimport "github.com/acme/shop/pkg/money"\n',
    'internal/cart/cart.go': 'package cart\n',
    'internal/cart/item.go': 'package cart\n',
    'internal/cart/cart_test.go': 'package cart\n',
    'pkg/money/money.go': 'package money\n',
  };
  it('resolves module-local packages to their non-test files', () => {
    expect(importsOf(files, 'cmd/server/main.go')).toEqual(['internal/cart/cart.go', 'internal/cart/item.go', 'pkg/money/money.go']);
  });
});

describe('Rust modules', () => {
  const files = {
    'Cargo.toml': '[package]\nname = "demo"\n',
    'src/lib.rs': 'pub mod net;\nmod util;\nuse crate::net::http::Client;\n',
    'src/net/mod.rs': 'pub mod http;\nuse super::util::helper;\n',
    'src/net/http.rs': 'use crate::util;\nuse self::inner::X;\n',
    'src/util.rs': '',
  };
  it.each([
    ['src/lib.rs', ['src/net/http.rs', 'src/net/mod.rs', 'src/util.rs']],
    ['src/net/mod.rs', ['src/net/http.rs', 'src/util.rs']],
    ['src/net/http.rs', ['src/util.rs']],
  ])('%s imports %j', (path, expected) => {
    expect(importsOf(files, path)).toEqual(expected);
  });
});

describe('Java imports', () => {
  const files = {
    'src/main/java/com/acme/App.java': 'package com.acme;\nimport com.acme.model.User;\nimport com.acme.util.*;\nimport static com.acme.model.Roles.ADMIN;\nimport java.util.List;\n',
    'src/main/java/com/acme/model/User.java': 'package com.acme.model;\n',
    'src/main/java/com/acme/model/Roles.java': 'package com.acme.model;\n',
    'src/main/java/com/acme/util/Strings.java': '',
    'src/main/java/com/acme/util/Dates.java': '',
  };
  it('resolves class, wildcard and static imports', () => {
    expect(importsOf(files, 'src/main/java/com/acme/App.java')).toEqual([
      'src/main/java/com/acme/model/Roles.java',
      'src/main/java/com/acme/model/User.java',
      'src/main/java/com/acme/util/Dates.java',
      'src/main/java/com/acme/util/Strings.java',
    ]);
  });
});

describe('bad input never breaks the graph', () => {
  it('binary content with a source extension, a huge minified line and an empty file have no edges', () => {
    const graph = buildImportGraph(
      candidates({
        'bin.ts': '\u0000\u0001\uFFFD'.repeat(1000),
        'min.js': `${'var a=1;'.repeat(60_000)}require("./bin")`,
        'empty.py': '',
      }),
    );
    expect(graph.imports.size).toBe(0);
  });
});

describe('distancesFrom', () => {
  // a -> b -> c -> d -> e, and x -> a (x imports a)
  const graph = buildImportGraph(
    candidates({
      'a.ts': "import './b';",
      'b.ts': "import './c';",
      'c.ts': "import './d';",
      'd.ts': "import './e';",
      'e.ts': '',
      'x.ts': "import './a';",
      'lonely.ts': '',
    }),
  );
  it('walks imports and importers alike, and stops at maxDepth', () => {
    expect(Object.fromEntries(distancesFrom(['b.ts'], graph, 3))).toEqual({ 'b.ts': 0, 'a.ts': 1, 'c.ts': 1, 'x.ts': 2, 'd.ts': 2, 'e.ts': 3 });
    expect(Object.fromEntries(distancesFrom(['a.ts'], graph, 2))).toEqual({ 'a.ts': 0, 'b.ts': 1, 'x.ts': 1, 'c.ts': 2 });
    expect(Object.fromEntries(distancesFrom(['a.ts'], graph, 0))).toEqual({ 'a.ts': 0 });
  });
  it('the nearest seed wins', () => {
    expect(distancesFrom(['a.ts', 'e.ts'], graph, 3).get('c.ts')).toBe(2);
    expect(distancesFrom(['a.ts', 'e.ts'], graph, 3).get('d.ts')).toBe(1);
  });
});
