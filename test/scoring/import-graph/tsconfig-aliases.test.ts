import { describe, expect, it } from 'vitest';
import { buildImportGraph } from '../../../src/scoring/import-graph/index.js';
import { candidates } from '../helpers.js';

/** Monorepo aliases as real projects write them: `@scope/*` globs, comments, `extends` chains. */
describe('tsconfig path aliases (get-tsconfig)', () => {
  const monorepo = {
    'tsconfig.base.json': `{
      // shared by every package
      "compilerOptions": {
        "baseUrl": ".",
        /* the glob below must not be read as a comment start */
        "paths": { "@scope/*": ["packages/*/src"], "@tools/*": ["tools/*.ts"], },
      },
    }`,
    'apps/web/tsconfig.json': '{ "extends": "../../tsconfig.base.json", "compilerOptions": { "strict": true } }',
    'apps/web/main.ts': "import { ui } from '@scope/ui';\nimport { core } from '@scope/core';\nimport { lint } from '@tools/lint';\nimport { react } from 'react';\n",
    'packages/ui/src/index.ts': "import { add } from '@scope/core';\n",
    'packages/core/src/index.ts': '',
    'tools/lint.ts': '',
  };

  it('resolves `@scope/*` globs through an `extends` chain, from every package', () => {
    const graph = buildImportGraph(candidates({ ...monorepo, 'tsconfig.json': '{ "extends": "./tsconfig.base.json" }' }));
    expect(graph.imports.get('apps/web/main.ts')).toEqual(['packages/core/src/index.ts', 'packages/ui/src/index.ts', 'tools/lint.ts']);
    expect(graph.imports.get('packages/ui/src/index.ts')).toEqual(['packages/core/src/index.ts']);
    expect(graph.warnings).toEqual([]);
  });

  it('a config extending an npm package keeps its own paths, with a warning naming the package', () => {
    const graph = buildImportGraph(
      candidates({
        'tsconfig.json': '{ "extends": "@tsconfig/node20/tsconfig.json", "compilerOptions": { "paths": { "@app/*": ["./src/*"] } } }',
        'src/main.ts': "import { x } from '@app/x';\n",
        'src/x.ts': '',
      }),
    );
    expect(graph.imports.get('src/main.ts')).toEqual(['src/x.ts']);
    expect(graph.warnings).toEqual([expect.stringContaining('extends @tsconfig/node20/tsconfig.json, which is not among the collected files')]);
  });

  it('an `extends` that climbs out of the root is refused, never read', () => {
    const graph = buildImportGraph(
      candidates({ 'tsconfig.json': '{ "extends": "../outside/tsconfig.json" }', 'a.ts': "import 'x';\nimport './b.js';", 'b.ts': '' }),
    );
    expect(graph.imports.get('a.ts')).toEqual(['b.ts']);
    expect(graph.warnings).toEqual([expect.stringMatching(/tsconfig\.json could not be read .*paths\/baseUrl are ignored/)]);
  });
});
